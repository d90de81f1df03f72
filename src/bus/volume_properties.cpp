/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "bus/volume_properties.hpp"

#include <array>
#include <cerrno>

#include "bus/names.hpp"
#include "common/c_handle.hpp"
#include "common/errno_text.hpp"
#include "common/text_escape.hpp"

namespace rbdvolume::bus {

namespace {

constexpr std::array<const char *, 8> PhaseNames = {
	"unknown", "invalid", "down", "up", "pending", "degraded", "failed", "unmanaged",
};
constexpr std::array<const char *, 4> StageNames = { "absent", "mapped", "staged", "published" };

template<typename E, size_t N>
std::optional<E> fromName(const std::array<const char *, N> &names, std::string_view name)
{
	for (size_t i = 0; i < N; i++) {
		if (name == names.at(i))
			return static_cast<E>(i);
	}
	return std::nullopt;
}

int appendString(sd_bus_message *reply, const std::string &value)
{
	return sd_bus_message_append(reply, "s", busText(value).c_str());
}

int readString(sd_bus_message *message, std::string &out)
{
	const char *value = nullptr;
	const int r = sd_bus_message_read(message, "v", "s", &value);
	if (r > 0 && value != nullptr)
		out = value;
	return r;
}

int appendStrings(sd_bus_message *reply, const std::vector<std::string> &values)
{
	int r = sd_bus_message_open_container(reply, 'a', "s");
	for (const std::string &value : values) {
		if (r >= 0)
			r = appendString(reply, value);
	}
	return r < 0 ? r : sd_bus_message_close_container(reply);
}

int readStrings(sd_bus_message *message, std::vector<std::string> &out)
{
	int r = sd_bus_message_enter_container(message, 'v', "as");
	if (r <= 0)
		return r < 0 ? r : -ENXIO;
	r = sd_bus_message_enter_container(message, 'a', "s");
	if (r <= 0)
		return r < 0 ? r : -ENXIO;
	const char *value = nullptr;
	while ((r = sd_bus_message_read(message, "s", &value)) > 0)
		out.emplace_back(value);
	if (r < 0)
		return r;
	r = sd_bus_message_exit_container(message);
	return r < 0 ? r : sd_bus_message_exit_container(message);
}

int appendConditions(sd_bus_message *reply, const std::vector<Condition> &conditions)
{
	int r = sd_bus_message_open_container(reply, 'a', "(ss)");
	for (const Condition &condition : conditions) {
		if (r >= 0)
			r = sd_bus_message_append(reply, "(ss)", condition.type.c_str(),
						  busText(condition.message).c_str());
	}
	return r < 0 ? r : sd_bus_message_close_container(reply);
}

int readConditions(sd_bus_message *message, std::vector<Condition> &out)
{
	int r = sd_bus_message_enter_container(message, 'v', "a(ss)");
	if (r <= 0)
		return r < 0 ? r : -ENXIO;
	r = sd_bus_message_enter_container(message, 'a', "(ss)");
	if (r <= 0)
		return r < 0 ? r : -ENXIO;
	const char *type = nullptr;
	const char *text = nullptr;
	while ((r = sd_bus_message_read(message, "(ss)", &type, &text)) > 0)
		out.push_back(Condition{ type, text });
	if (r < 0)
		return r;
	r = sd_bus_message_exit_container(message);
	return r < 0 ? r : sd_bus_message_exit_container(message);
}

/* A string member: Name, SpecFile, Intent, Activity, Device, StagingPath. */
template<std::string VolumeProperties::*Member>
VolumeProperty stringProperty(const char *name, bool constant = false)
{
	return VolumeProperty{
		name,
		"s",
		constant,
		[](sd_bus_message *reply, const VolumeProperties &from) {
			return appendString(reply, from.*Member);
		},
		[](sd_bus_message *message, VolumeProperties &into) {
			return readString(message, into.*Member);
		},
		[](const VolumeProperties &a, const VolumeProperties &b) {
			return a.*Member != b.*Member;
		},
	};
}

template<uint64_t VolumeProperties::*Member> VolumeProperty countProperty(const char *name)
{
	return VolumeProperty{
		name,
		"t",
		false,
		[](sd_bus_message *reply, const VolumeProperties &from) {
			return sd_bus_message_append(reply, "t", from.*Member);
		},
		[](sd_bus_message *message, VolumeProperties &into) {
			return sd_bus_message_read(message, "v", "t", &(into.*Member));
		},
		[](const VolumeProperties &a, const VolumeProperties &b) {
			return a.*Member != b.*Member;
		},
	};
}

/* Phase and Stage go as their names: a newer daemon's new name reads as Unknown/Absent. */
template<typename E, E VolumeProperties::*Member, const char *(*Name)(E),
	 std::optional<E> (*FromName)(std::string_view), E Fallback>
VolumeProperty namedProperty(const char *name)
{
	return VolumeProperty{
		name,
		"s",
		false,
		[](sd_bus_message *reply, const VolumeProperties &from) {
			return sd_bus_message_append(reply, "s", Name(from.*Member));
		},
		[](sd_bus_message *message, VolumeProperties &into) {
			std::string text;
			const int r = readString(message, text);
			into.*Member = FromName(text).value_or(Fallback);
			return r;
		},
		[](const VolumeProperties &a, const VolumeProperties &b) {
			return a.*Member != b.*Member;
		},
	};
}

int appendDurations(sd_bus_message *reply, const std::map<std::string, uint64_t> &durations)
{
	int r = sd_bus_message_open_container(reply, 'a', "{st}");
	for (const auto &[step, usec] : durations) {
		if (r >= 0)
			r = sd_bus_message_append(reply, "{st}", step.c_str(), usec);
	}
	return r < 0 ? r : sd_bus_message_close_container(reply);
}

int readDurations(sd_bus_message *message, std::map<std::string, uint64_t> &out)
{
	int r = sd_bus_message_enter_container(message, 'v', "a{st}");
	if (r <= 0)
		return r < 0 ? r : -ENXIO;
	r = sd_bus_message_enter_container(message, 'a', "{st}");
	if (r <= 0)
		return r < 0 ? r : -ENXIO;
	const char *step = nullptr;
	uint64_t usec = 0;
	while ((r = sd_bus_message_read(message, "{st}", &step, &usec)) > 0)
		out[step] = usec;
	if (r < 0)
		return r;
	r = sd_bus_message_exit_container(message);
	return r < 0 ? r : sd_bus_message_exit_container(message);
}

const std::array<VolumeProperty, 18> &table()
{
	static const std::array<VolumeProperty, 18> properties = {
		stringProperty<&VolumeProperties::name>("Name", true),
		stringProperty<&VolumeProperties::specFile>("SpecFile"),
		stringProperty<&VolumeProperties::intent>("Intent"),
		namedProperty<Phase, &VolumeProperties::phase, phaseName, phaseFromName,
			      Phase::Unknown>("Phase"),
		namedProperty<Stage, &VolumeProperties::stage, stageName, stageFromName,
			      Stage::Absent>("Stage"),
		VolumeProperty{
			"Busy",
			"b",
			false,
			[](sd_bus_message *reply, const VolumeProperties &from) {
				return sd_bus_message_append(reply, "b", from.busy ? 1 : 0);
			},
			[](sd_bus_message *message, VolumeProperties &into) {
				int value = 0;
				const int r = sd_bus_message_read(message, "v", "b", &value);
				into.busy = value != 0;
				return r;
			},
			[](const VolumeProperties &a, const VolumeProperties &b) {
				return a.busy != b.busy;
			},
		},
		stringProperty<&VolumeProperties::activity>("Activity"),
		stringProperty<&VolumeProperties::device>("Device"),
		stringProperty<&VolumeProperties::stagingPath>("StagingPath"),
		VolumeProperty{
			"PublishTargets",
			"as",
			false,
			[](sd_bus_message *reply, const VolumeProperties &from) {
				return appendStrings(reply, from.publishTargets);
			},
			[](sd_bus_message *message, VolumeProperties &into) {
				return readStrings(message, into.publishTargets);
			},
			[](const VolumeProperties &a, const VolumeProperties &b) {
				return a.publishTargets != b.publishTargets;
			},
		},
		VolumeProperty{
			"Conditions",
			"a(ss)",
			false,
			[](sd_bus_message *reply, const VolumeProperties &from) {
				return appendConditions(reply, from.conditions);
			},
			[](sd_bus_message *message, VolumeProperties &into) {
				return readConditions(message, into.conditions);
			},
			[](const VolumeProperties &a, const VolumeProperties &b) {
				return a.conditions != b.conditions;
			},
		},
		VolumeProperty{
			"LastError",
			"(ss)",
			false,
			[](sd_bus_message *reply, const VolumeProperties &from) {
				return sd_bus_message_append(
					reply, "(ss)", from.lastErrorName.c_str(),
					busText(from.lastErrorMessage).c_str());
			},
			[](sd_bus_message *message, VolumeProperties &into) {
				const char *name = nullptr;
				const char *text = nullptr;
				const int r =
					sd_bus_message_read(message, "v", "(ss)", &name, &text);
				if (r > 0) {
					into.lastErrorName = name;
					into.lastErrorMessage = text;
				}
				return r;
			},
			[](const VolumeProperties &a, const VolumeProperties &b) {
				return a.lastErrorName != b.lastErrorName ||
				       a.lastErrorMessage != b.lastErrorMessage;
			},
		},
		countProperty<&VolumeProperties::generation>("Generation"),
		countProperty<&VolumeProperties::observedGeneration>("ObservedGeneration"),
		countProperty<&VolumeProperties::phaseSince>("PhaseSince"),
		countProperty<&VolumeProperties::retries>("Retries"),
		countProperty<&VolumeProperties::heals>("Heals"),
		VolumeProperty{
			"StepDurations",
			"a{st}",
			false,
			[](sd_bus_message *reply, const VolumeProperties &from) {
				return appendDurations(reply, from.stepUsec);
			},
			[](sd_bus_message *message, VolumeProperties &into) {
				return readDurations(message, into.stepUsec);
			},
			[](const VolumeProperties &a, const VolumeProperties &b) {
				return a.stepUsec != b.stepUsec;
			},
		},
	};
	return properties;
}

tl::unexpected<Error> malformed(std::string_view what, int r)
{
	return fail(Errc::Unsupported, "cannot read " + std::string(what) +
					       " from rbd-volumed: " + errnoText(r < 0 ? -r : r));
}

/* Reads the value of property `name`, or skips it when this build does not know it. */
int readProperty(sd_bus_message *message, std::string_view name, VolumeProperties &into)
{
	for (const VolumeProperty &property : volumeProperties()) {
		if (property.name == name)
			return property.read(message, into);
	}
	return sd_bus_message_skip(message, "v");
}

} /* namespace */

const char *phaseName(Phase phase)
{
	return PhaseNames.at(static_cast<size_t>(phase));
}

std::optional<Phase> phaseFromName(std::string_view name)
{
	return fromName<Phase>(PhaseNames, name);
}

const char *stageName(Stage stage)
{
	return StageNames.at(static_cast<size_t>(stage));
}

std::optional<Stage> stageFromName(std::string_view name)
{
	return fromName<Stage>(StageNames, name);
}

std::span<const VolumeProperty> volumeProperties()
{
	return table();
}

std::string busText(const std::string &text)
{
	return terminalSafe(text, true);
}

std::string volumePath(const std::string &name)
{
	char *raw = nullptr;
	const int r = sd_bus_path_encode(VolumePathPrefix, name.c_str(), &raw);
	const Malloced<char> path(raw);
	return r < 0 ? std::string(VolumePathPrefix) : std::string(path.get());
}

std::string volumeName(const char *path)
{
	char *raw = nullptr;
	const int r = sd_bus_path_decode(path, VolumePathPrefix, &raw);
	const Malloced<char> name(raw);
	return r <= 0 || !name ? std::string() : std::string(name.get());
}

Result<std::vector<VolumeSummary>> readVolumeList(sd_bus_message *reply)
{
	std::vector<VolumeSummary> volumes;
	int r = sd_bus_message_enter_container(reply, 'a', "(ssso)");
	if (r < 0)
		return malformed("the volume list", r);
	const char *name = nullptr;
	const char *intent = nullptr;
	const char *phase = nullptr;
	const char *path = nullptr;
	while ((r = sd_bus_message_read(reply, "(ssso)", &name, &intent, &phase, &path)) > 0)
		volumes.push_back(VolumeSummary{
			name, intent, phaseFromName(phase).value_or(Phase::Unknown), path });
	if (r < 0)
		return malformed("the volume list", r);
	r = sd_bus_message_exit_container(reply);
	if (r < 0)
		return malformed("the volume list", r);
	return volumes;
}

Result<VolumeProperties> readVolumeProperties(sd_bus_message *reply)
{
	VolumeProperties volume;
	int r = sd_bus_message_enter_container(reply, 'a', "{sv}");
	if (r < 0)
		return malformed("the volume's properties", r);
	while ((r = sd_bus_message_enter_container(reply, 'e', "sv")) > 0) {
		const char *name = nullptr;
		r = sd_bus_message_read(reply, "s", &name);
		if (r < 0)
			return malformed("the volume's properties", r);
		r = readProperty(reply, name, volume);
		if (r <= 0)
			return malformed(std::string("property ") + name, r < 0 ? r : -ENXIO);
		r = sd_bus_message_exit_container(reply);
		if (r < 0)
			return malformed("the volume's properties", r);
	}
	if (r < 0)
		return malformed("the volume's properties", r);
	r = sd_bus_message_exit_container(reply);
	if (r < 0)
		return malformed("the volume's properties", r);
	return volume;
}

} /* namespace rbdvolume::bus */
