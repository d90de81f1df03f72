/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "csi/node_ops.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <unistd.h>

#include <sys/stat.h>

#include "common/errno_text.hpp"
#include "common/file_io.hpp"
#include "common/fs_util.hpp"
#include "csi/cluster_map_load.hpp"
#include "csi/device_changes.hpp"
#include "csi/kms_config.hpp"
#include "csi/stage_spec.hpp"
#include "csi/volume_names.hpp"
#include "journal/log.hpp"

namespace rbdvolume::csi {

using std::chrono::seconds;

namespace {

/* Flags a bind mount takes; filesystem options (discard, ...) belong to the staging mount. */
constexpr std::array<std::string_view, 7> BindFlags = {
	"nosuid", "nodev", "noexec", "noatime", "nodiratime", "relatime", "strictatime",
};

/* Per-call margin kept from kubelet's deadline to answer in time. */
constexpr seconds DeadlineMargin{ 10 };

/* How long an expand waits for the device to show the image's new size. */
constexpr seconds ExpandPatience{ 20 };
/* The longest an expand waits for word of a grown device before it asks for another pass. */
constexpr seconds ExpandRetry{ 1 };

OpStatus withStatus(Code code, std::string message)
{
	return { code, std::move(message) };
}

OpStatus fromError(const Error &error)
{
	return statusFor(error);
}

OpStatus notStaged(const std::string &volumeId)
{
	return withStatus(Code::NotFound, "volume " + volumeId + " is not staged on this node");
}

std::string stagingPathFor(const std::string &stagingTargetPath, bool block)
{
	return block ? stagingTargetPath + "/" + BlockStagingFile : stagingTargetPath;
}

/* Why a staged volume cannot take this stage request ("" when it can). */
std::string stagedDifferently(const VolumeSpec &staged, const VolumeSpec &wanted)
{
	if (staged.staging.path != wanted.staging.path)
		return "already staged at " + staged.staging.path + ", not at " +
		       wanted.staging.path;
	if (staged.mode != wanted.mode)
		return std::string("already staged as a ") +
		       (staged.mode == VolumeMode::Block ? "block" : "filesystem") + " volume";
	if (staged.filesystem && wanted.filesystem &&
	    staged.filesystem->type != wanted.filesystem->type)
		return std::string("already staged with ") + fsTypeName(staged.filesystem->type);
	if (staged.readOnly() != wanted.readOnly())
		return std::string("already staged ") +
		       (staged.readOnly() ? "read-only" : "read-write");
	if (!(staged.image == wanted.image))
		return "already staged from image " + staged.image.display();
	if (staged.encryption != wanted.encryption)
		return std::string("already staged ") +
		       (staged.encryption ? "with other encryption settings" : "unencrypted");
	return {};
}

/* A leftover file or empty directory at `path` that is not a mount point: removed. */
void removeLeftover(const std::string &path)
{
	struct stat st {
	};
	if (lstat(path.c_str(), &st) < 0 || isMountPoint(path))
		return;
	const int done = S_ISDIR(st.st_mode) ? rmdir(path.c_str()) : unlink(path.c_str());
	if (done < 0 && errno != ENOENT)
		log::warning(path + ": left in place: " + errnoText(errno));
}

bool isTarget(const VolumeSpec &spec, const std::string &path)
{
	return std::any_of(spec.publish.begin(), spec.publish.end(),
			   [&](const PublishTarget &t) { return t.path == path; });
}

/* Where a volume can be seen: its staging mount (or block staging directory) and targets. */
bool isVolumePath(const VolumeSpec &spec, const std::string &path)
{
	if (path == spec.staging.path || isTarget(spec, path))
		return true;
	return spec.mode == VolumeMode::Block && stagingPathFor(path, true) == spec.staging.path;
}

std::string monHostConf(const VolumeSpec &spec)
{
	std::string hosts;
	for (const std::string &monitor : spec.cluster.monitors)
		hosts += (hosts.empty() ? "" : ",") + monitor;
	return "# Written by rbd-volume-csi: the monitors of the volume's cluster.\n"
	       "[global]\n\tmon host = " +
	       hosts + "\n";
}

} /* namespace */

Result<std::optional<VolumeSpec>> NodeOps::stagedSpec(const std::string &name,
						      const std::string &volumeId) const
{
	/* The name is a hash: a spec under it is this volume's only if the ID recorded says so. */
	auto recorded = files_.recordedVolumeId(name);
	if (!recorded)
		return tl::make_unexpected(recorded.error());
	if (!*recorded || **recorded != volumeId)
		return std::optional<VolumeSpec>{};
	return files_.readSpec(name);
}

NodeOps::NodeOps(ShimSettings settings, VolumeControl &control)
	: settings_(std::move(settings)), control_(control), files_(settings_.runtimeDir)
{
}

seconds NodeOps::waitBudget(Deadline deadline) const
{
	const auto left =
		std::chrono::duration_cast<seconds>(deadline - std::chrono::steady_clock::now());
	return std::clamp(left - DeadlineMargin, seconds(1), settings_.maxWait);
}

tl::expected<NodeOps::Locked, OpStatus> NodeOps::lockVolume(Deadline deadline,
							    const std::string &volumeId)
{
	std::string name = volumeNameFor(volumeId);
	/* Given up in time for the answer to reach the caller before its deadline. */
	const auto now = std::chrono::steady_clock::now();
	const auto left = std::clamp(deadline - now - DeadlineMargin, Deadline::duration(0),
				     Deadline::duration(settings_.maxWait));
	VolumeLocks::Held held = locks_.acquire(name, now + left);
	if (!held)
		return tl::make_unexpected(
			withStatus(Code::Aborted, "another operation on volume " + volumeId +
							  " is still in progress; retry later"));
	return Locked{ std::move(name), std::move(held) };
}

tl::expected<NodeOps::Locked, OpStatus> NodeOps::checkAndLock(Deadline deadline,
							      const std::string &volumeId,
							      const char *field,
							      const std::string &path)
{
	if (auto ok = checkIdAndPath(volumeId, field, path); !ok)
		return tl::make_unexpected(fromError(ok.error()));
	return lockVolume(deadline, volumeId);
}

tl::expected<VolumeSpec, OpStatus> NodeOps::requireStaged(const std::string &name,
							  const std::string &volumeId) const
{
	auto staged = stagedSpec(name, volumeId);
	if (!staged)
		return tl::make_unexpected(fromError(staged.error()));
	if (!*staged)
		return tl::make_unexpected(notStaged(volumeId));
	return std::move(**staged);
}

OpStatus NodeOps::stage(const StageArgs &request, Deadline deadline)
{
	const std::string &id = request.volumeId;
	if (auto ok = checkIdAndPath(id, "staging_target_path", request.stagingTargetPath); !ok)
		return fromError(ok.error());
	auto capability = capabilityOf("volume_capability", request.capability);
	if (!capability)
		return fromError(capability.error());
	auto secret = cephSecretOf(request.secrets);
	if (!secret)
		return fromError(secret.error());

	const auto locked = lockVolume(deadline, id);
	if (!locked)
		return locked.error();
	const std::string &name = locked->name;
	if (auto claimed = files_.claimName(name, id); !claimed)
		return fromError(claimed.error());

	const ClusterMapOutcome clusters = loadClusterMap(settings_.clusterMap);
	if (!clusters.ok()) {
		std::string text;
		for (const Diagnostic &d : clusters.diagnostics)
			text += (text.empty() ? "" : "; ") + d.format();
		return withStatus(Code::FailedPrecondition,
				  "the node's cluster map is unusable: " + text);
	}
	const StageRequest stageRequest{ id, request.stagingTargetPath, *capability,
					 request.volumeContext, secret->userId };
	const std::string kmsConfig = settings_.kmsConfig;
	const StageSettings stageSettings{
		settings_.forcedDriver, files_.keyPath(name), files_.confPath(name),
		[&kmsConfig](const std::string &kmsId) { return loadKmsEntry(kmsConfig, kmsId); }
	};
	std::vector<std::string> ignored;
	auto spec = stageSpec(name, stageRequest, clusters.map, stageSettings, ignored);
	if (!spec)
		return fromError(spec.error());
	if (log::enabled(log::Level::Debug)) {
		for (const std::string &line : ignored)
			log::write({ log::Level::Debug,
				     "NodeStageVolume " + id + ": " + line,
				     {},
				     {} });
	}

	auto staged = files_.readSpec(name);
	if (!staged)
		return fromError(staged.error());
	const bool restage = staged->has_value();
	if (restage) {
		if (const std::string problem = stagedDifferently(**staged, *spec);
		    !problem.empty())
			return withStatus(Code::AlreadyExists, "volume " + id + " is " + problem);
		spec->publish = (*staged)->publish;
	}
	std::optional<Secret> passphrase;
	if (spec->encryption) {
		auto given = encryptionPassphraseOf(request.secrets);
		if (!given)
			return fromError(given.error());
		passphrase = std::move(*given);
	}
	auto written = files_.writeKey(name, secret->key);
	if (written)
		written = files_.writeConf(name, monHostConf(*spec));
	if (written) {
		auto specWritten = files_.writeSpec(*spec, id);
		if (!specWritten)
			written = tl::make_unexpected(specWritten.error());
	}
	if (written)
		written = passphrase ? control_.upWithPassphrase(name, *passphrase,
								 waitBudget(deadline))
				     : control_.up(name, waitBudget(deadline));
	if (written)
		return {};

	/* A stage that failed for good leaves nothing behind; one still running carries on. */
	if (!restage && !written.error().uncertain()) {
		if (control_.down(name, waitBudget(deadline)))
			(void)files_.removeAll(name);
	}
	return fromError(written.error());
}

OpStatus NodeOps::unstage(const UnstageArgs &request, Deadline deadline)
{
	const std::string &id = request.volumeId;
	const std::string &staging = request.stagingTargetPath;
	const auto locked = checkAndLock(deadline, id, "staging_target_path", staging);
	if (!locked)
		return locked.error();
	const std::string &name = locked->name;
	auto recorded = files_.recordedVolumeId(name);
	if (recorded && *recorded && **recorded != id)
		return notStaged(id);
	auto staged = files_.readSpec(name);
	if (!staged)
		return fromError(staged.error());
	if (*staged && (*staged)->staging.path != staging &&
	    (*staged)->staging.path != stagingPathFor(staging, true)) {
		log::warning("NodeUnstageVolume " + id + ": staged at " + (*staged)->staging.path +
			     ", not at " + staging + ": left alone");
		return {};
	}
	if (*staged) {
		if (auto down = control_.down(name, waitBudget(deadline)); !down)
			return fromError(down.error());
	}
	if (auto removed = files_.removeAll(name); !removed)
		return fromError(removed.error());
	removeLeftover(stagingPathFor(staging, true));
	return {};
}

OpStatus NodeOps::publish(const PublishArgs &request, Deadline deadline)
{
	const std::string &id = request.volumeId;
	if (auto ok = checkIdAndPath(id, "target_path", request.targetPath); !ok)
		return fromError(ok.error());
	/* A missing required field is INVALID_ARGUMENT, whatever else is missing too. */
	auto capability = capabilityOf("volume_capability", request.capability);
	if (!capability)
		return fromError(capability.error());
	if (request.stagingTargetPath.empty())
		return withStatus(Code::FailedPrecondition,
				  "staging_target_path is required: this plugin stages volumes "
				  "(STAGE_UNSTAGE_VOLUME)");
	if (auto ok = checkPath("staging_target_path", request.stagingTargetPath); !ok)
		return fromError(ok.error());

	const auto locked = lockVolume(deadline, id);
	if (!locked)
		return locked.error();
	const std::string &name = locked->name;
	auto staged = requireStaged(name, id);
	if (!staged)
		return staged.error();
	VolumeSpec spec = std::move(*staged);
	const bool block = spec.mode == VolumeMode::Block;
	if (block != capability->block)
		return withStatus(Code::FailedPrecondition,
				  "volume " + id + " is staged as a " +
					  (block ? "block" : "filesystem") + " volume");
	const std::string expected = stagingPathFor(request.stagingTargetPath, block);
	if (spec.staging.path != expected)
		return withStatus(Code::FailedPrecondition, "volume " + id + " is staged at " +
								    spec.staging.path +
								    ", not at " + expected);

	PublishTarget target;
	target.path = request.targetPath;
	target.readOnly = request.readOnly || readerOnly(capability->mode) || spec.readOnly();
	for (const std::string &flag : capability->mountFlags) {
		if (std::find(BindFlags.begin(), BindFlags.end(), flag) != BindFlags.end())
			target.options.push_back(flag);
	}
	if (block)
		target.options.clear();
	const auto same =
		std::find_if(spec.publish.begin(), spec.publish.end(),
			     [&](const PublishTarget &t) { return t.path == target.path; });
	if (same != spec.publish.end() && !(*same == target))
		return withStatus(Code::AlreadyExists,
				  "volume " + id + " is already published at " + target.path +
					  (same->readOnly ? " read-only" : " read-write") +
					  " with other options");
	const bool added = same == spec.publish.end();
	if (added)
		spec.publish.push_back(target);
	if (auto written = files_.writeSpec(spec, id); !written)
		return fromError(written.error());
	auto up = control_.up(name, waitBudget(deadline));
	if (up)
		return {};
	/* A target that failed for good is taken out of the spec again. */
	if (added && !up.error().uncertain()) {
		spec.publish.pop_back();
		if (files_.writeSpec(spec, id))
			(void)control_.up(name, waitBudget(deadline));
	}
	return fromError(up.error());
}

OpStatus NodeOps::unpublish(const UnpublishArgs &request, Deadline deadline)
{
	const std::string &id = request.volumeId;
	const std::string &target = request.targetPath;
	const auto locked = checkAndLock(deadline, id, "target_path", target);
	if (!locked)
		return locked.error();
	const std::string &name = locked->name;
	auto staged = stagedSpec(name, id);
	if (!staged)
		return fromError(staged.error());
	const bool known = staged->has_value();
	if (!known && isMountPoint(target))
		return withStatus(Code::NotFound,
				  "volume " + id + " is not on this node, and " + target +
					  " is a mount rbd-volume did not make: left alone");
	if (known && isTarget(**staged, target)) {
		VolumeSpec spec = std::move(**staged);
		std::erase_if(spec.publish,
			      [&](const PublishTarget &t) { return t.path == target; });
		if (auto written = files_.writeSpec(spec, id); !written)
			return fromError(written.error());
		/*
		 * A volume in trouble (its mapper lost, say) still loses the
		 * target: the daemon unmounts it, then reports the trouble.
		 * Unpublish is done when the target is gone.
		 */
		auto up = control_.up(name, waitBudget(deadline));
		if (!up && isMountPoint(target))
			return fromError(up.error());
		if (!up)
			log::warning("NodeUnpublishVolume " + id + ": " + target +
				     " unmounted; the volume: " + up.error().message);
	}
	if (isMountPoint(target))
		return withStatus(Code::Internal,
				  target + " is still a mount point after the unpublish");
	removeLeftover(target);
	return {};
}

OpStatus NodeOps::stats(const StatsArgs &request, StatsReply &reply)
{
	const std::string &id = request.volumeId;
	if (auto ok = checkVolumeId(id); !ok)
		return fromError(ok.error());
	const std::string &path = request.volumePath;
	if (path.empty())
		return fromError(checkPath("volume_path", path).error());
	/* A volume this node does not know is NOT_FOUND, before the form of its path. */
	const std::string name = volumeNameFor(id);
	auto staged = requireStaged(name, id);
	if (!staged)
		return staged.error();
	if (auto ok = checkPath("volume_path", path); !ok)
		return fromError(ok.error());
	if (!isVolumePath(*staged, path))
		return withStatus(Code::NotFound, "volume " + id + " is not at " + path);
	/* The block staging directory stands for the device bound inside it. */
	const std::string measured = staged->mode == VolumeMode::Block &&
						     path != staged->staging.path &&
						     !isTarget(*staged, path)
					     ? staged->staging.path
					     : path;
	reply = StatsReply{};
	auto usage = usageOf(measured);
	if (!usage && usage.error().code == Errc::NotFound)
		return withStatus(Code::NotFound, usage.error().message);
	if (!usage) {
		reply.abnormal = true;
		reply.condition = usage.error().message;
		return {};
	}
	reply.usage = *usage;
	auto state = control_.state(name);
	if (!state) {
		reply.condition = "health unknown: " + state.error().message;
	} else if (!*state) {
		reply.abnormal = true;
		reply.condition = "rbd-volumed does not know the volume";
	} else if (auto why = unhealthy(**state)) {
		reply.abnormal = true;
		reply.condition = *why;
	} else {
		reply.condition = "the volume is healthy";
	}
	return {};
}

OpStatus NodeOps::expand(const ExpandArgs &request, Deadline deadline, ExpandReply &reply)
{
	const std::string &id = request.volumeId;
	if (auto ok = checkVolumeId(id); !ok)
		return fromError(ok.error());
	if (request.volumePath.empty())
		return fromError(checkPath("volume_path", request.volumePath).error());
	const auto locked = lockVolume(deadline, id);
	if (!locked)
		return locked.error();
	const std::string &name = locked->name;
	/* A volume this node does not know is NOT_FOUND, before the form of its path. */
	auto staged = requireStaged(name, id);
	if (!staged)
		return staged.error();
	if (auto ok = checkPath("volume_path", request.volumePath); !ok)
		return fromError(ok.error());
	if (!isVolumePath(*staged, request.volumePath))
		return withStatus(Code::NotFound,
				  "volume " + id + " is not at " + request.volumePath);
	/*
	 * The daemon's pass sees the bigger device and grows the filesystem
	 * online. A device may lag its image; then another pass follows when
	 * the device may have grown. krbd and nbd devices grow by themselves
	 * and the kernel says so (a "change" uevent), which ends the wait at
	 * once. A loop over rbd-fuse's file grows only inside a pass, once
	 * rbd-fuse has heard of the resize, and nothing announces that; nor do
	 * uevents reach every network namespace: so a wait lasts a second at
	 * most. It sleeps in poll(), and never past the expand's patience.
	 */
	const int64_t required = request.requiredBytes;
	const auto until =
		std::chrono::steady_clock::now() + std::min(waitBudget(deadline), ExpandPatience);
	DeviceChanges changes; /* listening before the first pass: no change slips between */
	Result<uint64_t> bytes = 0;
	for (;;) {
		if (auto pass = control_.reconcile(name, waitBudget(deadline)); !pass)
			return fromError(pass.error());
		auto state = control_.state(name);
		if (!state)
			return fromError(state.error());
		if (!*state || (*state)->device.empty())
			return withStatus(Code::FailedPrecondition,
					  "volume " + id + " has no mapped device");
		bytes = blockDeviceSize((*state)->device);
		if (!bytes)
			return fromError(bytes.error());
		const auto now = std::chrono::steady_clock::now();
		if (required <= 0 || static_cast<uint64_t>(required) <= *bytes || now >= until)
			break;
		(void)changes.wait((*state)->device, std::min(now + ExpandRetry, until));
	}
	if (required > 0 && static_cast<uint64_t>(required) > *bytes)
		return withStatus(
			Code::OutOfRange,
			"the image of volume " + id + " has " + std::to_string(*bytes) +
				" bytes, less than the " + std::to_string(required) +
				" required: grow the image first (ControllerExpandVolume or "
				"rbd resize)");
	reply.capacityBytes = *bytes;
	return {};
}

} /* namespace rbdvolume::csi */
