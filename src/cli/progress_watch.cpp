/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* While a call waits: each new Activity of a volume, printed on stderr as "NAME: ACTIVITY". */
#include "cli/progress_watch.hpp"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string_view>
#include <utility>

#include "cli/bus_errors.hpp"
#include "common/bus_names.hpp"
#include "common/text_escape.hpp"

namespace rbdvolume::cli {

namespace {

/* The volume name of an object path, from its escaped last element. */
std::string nameOfPath(const char *path)
{
	char *decoded = nullptr;
	if (path != nullptr && sd_bus_path_decode(path, bus::VolumePathPrefix, &decoded) > 0 &&
	    decoded != nullptr) {
		std::string name(decoded);
		std::free(decoded); /* NOLINT(cppcoreguidelines-no-malloc): sd-bus allocated it */
		return name;
	}
	const std::string_view full = path != nullptr ? path : "";
	return std::string(full.substr(full.rfind('/') + 1));
}

/* The new Activity in a PropertiesChanged signal (s a{sv} as), or "" when it has none. */
int readActivity(sd_bus_message *message, std::string &activity)
{
	const char *interface = nullptr;
	int r = sd_bus_message_read(message, "s", &interface);
	if (r < 0)
		return r;
	if (std::strcmp(interface, bus::VolumeInterface) != 0)
		return 0;
	r = sd_bus_message_enter_container(message, 'a', "{sv}");
	if (r < 0)
		return r;
	while ((r = sd_bus_message_enter_container(message, 'e', "sv")) > 0) {
		const char *property = nullptr;
		r = sd_bus_message_read(message, "s", &property);
		if (r < 0)
			return r;
		if (std::strcmp(property, "Activity") == 0) {
			const char *value = nullptr;
			r = sd_bus_message_read(message, "v", "s", &value);
			if (r < 0)
				return r;
			activity = value != nullptr ? value : "";
		} else {
			r = sd_bus_message_skip(message, "v");
			if (r < 0)
				return r;
		}
		r = sd_bus_message_exit_container(message);
		if (r < 0)
			return r;
	}
	return r;
}

int onPropertiesChanged(sd_bus_message *message, void *userdata, sd_bus_error * /*error*/)
{
	/* A C callback: nothing may escape it. */
	try {
		std::string activity;
		if (readActivity(message, activity) < 0 || activity.empty())
			return 0;
		const auto *fixedName = static_cast<const std::string *>(userdata);
		const std::string name = fixedName->empty()
						 ? nameOfPath(sd_bus_message_get_path(message))
						 : *fixedName;
		std::fprintf(stderr, "%s: %s\n", terminalSafe(name).c_str(),
			     terminalSafe(activity).c_str());
		std::fflush(stderr);
	} catch (const std::bad_alloc &) {
		return -ENOMEM;
	} catch (...) {
		return -EIO;
	}
	return 0;
}

} /* namespace */

ProgressWatch::ProgressWatch(SlotPtr slot, std::unique_ptr<std::string> name)
	: name_(std::move(name)), slot_(std::move(slot))
{
}

Result<ProgressWatch> ProgressWatch::start(sd_bus *bus, const std::string &sender,
					   const std::string &objectPath, const std::string &name)
{
	std::string rule = "type='signal',sender='" + sender + "',interface='" +
			   bus::PropertiesInterface + "',member='PropertiesChanged',arg0='" +
			   bus::VolumeInterface + "',";
	if (objectPath.empty())
		rule += std::string("path_namespace='") + bus::VolumePathPrefix + "'";
	else
		rule += "path='" + objectPath + "'";

	auto shownName = std::make_unique<std::string>(objectPath.empty() ? "" : name);
	sd_bus_slot *slot = nullptr;
	const int r =
		sd_bus_add_match(bus, &slot, rule.c_str(), onPropertiesChanged, shownName.get());
	if (r < 0)
		return tl::make_unexpected(errorFromErrno(r, "cannot watch the volume's progress"));
	return ProgressWatch(SlotPtr(slot), std::move(shownName));
}

} /* namespace rbdvolume::cli */
