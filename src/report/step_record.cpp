/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "report/step_record.hpp"

#include <cstdio>

#include "journal/fields.hpp"
#include "journal/message_ids.hpp"

namespace rbdvolume {

namespace {

/* What a step did, as the record says it: "formatted", "mapped", ... */
const char *doneVerb(const Step &step)
{
	return std::visit(
		[](const auto &s) -> const char * {
			using S = std::decay_t<decltype(s)>;
			if constexpr (std::is_same_v<S, UnmountStep>)
				return "unmounted";
			else if constexpr (std::is_same_v<S, UnmapStep>)
				return "unmapped";
			else if constexpr (std::is_same_v<S, EnsureImageStep>)
				return "image";
			else if constexpr (std::is_same_v<S, MapStep>)
				return "mapped";
			else if constexpr (std::is_same_v<S, FormatStep>)
				return "formatted";
			else if constexpr (std::is_same_v<S, CheckStep>)
				return "checked";
			else if constexpr (std::is_same_v<S, MountStagingStep>)
				return "mounted";
			else if constexpr (std::is_same_v<S, PublishStep>)
				return "published";
			else if constexpr (std::is_same_v<S, GrowStep>)
				return "grew the filesystem";
			else if constexpr (std::is_same_v<S, LuksFormatStep>)
				return "wrote a LUKS header";
			else if constexpr (std::is_same_v<S, LuksOpenStep>)
				return "opened LUKS";
			else if constexpr (std::is_same_v<S, LuksGrowStep>)
				return "grew the LUKS mapping";
			else if constexpr (std::is_same_v<S, LuksCloseStep>)
				return "closed LUKS";
			else
				return "stopped the mapper unit";
		},
		step);
}

/* The events an operator looks up by MESSAGE_ID. */
log::MessageId messageIdOf(const StepOutcome &outcome)
{
	/* The map's first question: is anyone else writing to the image? */
	if (outcome.error && outcome.error->code == Errc::Busy &&
	    std::holds_alternative<MapStep>(outcome.step))
		return log::ids::OtherWriter;
	if (outcome.error || outcome.change != Change::Changed)
		return {};
	if (std::holds_alternative<FormatStep>(outcome.step) ||
	    std::holds_alternative<LuksFormatStep>(outcome.step))
		return log::ids::Formatted;
	if (std::holds_alternative<GrowStep>(outcome.step))
		return log::ids::Grown;
	return {};
}

std::string seconds(std::chrono::microseconds duration)
{
	std::array<char, 32> text{};
	std::snprintf(text.data(), text.size(), "%.3f s",
		      static_cast<double>(duration.count()) / 1e6);
	return text.data();
}

} /* namespace */

std::string driverOfDevice(const std::string &device, Driver specified)
{
	if (device.starts_with("/dev/rbd"))
		return "krbd";
	if (device.starts_with("/dev/nbd"))
		return "nbd";
	if (device.starts_with("/dev/loop"))
		return "fuse";
	return driverName(specified);
}

log::Line stepLine(const VolumeSpec &spec, const StepOutcome &outcome)
{
	const std::string step = stepName(outcome.step);
	const bool changed = !outcome.error && outcome.change == Change::Changed;
	log::Line line;
	std::string what = outcome.device;
	if (!outcome.detail.empty())
		what += (what.empty() ? "" : ": ") + outcome.detail;
	if (outcome.error) {
		line.level = outcome.uncertain ? log::Level::Warning : log::Level::Err;
		line.message = "volume '" + spec.name + "': " + step +
			       (what.empty() ? "" : " " + what) +
			       " failed: " + outcome.error->message;
	} else if (changed) {
		line.level = log::Level::Info;
		line.message = "volume '" + spec.name + "': " + doneVerb(outcome.step) +
			       (what.empty() ? "" : " " + what) + " (" + seconds(outcome.duration) +
			       ")";
	} else {
		line.level = std::holds_alternative<CheckStep>(outcome.step) ? log::Level::Info
									     : log::Level::Debug;
		line.message = "volume '" + spec.name + "': " + step +
			       (what.empty() ? "" : " " + what) + ": nothing to change";
	}
	line.messageId = messageIdOf(outcome);
	const char *result = outcome.uncertain ? "uncertain"
			     : outcome.error   ? "failed"
			     : changed	       ? "changed"
					       : "unchanged";
	line.fields = {
		{ log::field::Volume, spec.name },
		{ log::field::Step, step },
		{ log::field::Image, spec.image.display() },
		{ log::field::Driver, driverOfDevice(outcome.device, spec.map.driver) },
		{ log::field::StepResult, result },
		{ log::field::DurationUsec, std::to_string(outcome.duration.count()) },
	};
	if (!outcome.device.empty())
		line.fields.push_back({ log::field::Device, outcome.device });
	if (!outcome.detail.empty())
		line.fields.push_back({ log::field::Detail, outcome.detail });
	return line;
}

void recordStep(const VolumeSpec &spec, const StepOutcome &outcome)
{
	log::write(stepLine(spec, outcome));
}

std::optional<log::Line> ownershipLine(const VolumeSpec &spec, const Ownership &stored,
				       const Ownership &tidied)
{
	std::vector<std::string> changes;
	if (stored.mappedDevice != tidied.mappedDevice) {
		if (!stored.mappedDevice.empty())
			changes.push_back("dropped the mapping " + stored.mappedDevice);
		if (!tidied.mappedDevice.empty())
			changes.push_back("adopted the mapping " + tidied.mappedDevice);
	}
	if (stored.staged != tidied.staged)
		changes.push_back(std::string(tidied.staged ? "adopted" : "dropped") +
				  " the staging mount " + spec.staging.path);
	for (const std::string &path : stored.publishedTargets) {
		if (!tidied.ownsTarget(path))
			changes.push_back("dropped the target " + path);
	}
	for (const std::string &path : tidied.publishedTargets) {
		if (!stored.ownsTarget(path))
			changes.push_back("adopted the target " + path);
	}
	if (changes.empty())
		return std::nullopt;
	std::string text;
	for (const std::string &change : changes)
		text += (text.empty() ? "" : "; ") + change;
	return log::volumeLine(log::Level::Info, spec.name,
			       "volume '" + spec.name + "': ownership record: " + text +
				       " (as the host shows it)",
			       { { log::field::Step, "record" },
				 { log::field::StepResult, "changed" },
				 { log::field::Detail, text } });
}

} /* namespace rbdvolume */
