/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "engine/diff.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>

namespace rbdvolume {

namespace {

const PublishTarget *desiredTarget(const VolumeSpec &spec, const std::string &path)
{
	for (const PublishTarget &target : spec.publish) {
		if (target.path == path)
			return &target;
	}
	return nullptr;
}

/* A block-mode mount binds the device node, so it shows the devtmpfs of /dev. */
bool modeMatches(const VolumeSpec &spec, const ObservedMount &mount)
{
	if (spec.mode == VolumeMode::Block)
		return mount.fsType == "devtmpfs";
	return mount.fsType == fsTypeName(spec.filesystem->type);
}

std::string modeProblem(const VolumeSpec &spec, const ObservedMount &mount)
{
	std::string problem;
	if (spec.mode == VolumeMode::Block)
		problem = "mounted as a filesystem (" + mount.fsType +
			  "), the spec says mode = 'block'";
	else if (mount.fsType == "devtmpfs")
		problem = "bound as a block device, the spec says mode = 'filesystem'";
	else
		problem = "mounted as " + mount.fsType + ", the spec says " +
			  fsTypeName(spec.filesystem->type);
	return problem + "; take the volume down and up to apply";
}

std::string mountedFrom(const ObservedMount &mount)
{
	return mount.device.empty() ? "mounted (" + mount.fsType + "), not by rbd-volume"
				    : "mounted from " + mount.device + ", not by rbd-volume";
}

std::string readOnlyProblem(const char *how, bool readOnly, bool wanted)
{
	return std::string(how) + (readOnly ? " read-only" : " read-write") + ", the spec says " +
	       (wanted ? "read-only" : "read-write") + "; take the volume down and up to apply";
}

std::string unknownDataText(const std::string &device, const ProbeResult &probe)
{
	return "holds data (" + probe.type +
	       ") but no signature libblkid knows; never formatted. If the data is not "
	       "needed, wipe it deliberately (blkdiscard -z " +
	       device + ", or delete and recreate the image), then stage again";
}

class Differ
{
public:
	Differ(const DesiredVolume &desired, const ObservedVolume &observed)
		: spec_(desired.spec), observed_(observed), hostStopping_(desired.hostStopping),
		  device_(observed.mapping ? observed.mapping->device : std::string()),
		  fsDevice_(!spec_.encryption ? device_
			    : observed.crypt  ? observed.crypt->device
					      : std::string())
	{
	}

	VolumeDiff down();
	VolumeDiff up();

private:
	VolumeDiff abandon();
	void staleTargets();
	bool targetsUsable();
	bool stagingUsable();
	bool poolUsable();
	bool mappingUsable();
	/* What a probe leaves for the caller to decide; Refused once it said why. */
	enum class Probed : uint8_t { Refused, Signature, Blank };
	Probed sortProbe(const ProbeResult &probe, const std::string &device, const char *never,
			 bool madeSomething);
	bool cryptUsable();
	bool cryptBlank();
	bool mayFormatLuks() const;
	bool layerMismatch(const ObservedMount &mount);
	bool filesystemUsable();
	void missingTargets();
	bool growsFilesystem() const;
	bool pathRefused(const std::string &path);

	void gap(GapKind kind, std::string subject = {})
	{
		result_.gaps.push_back(Gap{ kind, std::move(subject) });
	}
	void conflict(ConflictKind kind, std::string subject, std::string detail)
	{
		result_.conflicts.push_back(
			Conflict{ kind, std::move(subject), std::move(detail) });
	}

	const VolumeSpec &spec_;
	const ObservedVolume &observed_;
	const bool hostStopping_;
	const std::string device_; /* the image's current mapping, "" when unmapped */
	/* What the filesystem (or the block volume's binds) sits on: the image's
	 * mapping, or when encrypted our LUKS mapping of it; "" when not there yet. */
	const std::string fsDevice_;
	VolumeDiff result_;
	bool stagingStale_ = false;
	bool finishingLuks_ = false; /* our LUKS format was cut short: what the mapping shows is
					our own noise until the format is finished */
};

VolumeDiff Differ::down()
{
	if (hostStopping_ && observed_.mappingIsOurs() && !observed_.mapping->stall.empty())
		return abandon();
	for (const ObservedMount &mount : observed_.targets) {
		if (mount.ours)
			gap(GapKind::TargetStale, mount.path);
	}
	if ((observed_.staging && observed_.staging->ours) || observed_.stagingLeft)
		gap(GapKind::StagingStale, spec_.staging.path);
	/* Our mount under a foreign one cannot be reached, and it keeps the device busy. */
	bool held = false;
	for (const ObservedMount &mount : observed_.covered) {
		const std::string what = mount.device.empty()
						 ? "rbd-volume's mount"
						 : "rbd-volume's mount of " + mount.device;
		conflict(ConflictKind::ForeignMount, mount.path,
			 "a mount not made by rbd-volume covers " + what +
				 "; unmount that by hand to finish");
		held = held || (!device_.empty() && mount.device == device_) ||
		       (observed_.crypt && mount.device == observed_.crypt->device);
	}
	if (const auto &crypt = observed_.crypt; crypt && !held) {
		if (crypt->backing == device_ && observed_.mappingIsOurs())
			gap(GapKind::CryptStale, crypt->name);
		else
			conflict(ConflictKind::ForeignMapping, crypt->device,
				 crypt->name + " decrypts " + crypt->backing +
					 ", which rbd-volume did not map; close it by hand");
	}
	if (observed_.mappingIsOurs() && !held)
		gap(GapKind::MappingStale, device_);
	if (observed_.orphanMapper)
		gap(GapKind::OrphanMapper);
	return result_;
}

/*
 * The host shuts down and the device gets no answer. An unmount would wait
 * for the cluster to take the last writes, and every unmap with it, which
 * held poweroffs for ever (rbdmap's hang): the mounts leave the tree at
 * once, the filesystem living on until its last user lets go, and the
 * device stays for the poweroff. What the cluster had not acknowledged is
 * lost either way; the conflict says so.
 */
VolumeDiff Differ::abandon()
{
	for (const ObservedMount &mount : observed_.targets) {
		if (mount.ours)
			gap(GapKind::TargetStale, mount.path);
	}
	if (observed_.staging && observed_.staging->ours)
		gap(GapKind::StagingStale, spec_.staging.path);
	result_.detach = true;
	conflict(ConflictKind::Abandoned, device_,
		 "the host shuts down with " + observed_.mapping->stall +
			 ": its mounts are detached and " + device_ +
			 " left mapped; writes the cluster has not acknowledged are lost");
	return result_;
}

/*
 * Our binds that must go: unwanted paths, old devices, wrong read-only mode.
 * A bind in the wrong mode (block, or another filesystem type) is refused
 * instead: binding it again would not fix it.
 */
void Differ::staleTargets()
{
	for (const ObservedMount &mount : observed_.targets) {
		const PublishTarget *wanted = desiredTarget(spec_, mount.path);
		if (!mount.ours) {
			if (wanted)
				conflict(ConflictKind::ForeignMount, mount.path,
					 mountedFrom(mount));
			continue;
		}
		if (wanted && layerMismatch(mount))
			continue;
		const bool current = wanted && !fsDevice_.empty() && mount.device == fsDevice_;
		if (current && !modeMatches(spec_, mount))
			conflict(ConflictKind::ModeMismatch, mount.path, modeProblem(spec_, mount));
		else if (!current || mount.readOnly != wanted->readOnly)
			gap(GapKind::TargetStale, mount.path);
	}
}

/*
 * Our mount on the other side of the LUKS layer than the spec says: [encryption]
 * added to (or taken from) a live volume. Unmounting would not fix it, and a
 * filesystem is never encrypted in place: a human decides.
 */
bool Differ::layerMismatch(const ObservedMount &mount)
{
	const bool plain = spec_.encryption && !device_.empty() && mount.device == device_;
	const bool decrypted = !spec_.encryption && mount.device == cryptDeviceOf(spec_.name);
	if (!plain && !decrypted)
		return false;
	conflict(ConflictKind::ModeMismatch, mount.path,
		 plain ? "mounted from " + device_ +
				 " without encryption, the spec has [encryption]; a filesystem is "
				 "never encrypted in place"
		       : "mounted from " + mount.device +
				 ", the spec has no [encryption]; take the volume down and up to "
				 "apply");
	return true;
}

/* A path with a symbolic link in it is refused, never retried: a human must fix it. */
bool Differ::pathRefused(const std::string &path)
{
	const auto &refused = observed_.refusedPaths;
	const auto found = std::find_if(refused.begin(), refused.end(),
					[&](const PathRefusal &r) { return r.path == path; });
	if (found == refused.end())
		return false;
	conflict(ConflictKind::UnsafePath, path, found->reason);
	return true;
}

/*
 * False when a publish target can never take the volume: a foreign mount on
 * it, a symbolic link on the way, a file where a directory must be. Seen
 * before the first step, it stops the volume there: nothing is mapped,
 * formatted or mounted for a volume that cannot be published.
 */
bool Differ::targetsUsable()
{
	bool usable = true;
	for (const PublishTarget &target : spec_.publish) {
		const ObservedMount *mount = observed_.target(target.path);
		const bool foreign = mount && !mount->ours; /* said by staleTargets() */
		if (foreign || (!mount && pathRefused(target.path)))
			usable = false;
	}
	return usable;
}

/* False when the staging path holds something we must not build on. */
bool Differ::stagingUsable()
{
	if (!observed_.staging)
		return !pathRefused(spec_.staging.path);
	const ObservedMount &staging = *observed_.staging;
	if (!staging.ours) {
		conflict(ConflictKind::ForeignMount, staging.path, mountedFrom(staging));
		return false;
	}
	if (layerMismatch(staging))
		return false;
	if (fsDevice_.empty() || staging.device != fsDevice_) {
		gap(GapKind::StagingStale, staging.path);
		stagingStale_ = true;
		return true;
	}
	if (!modeMatches(spec_, staging)) {
		conflict(ConflictKind::ModeMismatch, staging.path, modeProblem(spec_, staging));
		return false;
	}
	if (staging.readOnly != spec_.readOnly()) {
		conflict(ConflictKind::ReadOnlyMismatch, staging.path,
			 readOnlyProblem("staged", staging.readOnly, spec_.readOnly()));
		return false;
	}
	if (!observed_.fsErrors.empty()) {
		/* Remounting would hide the errors from the applications that got them. */
		conflict(ConflictKind::FilesystemErrors, staging.path,
			 observed_.fsErrors +
				 ": it may take no more writes; stop what uses the volume, then "
				 "take it down and up to check it");
		return false;
	}
	return true;
}

/* A full pool is said beside any other conflict of the volume's. */
bool Differ::poolUsable()
{
	if (observed_.poolFull.empty())
		return true;
	conflict(ConflictKind::PoolFull, device_, observed_.poolFull);
	return false;
}

bool Differ::mappingUsable()
{
	if (!observed_.mapping) {
		/* It holds the image open: a map would find another writer, itself. */
		if (observed_.orphanMapper)
			gap(GapKind::OrphanMapper);
		gap(GapKind::NotMapped);
		return true;
	}
	if (!observed_.mappingIsOurs()) {
		conflict(ConflictKind::ForeignMapping, device_,
			 spec_.image.display() + " is mapped at " + device_ +
				 ", not by rbd-volume");
		return false;
	}
	if (!observed_.mapping->fault.empty()) {
		/* Remapping under mounted filesystems would hide lost writes: a human decides. */
		conflict(ConflictKind::MapperLost, device_, observed_.mapping->fault);
		return false;
	}
	if (!observed_.mapping->stall.empty()) {
		/* Any step would wait on it too; the kernel resumes its I/O when the cluster answers. */
		conflict(ConflictKind::IoStalled, device_, observed_.mapping->stall);
		return false;
	}
	if (observed_.mapping->readOnly != spec_.readOnly()) {
		conflict(ConflictKind::ReadOnlyMismatch, device_,
			 readOnlyProblem("mapped", observed_.mapping->readOnly, spec_.readOnly()));
		return false;
	}
	return true;
}

/* Unprobed, failed, ambivalent and unknown data are refused here, each with its reason;
 * data where we made something counts as blank, for the caller's "lost" conflict. */
Differ::Probed Differ::sortProbe(const ProbeResult &probe, const std::string &device,
				 const char *never, bool madeSomething)
{
	switch (probe.kind) {
	case ProbeKind::Unprobed:
	case ProbeKind::Failed:
		conflict(ConflictKind::ProbeFailed, device,
			 "could not probe the device: " + probe.type);
		return Probed::Refused;
	case ProbeKind::Ambivalent:
		conflict(ConflictKind::AmbivalentProbe, device,
			 "more than one signature (" + probe.type + "); never " + never);
		return Probed::Refused;
	case ProbeKind::Data:
		if (madeSomething)
			return Probed::Blank;
		conflict(ConflictKind::UnknownData, device, unknownDataText(device, probe));
		return Probed::Refused;
	case ProbeKind::Signature:
		return Probed::Signature;
	case ProbeKind::Blank:
		return Probed::Blank;
	}
	return Probed::Refused;
}

/* A LUKS header is written where a filesystem could be made, and only there. */
bool Differ::mayFormatLuks() const
{
	const bool neverFormat =
		spec_.filesystem && spec_.filesystem->format == FormatPolicy::Never;
	return !spec_.readOnly() && !neverFormat && !observed_.owned.luksFormatted &&
	       !observed_.owned.formatted;
}

/*
 * Encrypted, the image's device carries a LUKS header and the filesystem
 * lives on our mapping of it. Never encrypt over anything: only a device
 * that probes blank gets a header, like a filesystem. A format of ours cut
 * short (the record's luksPending) is finished: its header is ours, and
 * until its mapping is zeroed it shows our own noise, not data.
 */
bool Differ::cryptUsable()
{
	if (!spec_.encryption)
		return true;
	const bool pending = observed_.owned.luksPending;
	if (!observed_.mapping) {
		if (mayFormatLuks() || pending)
			gap(GapKind::LuksBlank, "");
		gap(GapKind::LuksClosed, "");
		return true;
	}
	if (const auto &crypt = observed_.crypt) {
		if (crypt->backing != device_) {
			conflict(ConflictKind::ForeignMapping, crypt->device,
				 crypt->name + " decrypts " + crypt->backing + ", not " + device_ +
					 ", the image's mapping; close it by hand");
			return false;
		}
		if (crypt->readOnly != spec_.readOnly()) {
			conflict(ConflictKind::ReadOnlyMismatch, crypt->device,
				 readOnlyProblem("opened", crypt->readOnly, spec_.readOnly()));
			return false;
		}
		if (pending) {
			gap(GapKind::LuksBlank, device_);
			finishingLuks_ = true;
		}
		return true;
	}
	const ProbeResult &probe = observed_.rawProbe;
	const Ownership &owned = observed_.owned;
	switch (sortProbe(probe, device_, "encrypted", owned.luksFormatted || owned.formatted)) {
	case Probed::Refused:
		return false;
	case Probed::Blank:
		return cryptBlank();
	case Probed::Signature:
		break;
	}
	if (probe.type != LuksSignature) {
		conflict(ConflictKind::ForeignSignature, device_,
			 "carries '" + probe.type +
				 "', the spec asks for LUKS2 encryption; never encrypted over");
		return false;
	}
	if (pending) {
		gap(GapKind::LuksBlank, device_);
		finishingLuks_ = true;
	}
	gap(GapKind::LuksClosed, device_);
	return true;
}

/* The image's device probes blank (or lost what we made on it). */
bool Differ::cryptBlank()
{
	const Ownership &owned = observed_.owned;
	if (owned.luksFormatted || owned.formatted) {
		conflict(ConflictKind::LostFilesystem, device_,
			 std::string("rbd-volume ") +
				 (owned.luksFormatted ? "wrote a LUKS header"
						      : "made a filesystem") +
				 " on this image but it now shows none; refusing to write one "
				 "again");
		return false;
	}
	const bool neverFormat =
		spec_.filesystem && spec_.filesystem->format == FormatPolicy::Never;
	if (spec_.readOnly() || neverFormat) {
		conflict(ConflictKind::BlankNoFormat, device_,
			 spec_.readOnly() ? "the device is blank and the volume is read-only"
					  : "the device is blank and the spec says format = never");
		return false;
	}
	gap(GapKind::LuksBlank, device_);
	gap(GapKind::LuksClosed, device_);
	return true;
}

/* Refuse, don't guess: only a blank device we never formatted may be formatted. */
bool Differ::filesystemUsable()
{
	if (spec_.mode != VolumeMode::Filesystem)
		return true;
	const FilesystemSpec &fs = *spec_.filesystem;
	const std::string wanted = fsTypeName(fs.type);
	if (fsDevice_.empty() || finishingLuks_) {
		/* Format only what may be blank: never a read-only volume, never twice. */
		if (fs.format == FormatPolicy::IfBlank && !spec_.readOnly() &&
		    !observed_.owned.formatted)
			gap(GapKind::Blank, "");
		return true;
	}
	const ProbeResult &probe = observed_.probe;
	switch (sortProbe(probe, fsDevice_, "formatted", observed_.owned.formatted)) {
	case Probed::Refused:
		return false;
	case Probed::Signature:
		if (probe.type == wanted)
			return true;
		conflict(ConflictKind::ForeignSignature, fsDevice_,
			 "carries '" + probe.type + "', the spec says '" + wanted +
				 "'; never formatted");
		return false;
	case Probed::Blank:
		break;
	}
	if (observed_.owned.formatted) {
		conflict(ConflictKind::LostFilesystem, fsDevice_,
			 "rbd-volume formatted this image as '" + wanted +
				 "' but it now shows no signature; refusing to format it again");
		return false;
	}
	if (fs.format == FormatPolicy::Never) {
		conflict(ConflictKind::BlankNoFormat, fsDevice_,
			 "the device is blank and the spec says format = never");
		return false;
	}
	if (spec_.readOnly()) {
		conflict(ConflictKind::BlankNoFormat, fsDevice_,
			 "the device is blank and the volume is read-only");
		return false;
	}
	gap(GapKind::Blank, fsDevice_);
	return true;
}

void Differ::missingTargets()
{
	for (const PublishTarget &target : spec_.publish) {
		const ObservedMount *mount = observed_.target(target.path);
		if (mount && !mount->ours)
			continue; /* a foreign mount: stopped the volume in targetsUsable() */
		const bool current = mount && !fsDevice_.empty() && mount->device == fsDevice_;
		if (current && !modeMatches(spec_, *mount))
			continue; /* a bind in the wrong mode: reported as a conflict */
		if (mount && !current &&
		    (mount->device == device_ || mount->device == cryptDeviceOf(spec_.name)))
			continue; /* on the other side of the LUKS layer: reported as a conflict */
		if (!current || mount->readOnly != target.readOnly)
			gap(GapKind::NotPublished, target.path);
	}
}

/* Only a writable filesystem the spec lets grow; a device known blank gets a fresh one. */
bool Differ::growsFilesystem() const
{
	if (spec_.mode != VolumeMode::Filesystem || spec_.readOnly() ||
	    spec_.filesystem->grow != GrowPolicy::Auto)
		return false;
	return std::none_of(result_.gaps.begin(), result_.gaps.end(), [](const Gap &g) {
		return g.kind == GapKind::Blank && !g.subject.empty();
	});
}

/*
 * A filesystem grows when its device outgrew what the record (or, unknown
 * there, the superblock) says it was made or last grown for: ext4 offline
 * before its staging mount, xfs (and an ext4 already staged) online after
 * it. Unmapped, the device's size is unknown until the map, so the step is
 * planned and decides for itself.
 */
VolumeDiff Differ::up()
{
	staleTargets();
	const size_t cleanup = result_.gaps.size();
	const bool targetsOk = targetsUsable();
	const bool poolOk = poolUsable();
	const bool stagingOk = stagingUsable();
	const bool usable =
		poolOk && stagingOk && mappingUsable() && cryptUsable() && filesystemUsable();
	if (!targetsOk) {
		/* Every conflict said, but no step towards a volume that cannot be published. */
		result_.gaps.erase(result_.gaps.begin() + static_cast<std::ptrdiff_t>(cleanup),
				   result_.gaps.end());
		return result_;
	}
	if (!usable)
		return result_;
	const bool staged = observed_.staging && !stagingStale_;
	/* The spec's size grew under a mapped image: the image grows, then its filesystem. */
	const auto &create = spec_.image.create;
	const bool imageGrows = create && !device_.empty() && observed_.deviceBytes != 0 &&
				observed_.deviceBytes < create->sizeBytes;
	if (imageGrows)
		gap(GapKind::ImageSmall, device_);
	/* The mapping follows the image it decrypts; the filesystem then follows the mapping. */
	const bool cryptGrows =
		observed_.crypt && !spec_.readOnly() &&
		(imageGrows || (observed_.deviceBytes != 0 &&
				outgrew(observed_.deviceBytes, observed_.owned.cryptSpanBytes)));
	if (cryptGrows)
		gap(GapKind::LuksSmall, observed_.crypt->name);
	const uint64_t fsBytes = spec_.encryption ? observed_.fsDeviceBytes : observed_.deviceBytes;
	const bool outgrown = fsDevice_.empty() || cryptGrows ||
			      (fsBytes != 0 && outgrew(fsBytes, observed_.owned.sizedBytes));
	const bool grows = outgrown && growsFilesystem();
	const bool offline = grows && !staged && spec_.filesystem->type == FsType::Ext4;
	if (!staged) {
		if (offline)
			gap(GapKind::GrowOffline, fsDevice_);
		gap(GapKind::NotStaged, spec_.staging.path);
	}
	missingTargets();
	if (grows && !offline)
		gap(GapKind::GrowOnline, spec_.staging.path);
	return result_;
}

constexpr std::array<const char *, 16> ConflictNames = {
	"foreign-mount", "foreign-mapping", "foreign-signature", "ambivalent-probe",
	"probe-failed",	 "lost-filesystem", "blank-no-format",	 "read-only-mismatch",
	"mode-mismatch", "mapper-lost",	    "io-stalled",	 "unsafe-path",
	"unknown-data",	 "abandoned",	    "filesystem-errors", "pool-full",
};

} /* namespace */

const char *conflictKindName(ConflictKind kind)
{
	return ConflictNames.at(static_cast<size_t>(kind));
}

VolumeDiff diff(const DesiredVolume &desired, const ObservedVolume &observed)
{
	Differ differ(desired, observed);
	return desired.intent == Intent::Up ? differ.up() : differ.down();
}

} /* namespace rbdvolume */
