/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* formatPlan(): the plan as operators read it in `rbd-volumectl plan` and golden files. */
#include <array>
#include <sstream>

#include "engine/plan.hpp"

namespace rbdvolume {

namespace {

std::string humanSize(uint64_t bytes)
{
	constexpr std::array<const char *, 6> Units = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	size_t unit = 0;
	while (unit + 1 < Units.size() && bytes >= 1024 && bytes % 1024 == 0) {
		bytes /= 1024;
		unit++;
	}
	return std::to_string(bytes) + " " + Units.at(unit);
}

std::string deviceText(const DeviceRef &device)
{
	return device.fromMapStep() ? "<mapped device>" : device.resolve("");
}

std::string modeText(bool readOnly, const std::vector<std::string> &options)
{
	std::string text = readOnly ? "ro" : "rw";
	for (size_t i = 0; i < options.size(); i++)
		text += (i == 0 ? ", " : ",") + options[i];
	return text;
}

const PublishTarget *findTarget(const VolumeSpec &spec, const std::string &path)
{
	for (const PublishTarget &target : spec.publish) {
		if (target.path == path)
			return &target;
	}
	return nullptr;
}

class StepPrinter
{
public:
	explicit StepPrinter(const VolumeSpec &spec) : spec_(spec) {}

	std::string operator()(const UnmountStep &s) const
	{
		return std::string(s.staging ? "unmount-staging " : "unmount ") + s.path +
		       (s.detach ? " (detach: the device gets no answer)" : "");
	}
	std::string operator()(const UnmapStep &s) const
	{
		return "unmap " + spec_.image.display() + " from " + s.device;
	}
	std::string operator()(const StopOrphanStep & /*unused*/) const
	{
		return "stop-orphan " + spec_.image.display() +
		       " (its mapper runs without a device: a map or unmap was cut short)";
	}
	std::string operator()(const EnsureImageStep &s) const
	{
		const auto &create = spec_.image.create;
		if (s.grow && create)
			return "ensure-image " + spec_.image.display() + " (grow to " +
			       humanSize(create->sizeBytes) + ")";
		return "ensure-image " + spec_.image.display() +
		       (create ? " (create " + humanSize(create->sizeBytes) + " if missing)"
			       : " (must exist)");
	}
	std::string operator()(const MapStep & /*unused*/) const
	{
		return "map " + spec_.image.display() + " with " + driverName(spec_.map.driver) +
		       (spec_.readOnly() ? ", read-only" : ", read-write");
	}
	std::string operator()(const FormatStep &s) const
	{
		return "format-if-blank " + deviceText(s.device) + " as " +
		       fsTypeName(spec_.filesystem->type);
	}
	std::string operator()(const CheckStep &s) const
	{
		return "check " + deviceText(s.device) + " (" + fsTypeName(spec_.filesystem->type) +
		       ")";
	}
	std::string operator()(const MountStagingStep &s) const
	{
		const std::string what = spec_.mode == VolumeMode::Block
						 ? std::string("block device bind")
						 : fsTypeName(spec_.filesystem->type);
		return "mount-staging " + deviceText(s.device) + " on " + spec_.staging.path +
		       " (" + what + ", " + modeText(spec_.readOnly(), spec_.staging.options) + ")";
	}
	std::string operator()(const PublishStep &s) const
	{
		const PublishTarget *target = findTarget(spec_, s.target);
		const bool readOnly = target ? target->readOnly : spec_.readOnly();
		static const std::vector<std::string> none;
		return "publish " + spec_.staging.path + " on " + s.target + " (" +
		       modeText(readOnly, target ? target->options : none) + ")";
	}
	std::string operator()(const LuksFormatStep &s) const
	{
		const EncryptionSpec &e = *spec_.encryption;
		return "luks-format-if-blank " + deviceText(s.device) + " (LUKS2, " + e.cipher +
		       ", " + std::to_string(e.keyBits) + "-bit key, " + pbkdfName(e.pbkdf) + ")";
	}
	std::string operator()(const LuksOpenStep &s) const
	{
		const bool keyfile = spec_.encryption->source == KeySource::Keyfile;
		return "luks-open " + deviceText(s.device) + " as " + cryptDeviceOf(spec_.name) +
		       " (key from " +
		       (keyfile ? spec_.encryption->keyfile : std::string("the image's metadata")) +
		       ")";
	}
	std::string operator()(const LuksGrowStep & /*unused*/) const
	{
		return "luks-grow-if-needed " + cryptDeviceOf(spec_.name);
	}
	std::string operator()(const LuksCloseStep &s) const
	{
		return "luks-close /dev/mapper/" + s.name;
	}
	std::string operator()(const GrowStep &s) const
	{
		const std::string fs = fsTypeName(spec_.filesystem->type);
		if (s.online)
			return "grow-if-needed " + spec_.staging.path + " (" + fs + ", online)";
		return "grow-if-needed " + deviceText(s.device) + " (" + fs + ", offline)";
	}

private:
	const VolumeSpec &spec_;
};

std::string plural(size_t n, const char *word)
{
	return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

} /* namespace */

const char *stepName(const Step &step)
{
	constexpr std::array<const char *, std::variant_size_v<Step>> Names = {
		"unmount",	   "unmap",	  "ensure-image",	  "map",
		"format-if-blank", "check",	  "mount-staging",	  "publish",
		"grow-if-needed",  "stop-orphan", "luks-format-if-blank", "luks-open",
		"luks-grow",	   "luks-close",
	};
	return Names.at(step.index());
}

std::string formatStep(const Step &step, const VolumeSpec &spec)
{
	return std::visit(StepPrinter(spec), step);
}

std::string formatPlan(const Plan &plan, const VolumeSpec &spec)
{
	std::ostringstream out;
	out << "volume '" << plan.volume << "' (" << intentName(plan.intent) << "): ";
	if (plan.empty() && plan.conflicts.empty()) {
		out << "converged\n";
		return out.str();
	}
	out << (plan.empty() ? std::string("no steps") : plural(plan.steps.size(), "step"));
	if (!plan.conflicts.empty())
		out << ", " << plural(plan.conflicts.size(), "conflict");
	out << '\n';

	const StepPrinter printer(spec);
	for (size_t i = 0; i < plan.steps.size(); i++)
		out << "  " << i + 1 << ". " << std::visit(printer, plan.steps[i]) << '\n';
	for (const Conflict &conflict : plan.conflicts)
		out << "  ! " << conflictKindName(conflict.kind) << ' ' << conflict.subject << ": "
		    << conflict.detail << '\n';
	return out.str();
}

} /* namespace rbdvolume */
