/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "engine/plan.hpp"

#include <algorithm>

namespace rbdvolume {

namespace {

bool planned(const std::vector<Gap> &gaps, GapKind kind)
{
	return std::any_of(gaps.begin(), gaps.end(), [&](const Gap &g) { return g.kind == kind; });
}

/* fsck only guards read-write mounts of a filesystem we did not just create. */
bool wantsCheck(const VolumeSpec &spec, const std::vector<Gap> &gaps)
{
	if (spec.mode != VolumeMode::Filesystem || spec.readOnly())
		return false;
	if (spec.filesystem->check == CheckPolicy::Never)
		return false;
	const auto blank = std::find_if(gaps.begin(), gaps.end(),
					[](const Gap &g) { return g.kind == GapKind::Blank; });
	/* A device known blank gets formatted; one not yet mapped may hold a filesystem. */
	return blank == gaps.end() || blank->subject.empty();
}

} /* namespace */

bool writesFilesystem(const Step &step)
{
	return std::holds_alternative<FormatStep>(step) ||
	       std::holds_alternative<CheckStep>(step) || std::holds_alternative<GrowStep>(step);
}

DeviceRef DeviceRef::known(std::string path)
{
	DeviceRef ref;
	if (!path.empty())
		ref.path_ = std::move(path);
	return ref;
}

Plan makePlan(const DesiredVolume &desired, const ObservedVolume &observed, const VolumeDiff &diff)
{
	const VolumeSpec &spec = desired.spec;
	Plan plan;
	plan.volume = spec.name;
	plan.intent = desired.intent;
	plan.conflicts = diff.conflicts;

	/* The image's device: known now, or yielded by the map step. */
	const bool mapping = planned(diff.gaps, GapKind::NotMapped);
	const DeviceRef image = mapping || !observed.mapping
					? DeviceRef()
					: DeviceRef::known(observed.mapping->device);
	/* What the filesystem steps act on: that device, or our LUKS mapping of it. */
	const DeviceRef device =
		spec.encryption ? DeviceRef::known(cryptDeviceOf(spec.name)) : image;

	for (const Gap &gap : diff.gaps) {
		switch (gap.kind) {
		case GapKind::TargetStale:
			plan.steps.emplace_back(UnmountStep{ gap.subject, false, diff.detach });
			break;
		case GapKind::StagingStale:
			plan.steps.emplace_back(UnmountStep{ gap.subject, true, diff.detach });
			break;
		case GapKind::CryptStale:
			plan.steps.emplace_back(LuksCloseStep{ gap.subject });
			break;
		case GapKind::MappingStale:
			plan.steps.emplace_back(UnmapStep{ gap.subject });
			break;
		case GapKind::OrphanMapper:
			plan.steps.emplace_back(StopOrphanStep{});
			break;
		case GapKind::ImageSmall:
			plan.steps.emplace_back(EnsureImageStep{ true });
			break;
		case GapKind::NotMapped:
			plan.steps.emplace_back(EnsureImageStep{});
			plan.steps.emplace_back(MapStep{});
			break;
		case GapKind::LuksBlank:
			plan.steps.emplace_back(LuksFormatStep{ image });
			break;
		case GapKind::LuksClosed:
			plan.steps.emplace_back(LuksOpenStep{ image });
			break;
		case GapKind::LuksSmall:
			plan.steps.emplace_back(LuksGrowStep{ image });
			break;
		case GapKind::Blank:
			plan.steps.emplace_back(FormatStep{
				gap.subject.empty() ? device : DeviceRef::known(gap.subject) });
			break;
		case GapKind::NotStaged:
			/* fsck, then an offline grow (it wants a checked filesystem), then mount. */
			if (wantsCheck(spec, diff.gaps))
				plan.steps.emplace_back(CheckStep{ device });
			if (planned(diff.gaps, GapKind::GrowOffline))
				plan.steps.emplace_back(GrowStep{ device, false });
			plan.steps.emplace_back(MountStagingStep{ device });
			break;
		case GapKind::NotPublished:
			plan.steps.emplace_back(PublishStep{ gap.subject });
			break;
		case GapKind::GrowOffline:
			break; /* placed by NotStaged, after the check */
		case GapKind::GrowOnline:
			plan.steps.emplace_back(GrowStep{ device, true });
			break;
		}
	}
	return plan;
}

} /* namespace rbdvolume */
