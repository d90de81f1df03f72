/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "daemon/volume_record.hpp"

#include <algorithm>
#include <array>
#include <string_view>
#include <utility>

#include "journal/fields.hpp"
#include "journal/message_ids.hpp"

namespace rbdvolume::daemon {

namespace {

/* Conflicts that are a refusal to format: the device holds something. */
constexpr std::array<std::string_view, 5> FormatRefusals = {
	"foreign-signature", "unknown-data",	"ambivalent-probe",
	"lost-filesystem",   "blank-no-format",
};

log::MessageId conditionId(const Condition &condition)
{
	if (condition.type == "MapperLost")
		return log::ids::MapperLost;
	if (condition.type == "IoStalled")
		return log::ids::IoStalled;
	if (condition.type == "Abandoned")
		return log::ids::Abandoned;
	if (condition.type == "PoolFull")
		return log::ids::PoolFull;
	if (condition.type == "FilesystemErrors")
		return log::ids::FilesystemErrors;
	for (std::string_view refusal : FormatRefusals) {
		if (condition.message.starts_with(refusal))
			return log::ids::FormatRefused;
	}
	return {};
}

/* The conditions of a degraded volume: each is a warning in the journal when it comes. */
bool warned(const Condition &condition)
{
	constexpr std::array<std::string_view, 6> Types = {
		"Conflict", "MapperLost", "IoStalled", "Abandoned", "PoolFull", "FilesystemErrors",
	};
	return std::find(Types.begin(), Types.end(), condition.type) != Types.end();
}

/* Shown before: the same condition, or a filesystem's error record that only
 * counted more errors (status has the count and the time; a line for each
 * would repeat the warning for every failed write). */
bool shown(const std::vector<Condition> &conditions, const Condition &condition)
{
	return std::any_of(conditions.begin(), conditions.end(), [&](const Condition &before) {
		return before == condition ||
		       (condition.type == "FilesystemErrors" && before.type == condition.type);
	});
}

std::string joined(const std::vector<std::string> &items)
{
	std::string text;
	for (const std::string &item : items)
		text += (text.empty() ? "" : ", ") + item;
	return text;
}

std::vector<log::Field> fieldsOf(const VolumeStatus &status)
{
	std::vector<log::Field> fields = { { log::field::Volume, status.name },
					   { log::field::Phase, bus::phaseName(status.phase) } };
	if (!status.device.empty())
		fields.push_back({ log::field::Device, status.device });
	return fields;
}

} /* namespace */

std::vector<log::Line> VolumeRecord::changed(const VolumeStatus &before, const VolumeStatus &after)
{
	std::vector<log::Line> lines;
	if (after.phase == bus::Phase::Pending || after.phase == bus::Phase::Unknown)
		return lines;
	const bus::Phase settled = std::exchange(settled_, after.phase);
	/* A start learns what was already so: that is no news. */
	if (settled == bus::Phase::Unknown)
		return lines;
	for (const Condition &condition : after.conditions) {
		if (!warned(condition) || shown(before.conditions, condition))
			continue;
		auto fields = fieldsOf(after);
		fields.push_back({ log::field::Condition, condition.type });
		lines.push_back({ log::Level::Warning,
				  "volume '" + after.name + "': " + condition.type + ": " +
					  condition.message,
				  std::move(fields), conditionId(condition) });
	}
	if (after.phase == settled)
		return lines;
	if (after.phase == bus::Phase::Up) {
		std::string where = after.device;
		if (!after.stagingPath.empty())
			where += " staged at " + after.stagingPath;
		if (!after.publishTargets.empty())
			where += ", published at " + joined(after.publishTargets);
		lines.push_back({ log::Level::Info, "volume '" + after.name + "' is up: " + where,
				  fieldsOf(after), log::ids::VolumeUp });
	} else if (after.phase == bus::Phase::Down && settled != bus::Phase::Invalid) {
		lines.push_back(
			{ log::Level::Info,
			  "volume '" + after.name + "' is down: nothing of it is mapped or mounted",
			  fieldsOf(after), log::ids::VolumeDown });
	}
	return lines;
}

} /* namespace rbdvolume::daemon */
