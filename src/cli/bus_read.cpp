/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Replies of rbd-volumed decoded into plain views: ListVolumes rows, a Volume's GetAll. */
#include "cli/bus_read.hpp"

#include <array>
#include <cerrno>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/errno_text.hpp"

namespace rbdvolume::cli {

namespace {

tl::unexpected<Error> malformed(std::string_view what, int r)
{
	return fail(Errc::Unsupported, "cannot read " + std::string(what) +
					       " from rbd-volumed: " + errnoText(r < 0 ? -r : r));
}

int readString(sd_bus_message *reply, std::string &out)
{
	const char *value = nullptr;
	const int r = sd_bus_message_read(reply, "v", "s", &value);
	if (r > 0 && value != nullptr)
		out = value;
	return r;
}

int readUint64(sd_bus_message *reply, uint64_t &out)
{
	return sd_bus_message_read(reply, "v", "t", &out);
}

int readBool(sd_bus_message *reply, bool &out)
{
	int value = 0;
	const int r = sd_bus_message_read(reply, "v", "b", &value);
	if (r > 0)
		out = value != 0;
	return r;
}

int readStrings(sd_bus_message *reply, std::vector<std::string> &out)
{
	int r = sd_bus_message_enter_container(reply, 'v', "as");
	if (r <= 0)
		return r < 0 ? r : -ENXIO;
	r = sd_bus_message_enter_container(reply, 'a', "s");
	if (r <= 0)
		return r < 0 ? r : -ENXIO;
	const char *value = nullptr;
	while ((r = sd_bus_message_read(reply, "s", &value)) > 0)
		out.emplace_back(value);
	if (r < 0)
		return r;
	r = sd_bus_message_exit_container(reply);
	return r < 0 ? r : sd_bus_message_exit_container(reply);
}

int readConditions(sd_bus_message *reply, std::vector<VolumeCondition> &out)
{
	int r = sd_bus_message_enter_container(reply, 'v', "a(ss)");
	if (r <= 0)
		return r < 0 ? r : -ENXIO;
	r = sd_bus_message_enter_container(reply, 'a', "(ss)");
	if (r <= 0)
		return r < 0 ? r : -ENXIO;
	const char *type = nullptr;
	const char *message = nullptr;
	while ((r = sd_bus_message_read(reply, "(ss)", &type, &message)) > 0)
		out.push_back(VolumeCondition{ type, message });
	if (r < 0)
		return r;
	r = sd_bus_message_exit_container(reply);
	return r < 0 ? r : sd_bus_message_exit_container(reply);
}

int readLastError(sd_bus_message *reply, VolumeError &out)
{
	const char *name = nullptr;
	const char *message = nullptr;
	const int r = sd_bus_message_read(reply, "v", "(ss)", &name, &message);
	if (r > 0)
		out = VolumeError{ name, message };
	return r;
}

using PropertyReader = int (*)(sd_bus_message *, VolumeView &);

struct Property {
	std::string_view name;
	PropertyReader read;
};

constexpr std::array<Property, 14> Properties = { {
	{ "Name", [](sd_bus_message *m, VolumeView &v) { return readString(m, v.name); } },
	{ "SpecFile", [](sd_bus_message *m, VolumeView &v) { return readString(m, v.specFile); } },
	{ "Intent", [](sd_bus_message *m, VolumeView &v) { return readString(m, v.intent); } },
	{ "Phase", [](sd_bus_message *m, VolumeView &v) { return readString(m, v.phase); } },
	{ "Stage", [](sd_bus_message *m, VolumeView &v) { return readString(m, v.stage); } },
	{ "Busy", [](sd_bus_message *m, VolumeView &v) { return readBool(m, v.busy); } },
	{ "Activity", [](sd_bus_message *m, VolumeView &v) { return readString(m, v.activity); } },
	{ "Device", [](sd_bus_message *m, VolumeView &v) { return readString(m, v.device); } },
	{ "StagingPath",
	  [](sd_bus_message *m, VolumeView &v) { return readString(m, v.stagingPath); } },
	{ "PublishTargets",
	  [](sd_bus_message *m, VolumeView &v) { return readStrings(m, v.publishTargets); } },
	{ "Conditions",
	  [](sd_bus_message *m, VolumeView &v) { return readConditions(m, v.conditions); } },
	{ "LastError",
	  [](sd_bus_message *m, VolumeView &v) { return readLastError(m, v.lastError); } },
	{ "Generation",
	  [](sd_bus_message *m, VolumeView &v) { return readUint64(m, v.generation); } },
	{ "ObservedGeneration",
	  [](sd_bus_message *m, VolumeView &v) { return readUint64(m, v.observedGeneration); } },
} };

/* Reads the value of property `name` into `view`, or skips it when rbd-volumectl does not know it. */
int readProperty(sd_bus_message *reply, std::string_view name, VolumeView &view)
{
	for (const Property &property : Properties) {
		if (property.name == name)
			return property.read(reply, view);
	}
	return sd_bus_message_skip(reply, "v");
}

} /* namespace */

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
		volumes.push_back(VolumeSummary{ name, intent, phase, path });
	if (r < 0)
		return malformed("the volume list", r);
	r = sd_bus_message_exit_container(reply);
	if (r < 0)
		return malformed("the volume list", r);
	return volumes;
}

Result<VolumeView> readVolumeProperties(sd_bus_message *reply)
{
	VolumeView view;
	int r = sd_bus_message_enter_container(reply, 'a', "{sv}");
	if (r < 0)
		return malformed("the volume's properties", r);
	while ((r = sd_bus_message_enter_container(reply, 'e', "sv")) > 0) {
		const char *name = nullptr;
		r = sd_bus_message_read(reply, "s", &name);
		if (r < 0)
			return malformed("the volume's properties", r);
		r = readProperty(reply, name, view);
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
	return view;
}

} /* namespace rbdvolume::cli */
