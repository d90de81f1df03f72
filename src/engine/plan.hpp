/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Plan: an ordered list of idempotent steps; a printable value, empty when converged. */
#pragma once

#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "engine/diff.hpp"
#include "engine/model.hpp"

namespace rbdvolume {

/*
 * The device a setup step acts on: a path known when the plan was made, or,
 * when the plan maps the image first, the device its map step yields.
 */
class DeviceRef
{
public:
	/* The device the plan's map step yields. */
	DeviceRef() = default;
	/* `path`; "" (nothing mapped at planning) is the map step's device. */
	static DeviceRef known(std::string path);

	bool fromMapStep() const { return !path_; }
	/* The known path, else `mapped`: what the map step yielded. */
	const std::string &resolve(const std::string &mapped) const
	{
		return path_ ? *path_ : mapped;
	}

	bool operator==(const DeviceRef &) const = default;
	bool operator==(const std::string &path) const { return path_ == path; }

private:
	std::optional<std::string> path_;
};

struct UnmountStep {
	std::string path;
	bool staging = false;
	bool detach = false; /* out of the tree at once, never waiting for the device (Abandoned) */
	bool operator==(const UnmountStep &) const = default;
};
struct UnmapStep {
	std::string device;
	bool operator==(const UnmapStep &) const = default;
};
struct StopOrphanStep {
	bool operator==(const StopOrphanStep &) const = default;
};
struct EnsureImageStep {
	bool grow = false; /* the image is mapped and smaller than the spec's size */
	bool operator==(const EnsureImageStep &) const = default;
};
struct MapStep {
	bool operator==(const MapStep &) const = default;
};
struct LuksFormatStep {
	DeviceRef device; /* writes a header only if the probe right before finds it blank */
	bool operator==(const LuksFormatStep &) const = default;
};
struct LuksOpenStep {
	DeviceRef device;
	bool operator==(const LuksOpenStep &) const = default;
};
struct LuksGrowStep {
	DeviceRef device; /* the image's device the mapping must fill again */
	bool operator==(const LuksGrowStep &) const = default;
};
struct LuksCloseStep {
	std::string name;
	bool operator==(const LuksCloseStep &) const = default;
};
struct FormatStep {
	DeviceRef device; /* formats only if the probe right before it finds the device blank */
	bool operator==(const FormatStep &) const = default;
};
struct CheckStep {
	DeviceRef device;
	bool operator==(const CheckStep &) const = default;
};
struct MountStagingStep {
	DeviceRef device;
	bool operator==(const MountStagingStep &) const = default;
};
struct GrowStep {
	DeviceRef device;
	bool online = false; /* through the staging mount; offline before it (ext4) */
	bool operator==(const GrowStep &) const = default;
};
struct PublishStep {
	std::string target;
	bool operator==(const PublishStep &) const = default;
};

using Step = std::variant<UnmountStep, UnmapStep, EnsureImageStep, MapStep, FormatStep, CheckStep,
			  MountStagingStep, PublishStep, GrowStep, StopOrphanStep, LuksFormatStep,
			  LuksOpenStep, LuksGrowStep, LuksCloseStep>;

/* A stable short name per step kind ("unmount", "map", "publish", ...). */
const char *stepName(const Step &step);
/*
 * mkfs, fsck or a resize: cut short, it leaves a filesystem half made or half
 * repaired, which no later pass may take for blank or for sound. Every other
 * step converges from a cut at any instant (the next pass observes first).
 */
bool writesFilesystem(const Step &step);

struct Plan {
	std::string volume;
	Intent intent = Intent::Down;
	std::vector<Step> steps;
	std::vector<Conflict> conflicts; /* refused; shown, never acted on */

	bool empty() const { return steps.empty(); }
};

Plan makePlan(const DesiredVolume &desired, const ObservedVolume &observed, const VolumeDiff &diff);

/* One step as a plan line shows it ("map rbd/a with fuse, read-write"). */
std::string formatStep(const Step &step, const VolumeSpec &spec);

/* The human-readable plan: golden-file tested, printed by `rbd-volumectl plan`. */
std::string formatPlan(const Plan &plan, const VolumeSpec &spec);

} /* namespace rbdvolume */
