/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "engine/observer.hpp"

#include <algorithm>

namespace rbdvolume {

namespace {

/* The image's mapping; when it is mapped more than once, the one our record (or marker) names. */
std::optional<MappedImage> findMapping(const HostSnapshot &snapshot, const ImageSpec &image,
				       const std::string &recorded, const std::string &volume)
{
	const MappedImage *found = nullptr;
	for (const size_t index : snapshot.mappingsNamed(image.name)) {
		const MappedImage &mapped = snapshot.mappings()[index];
		if (!mapsImage(mapped, image))
			continue;
		if (!recorded.empty() && mapped.device == recorded)
			return mapped;
		if (recorded.empty() && mapped.owner == volume)
			return mapped;
		if (!found)
			found = &mapped;
	}
	return found ? std::optional<MappedImage>(*found) : std::nullopt;
}

/*
 * A mount is ours when it carries our marker for this volume, or when our
 * record names the path and the mount sits on the device we mapped: a
 * record alone must not adopt a foreign mount made later on the same path.
 */
bool isOurs(const MountEntry &entry, const std::string &device, const VolumeSpec &spec,
	    bool recorded, const std::string &recordedDevice)
{
	if (entry.owner == spec.name)
		return true;
	if (!recorded || device.empty())
		return false;
	/* Our LUKS mapping sits on our mapped device: its name says whose it is. */
	return device == recordedDevice ||
	       (spec.encryption && !recordedDevice.empty() && device == cryptDeviceOf(spec.name));
}

/* What one path shows: the visible mount, and the highest of ours hidden under a foreign one. */
struct PathMounts {
	std::optional<ObservedMount> top;
	std::optional<ObservedMount> covered;
};

PathMounts observePath(const HostSnapshot &snapshot, const std::string &path,
		       const VolumeSpec &spec, bool recorded, const std::string &recordedDevice)
{
	PathMounts found;
	/* The visible mount on a path is the last one stacked there. */
	const std::vector<size_t> &stack = snapshot.mountsOn(path);
	for (size_t i = stack.size(); i-- > 0;) {
		const MountEntry &entry = snapshot.mounts()[stack[i]];
		ObservedMount mount;
		mount.path = path;
		mount.device = mountDevice(entry);
		mount.fsType = entry.fsType;
		mount.readOnly = entry.readOnly;
		mount.ours = isOurs(entry, mount.device, spec, recorded, recordedDevice);
		if (!found.top) {
			found.top = mount;
			if (mount.ours)
				break;
		} else if (mount.ours) {
			found.covered = mount;
			break;
		}
	}
	return found;
}

bool isSpecTarget(const VolumeSpec &spec, const std::string &path)
{
	return std::any_of(spec.publish.begin(), spec.publish.end(),
			   [&](const PublishTarget &t) { return t.path == path; });
}

bool isCovered(const ObservedVolume &observed, const std::string &path)
{
	return std::any_of(observed.covered.begin(), observed.covered.end(),
			   [&](const ObservedMount &m) { return m.path == path; });
}

/*
 * The record as the host shows it. Ports return only once an attempt is over
 * (a timed-out command is killed and reaped), so a pending map either shows
 * as a mapping now or did not happen. A recorded device that is no longer the
 * image's mapping and mounts that are gone are forgotten; mounts carrying our
 * marker are remembered.
 */
void tidyRecord(ObservedVolume &observed, const VolumeSpec &spec, const std::string &recordedDevice)
{
	Ownership &owned = observed.owned;
	const bool stillMapped = observed.mapping && observed.mapping->device == recordedDevice;
	owned.mappedDevice = stillMapped ? recordedDevice : std::string();
	owned.mapPending = false;
	if (!observed.crypt)
		owned.cryptSpanBytes = 0;
	owned.staged = (observed.staging && observed.staging->ours) ||
		       isCovered(observed, spec.staging.path);

	auto keep = [&](const std::string &path) {
		const ObservedMount *mount = observed.target(path);
		return (mount && mount->ours) || isCovered(observed, path);
	};
	std::vector<std::string> targets;
	for (const std::string &path : owned.publishedTargets) {
		if (keep(path))
			targets.push_back(path);
	}
	for (const ObservedMount &mount : observed.targets) {
		if (mount.ours &&
		    std::find(targets.begin(), targets.end(), mount.path) == targets.end())
			targets.push_back(mount.path);
	}
	owned.publishedTargets = std::move(targets);
}

/* The paths a pass would mount on (not mounted yet) that no mount may go on. */
void checkPaths(Host &host, const VolumeSpec &spec, ObservedVolume &observed)
{
	const MountPointKind kind =
		spec.mode == VolumeMode::Block ? MountPointKind::File : MountPointKind::Directory;
	const auto check = [&](const std::string &path) {
		if (auto problem = host.mounter.pathProblem(path, kind))
			observed.refusedPaths.push_back({ path, std::move(*problem) });
	};
	if (!observed.staging)
		check(spec.staging.path);
	for (const PublishTarget &target : spec.publish) {
		if (observed.target(target.path) == nullptr)
			check(target.path);
	}
}

} /* namespace */

std::string mountDevice(const MountEntry &entry)
{
	/* A bind of a device node shows the devtmpfs it came from and the node as root. */
	if (entry.fsType == "devtmpfs")
		return "/dev" + entry.root;
	if (entry.source.rfind("/dev/", 0) == 0)
		return entry.source;
	return {};
}

HostSnapshot::HostSnapshot(std::vector<MountEntry> mounts, std::vector<MappedImage> mappings,
			   std::vector<std::string> orphans, std::vector<CryptMapping> crypts)
	: mounts_(std::move(mounts)), mappings_(std::move(mappings)), orphans_(std::move(orphans)),
	  crypts_(std::move(crypts))
{
	for (size_t i = 0; i < mounts_.size(); i++)
		byTarget_[mounts_[i].target].push_back(i);
	for (size_t i = 0; i < mappings_.size(); i++)
		byImage_[mappings_[i].image].push_back(i);
}

const std::vector<size_t> &HostSnapshot::mountsOn(const std::string &target) const
{
	static const std::vector<size_t> none;
	const auto found = byTarget_.find(target);
	return found == byTarget_.end() ? none : found->second;
}

bool HostSnapshot::hasOrphanMapper(const std::string &volume) const
{
	return std::find(orphans_.begin(), orphans_.end(), volume) != orphans_.end();
}

const CryptMapping *HostSnapshot::crypt(const std::string &name) const
{
	const auto found = std::find_if(crypts_.begin(), crypts_.end(),
					[&](const CryptMapping &c) { return c.name == name; });
	return found == crypts_.end() ? nullptr : &*found;
}

const std::vector<size_t> &HostSnapshot::mappingsNamed(const std::string &image) const
{
	static const std::vector<size_t> none;
	const auto found = byImage_.find(image);
	return found == byImage_.end() ? none : found->second;
}

Result<HostSnapshot> takeSnapshot(Host &host)
{
	auto mounts = host.mountTable.read();
	if (!mounts)
		return tl::make_unexpected(mounts.error());
	auto mappers = host.mapper.view();
	if (!mappers)
		return tl::make_unexpected(mappers.error());
	auto crypts = host.crypt.opened();
	if (!crypts)
		return tl::make_unexpected(crypts.error());
	return HostSnapshot{ std::move(*mounts), std::move(mappers->mappings),
			     std::move(mappers->orphans), std::move(*crypts) };
}

ObservedVolume observeFrom(const HostSnapshot &snapshot, const VolumeSpec &spec,
			   const Ownership &owned)
{
	ObservedVolume observed;
	observed.owned = owned;
	observed.stored = owned;
	observed.mapping = findMapping(snapshot, spec.image, owned.mappedDevice, spec.name);
	if (const CryptMapping *crypt = snapshot.crypt(cryptNameOf(spec.name)))
		observed.crypt = *crypt;

	/*
	 * The device our mounts sit on: as recorded, what a timed-out map made
	 * after all, or (the record lost) what the driver's own marker says is
	 * this volume's.
	 */
	std::string recordedDevice = owned.mappedDevice;
	const bool marked = observed.mapping && observed.mapping->owner == spec.name;
	if (recordedDevice.empty() && (owned.mapPending || marked) && observed.mapping)
		recordedDevice = observed.mapping->device;
	observed.orphanMapper = !observed.mapping && snapshot.hasOrphanMapper(spec.name);

	auto observe = [&](const std::string &path, bool recorded) {
		PathMounts found = observePath(snapshot, path, spec, recorded, recordedDevice);
		if (found.covered)
			observed.covered.push_back(std::move(*found.covered));
		return std::move(found.top);
	};
	observed.staging = observe(spec.staging.path, owned.staged);
	for (const PublishTarget &target : spec.publish) {
		if (auto mount = observe(target.path, owned.ownsTarget(target.path)))
			observed.targets.push_back(std::move(*mount));
	}
	for (const std::string &path : owned.publishedTargets) {
		if (isSpecTarget(spec, path))
			continue;
		if (auto mount = observe(path, true))
			observed.targets.push_back(std::move(*mount));
	}

	tidyRecord(observed, spec, recordedDevice);
	observed.recordStale = observed.owned != owned;
	return observed;
}

/*
 * Reads the device only for what the diff will use: nothing when the volume
 * goes down; when our staging mount of this device already shows the spec's
 * filesystem, the kernel has said what blkid would, and only the size (for a
 * grow) is read.
 */
Result<ObservedVolume> observeVolume(Host &host, const HostSnapshot &snapshot,
				     const DesiredVolume &desired)
{
	const VolumeSpec &spec = desired.spec;
	auto owned = host.records.load(spec.name);
	if (!owned)
		return tl::make_unexpected(owned.error());

	ObservedVolume observed = observeFrom(snapshot, spec, *owned);
	if (desired.intent != Intent::Up) {
		observed.stagingLeft =
			!observed.staging && host.mounter.mountPointLeft(spec.staging.path);
		return observed;
	}
	checkPaths(host, spec, observed);
	if (!observed.mapping)
		return observed;
	if (!spec.readOnly() && observed.mappingIsOurs())
		observed.poolFull = host.images.poolFull(imageRequestOf(spec));
	const std::string &raw = observed.mapping->device;
	std::string device = raw;
	if (spec.encryption) {
		/* Closed, the header is what matters; open, the kernel vouches for it. */
		if (!observed.crypt) {
			observed.rawProbe = host.probe.probe(raw);
			observed.deviceBytes = observed.rawProbe.deviceBytes;
			return observed;
		}
		device = observed.crypt->device;
		/* Its size says whether the mapping must follow a grown image. */
		if (!spec.readOnly()) {
			if (auto size = host.probe.deviceSize(raw))
				observed.deviceBytes = *size;
		}
	}
	if (spec.mode != VolumeMode::Filesystem) {
		/* A block volume's image grows with the spec: its size is worth one ioctl. */
		if (spec.image.create && observed.deviceBytes == 0) {
			if (auto size = host.probe.deviceSize(raw))
				observed.deviceBytes = *size;
		}
		return observed;
	}
	const std::string wanted = fsTypeName(spec.filesystem->type);
	const bool staged = observed.staging && observed.staging->ours &&
			    observed.staging->device == device &&
			    observed.staging->fsType == wanted;
	if (!staged) {
		observed.probe = host.probe.probe(device);
		observed.fsDeviceBytes = observed.probe.deviceBytes;
		/* What the filesystem spans, when our record does not know: its superblock says. */
		if (observed.probe.shows(wanted) && observed.owned.sizedBytes == 0 &&
		    observed.probe.filesystemBytes != 0) {
			observed.owned.sizedBytes = observed.probe.filesystemBytes;
			observed.recordStale = true;
		}
	} else {
		observed.probe = ProbeResult{ ProbeKind::Signature, wanted, 0, 0 };
		if (!spec.readOnly())
			observed.fsErrors =
				host.probe.filesystemErrors(device, wanted, observed.staging->path);
		if (!spec.readOnly() && spec.filesystem->grow == GrowPolicy::Auto) {
			if (auto size = host.probe.deviceSize(device))
				observed.fsDeviceBytes = *size;
		}
	}
	if (!spec.encryption)
		observed.deviceBytes = observed.fsDeviceBytes;
	return observed;
}

} /* namespace rbdvolume */
