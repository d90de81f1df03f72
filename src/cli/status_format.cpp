/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Volumes as a table, readable blocks or JSON, for `list` and `status`; pure, no bus. */
#include "cli/status_format.hpp"

#include <algorithm>
#include <array>
#include <string_view>
#include <vector>

#include "common/text_escape.hpp"

namespace rbdvolume::cli {

namespace {

constexpr std::string_view Missing = "-";
constexpr size_t LabelWidth = 14;

std::string shown(std::string_view value)
{
	return value.empty() ? std::string(Missing) : terminalSafe(value);
}

void appendPadded(std::string &out, const std::string &cell, size_t width)
{
	out += cell;
	out.append(width - std::min(width, displayWidth(cell)), ' ');
}

/* "  label:       value\n"; further values of the same label line up under the first. */
void appendField(std::string &out, std::string_view label, const std::string &value)
{
	out += "  ";
	appendPadded(out, std::string(label) + ':', LabelWidth);
	out += value;
	out += '\n';
}

void appendContinuation(std::string &out, const std::string &value)
{
	out.append(2 + LabelWidth, ' ');
	out += value;
	out += '\n';
}

void appendList(std::string &out, std::string_view label, const std::vector<std::string> &values)
{
	if (values.empty()) {
		appendField(out, label, "none");
		return;
	}
	appendField(out, label, values.front());
	for (size_t i = 1; i < values.size(); i++)
		appendContinuation(out, values[i]);
}

std::string busyText(const VolumeProperties &volume)
{
	if (!volume.busy)
		return "no";
	return volume.activity.empty() ? "yes" : "yes: " + terminalSafe(volume.activity);
}

std::string errorText(const VolumeProperties &volume)
{
	const std::string &name = volume.lastErrorName;
	const std::string &message = volume.lastErrorMessage;
	if (name.empty() && message.empty())
		return "none";
	if (message.empty())
		return terminalSafe(name);
	if (name.empty())
		return terminalSafe(message);
	return terminalSafe(name) + ": " + terminalSafe(message);
}

void appendBlock(std::string &out, const VolumeProperties &volume)
{
	out += shown(volume.name);
	out += '\n';
	appendField(out, "spec file", shown(volume.specFile));
	appendField(out, "intent", shown(volume.intent));
	appendField(out, "phase", bus::phaseName(volume.phase));
	appendField(out, "stage", bus::stageName(volume.stage));
	appendField(out, "device", shown(volume.device));
	appendField(out, "staging path", shown(volume.stagingPath));
	std::vector<std::string> targets;
	targets.reserve(volume.publishTargets.size());
	for (const std::string &target : volume.publishTargets)
		targets.push_back(shown(target));
	appendList(out, "targets", targets);
	appendField(out, "busy", busyText(volume));
	appendField(out, "generation",
		    std::to_string(volume.generation) + " (observed " +
			    std::to_string(volume.observedGeneration) + ")");
	std::vector<std::string> conditions;
	conditions.reserve(volume.conditions.size());
	for (const bus::Condition &condition : volume.conditions)
		conditions.push_back(condition.message.empty()
					     ? shown(condition.type)
					     : shown(condition.type) + ": " +
						       terminalSafe(condition.message));
	appendList(out, "conditions", conditions);
	appendField(out, "last error", errorText(volume));
}

/* ,"key": for the members after the first of an object. */
void appendKey(std::string &out, std::string_view key, bool first = false)
{
	if (!first)
		out += ',';
	out += jsonQuote(key);
	out += ':';
}

void appendStringMember(std::string &out, std::string_view key, std::string_view value,
			bool first = false)
{
	appendKey(out, key, first);
	out += jsonQuote(value);
}

void appendJsonVolume(std::string &out, const VolumeProperties &volume)
{
	out += '{';
	appendStringMember(out, "name", volume.name, true);
	appendStringMember(out, "spec_file", volume.specFile);
	appendStringMember(out, "intent", volume.intent);
	appendStringMember(out, "phase", bus::phaseName(volume.phase));
	appendStringMember(out, "stage", bus::stageName(volume.stage));
	appendKey(out, "busy");
	out += volume.busy ? "true" : "false";
	appendStringMember(out, "activity", volume.activity);
	appendStringMember(out, "device", volume.device);
	appendStringMember(out, "staging_path", volume.stagingPath);
	appendKey(out, "publish_targets");
	out += '[';
	for (size_t i = 0; i < volume.publishTargets.size(); i++) {
		if (i > 0)
			out += ',';
		out += jsonQuote(volume.publishTargets[i]);
	}
	out += ']';
	appendKey(out, "conditions");
	out += '[';
	for (size_t i = 0; i < volume.conditions.size(); i++) {
		if (i > 0)
			out += ',';
		out += '{';
		appendStringMember(out, "type", volume.conditions[i].type, true);
		appendStringMember(out, "message", volume.conditions[i].message);
		out += '}';
	}
	out += ']';
	appendKey(out, "last_error");
	if (volume.lastErrorName.empty() && volume.lastErrorMessage.empty()) {
		out += "null";
	} else {
		out += '{';
		appendStringMember(out, "name", volume.lastErrorName, true);
		appendStringMember(out, "message", volume.lastErrorMessage);
		out += '}';
	}
	appendKey(out, "generation");
	out += std::to_string(volume.generation);
	appendKey(out, "observed_generation");
	out += std::to_string(volume.observedGeneration);
	out += '}';
}

} /* namespace */

std::string formatVolumeTable(std::span<const VolumeProperties> volumes, bool legend)
{
	using Row = std::array<std::string, 4>;
	const Row header = { "NAME", "INTENT", "PHASE", "DEVICE" };
	std::vector<Row> rows;
	rows.reserve(volumes.size());
	for (const VolumeProperties &volume : volumes)
		rows.push_back({ shown(volume.name), shown(volume.intent),
				 bus::phaseName(volume.phase), shown(volume.device) });

	std::array<size_t, 3> widths{};
	for (size_t column = 0; column < widths.size(); column++)
		widths.at(column) = displayWidth(header.at(column));
	for (const Row &row : rows) {
		for (size_t column = 0; column < widths.size(); column++)
			widths.at(column) =
				std::max(widths.at(column), displayWidth(row.at(column)));
	}
	std::string out;
	const auto appendRow = [&out, &widths](const Row &row) {
		for (size_t column = 0; column < widths.size(); column++)
			appendPadded(out, row.at(column), widths.at(column) + 2);
		out += row.back();
		out += '\n';
	};
	if (legend)
		appendRow(header);
	for (const Row &row : rows)
		appendRow(row);
	return out;
}

std::string formatVolumeListJson(std::span<const VolumeProperties> volumes)
{
	std::string out = "{\"volumes\":[";
	for (size_t i = 0; i < volumes.size(); i++) {
		if (i > 0)
			out += ',';
		out += '{';
		appendStringMember(out, "name", volumes[i].name, true);
		appendStringMember(out, "intent", volumes[i].intent);
		appendStringMember(out, "phase", bus::phaseName(volumes[i].phase));
		appendStringMember(out, "device", volumes[i].device);
		out += '}';
	}
	out += "]}\n";
	return out;
}

std::string formatStatusText(std::span<const VolumeProperties> volumes)
{
	if (volumes.empty())
		return "no volumes\n";
	std::string out;
	for (size_t i = 0; i < volumes.size(); i++) {
		if (i > 0)
			out += '\n';
		appendBlock(out, volumes[i]);
	}
	return out;
}

std::string formatStatusJson(std::span<const VolumeProperties> volumes)
{
	std::string out = "{\"volumes\":[";
	for (size_t i = 0; i < volumes.size(); i++) {
		if (i > 0)
			out += ',';
		appendJsonVolume(out, volumes[i]);
	}
	out += "]}\n";
	return out;
}

} /* namespace rbdvolume::cli */
