/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "bus/activity_watch.hpp"

#include <cerrno>
#include <cstring>
#include <new>
#include <string_view>
#include <utility>

#include "bus/errors.hpp"
#include "bus/names.hpp"
#include "bus/volume_properties.hpp"

namespace rbdvolume::bus {

namespace {

/* The new Activity in a PropertiesChanged signal (s a{sv} as), or "" when it has none. */
int readActivity(sd_bus_message *message, std::string &activity)
{
	const char *interface = nullptr;
	int r = sd_bus_message_read(message, "s", &interface);
	if (r < 0)
		return r;
	if (std::strcmp(interface, VolumeInterface) != 0)
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

/* The volume's name, or the path's last element when it is no volume path. */
std::string nameOfPath(const char *path)
{
	std::string name = volumeName(path != nullptr ? path : "");
	if (!name.empty())
		return name;
	const std::string_view full = path != nullptr ? path : "";
	return std::string(full.substr(full.rfind('/') + 1));
}

int onPropertiesChanged(sd_bus_message *message, void *userdata, sd_bus_error * /*error*/)
{
	/* A C callback: nothing may escape it. */
	try {
		std::string activity;
		if (readActivity(message, activity) < 0 || activity.empty())
			return 0;
		(*static_cast<ActivityCallback *>(userdata))(
			nameOfPath(sd_bus_message_get_path(message)), activity);
	} catch (const std::bad_alloc &) {
		return -ENOMEM;
	} catch (...) {
		return -EIO;
	}
	return 0;
}

} /* namespace */

ActivityWatch::ActivityWatch(SlotPtr slot, std::unique_ptr<ActivityCallback> callback)
	: callback_(std::move(callback)), slot_(std::move(slot))
{
}

Result<ActivityWatch> ActivityWatch::start(sd_bus *bus, const std::string &sender,
					   const std::string &objectPath, ActivityCallback callback)
{
	std::string rule = "type='signal',sender='" + sender + "',interface='" +
			   PropertiesInterface + "',member='PropertiesChanged',arg0='" +
			   VolumeInterface + "',";
	if (objectPath.empty())
		rule += std::string("path_namespace='") + VolumePathPrefix + "'";
	else
		rule += "path='" + objectPath + "'";

	auto owned = std::make_unique<ActivityCallback>(std::move(callback));
	sd_bus_slot *slot = nullptr;
	const int r = sd_bus_add_match(bus, &slot, rule.c_str(), onPropertiesChanged, owned.get());
	if (r < 0)
		return tl::make_unexpected(errorFromErrno(r, "cannot watch the volume's progress"));
	return ActivityWatch(SlotPtr(slot), std::move(owned));
}

} /* namespace rbdvolume::bus */
