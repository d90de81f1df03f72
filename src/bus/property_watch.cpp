/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "bus/property_watch.hpp"

#include <cerrno>
#include <cstring>
#include <new>
#include <optional>
#include <string_view>
#include <utility>

#include "bus/errors.hpp"
#include "bus/names.hpp"
#include "bus/volume_properties.hpp"

namespace rbdvolume::bus {

namespace {

/* The new value of `wanted` in a PropertiesChanged signal (s a{sv} as); nullopt when it has none. */
int readProperty(sd_bus_message *message, const char *wanted, std::optional<std::string> &value)
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
		if (std::strcmp(property, wanted) == 0) {
			const char *text = nullptr;
			r = sd_bus_message_read(message, "v", "s", &text);
			if (r < 0)
				return r;
			value = text != nullptr ? text : "";
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
		const auto *watched = static_cast<const PropertyWatch::Watched *>(userdata);
		std::optional<std::string> value;
		if (readProperty(message, watched->property, value) < 0 || !value)
			return 0;
		watched->callback(nameOfPath(sd_bus_message_get_path(message)), *value);
	} catch (const std::bad_alloc &) {
		return -ENOMEM;
	} catch (...) {
		return -EIO;
	}
	return 0;
}

} /* namespace */

PropertyWatch::PropertyWatch(SlotPtr slot, std::unique_ptr<Watched> watched)
	: watched_(std::move(watched)), slot_(std::move(slot))
{
}

Result<PropertyWatch> PropertyWatch::start(sd_bus *bus, const std::string &sender,
					   const std::string &objectPath, const char *property,
					   PropertyCallback callback)
{
	std::string rule = "type='signal',sender='" + sender + "',interface='" +
			   PropertiesInterface + "',member='PropertiesChanged',arg0='" +
			   VolumeInterface + "',";
	if (objectPath.empty())
		rule += std::string("path_namespace='") + VolumePathPrefix + "'";
	else
		rule += "path='" + objectPath + "'";

	auto owned = std::make_unique<Watched>(Watched{ property, std::move(callback) });
	sd_bus_slot *slot = nullptr;
	const int r = sd_bus_add_match(bus, &slot, rule.c_str(), onPropertiesChanged, owned.get());
	if (r < 0)
		return tl::make_unexpected(
			errorFromErrno(r, std::string("cannot watch the volumes' ") + property));
	return PropertyWatch(SlotPtr(slot), std::move(owned));
}

} /* namespace rbdvolume::bus */
