/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "daemon/log_control.hpp"

#include <cerrno>
#include <string>

#include "common/errno_text.hpp"
#include "daemon/bus_api.hpp"
#include "journal/log.hpp"

namespace rbdvolume::daemon {

namespace {

/*
 * The new value of a property being set. As every change on this bus: root
 * only, whatever the bus policy says.
 */
int readNewValue(sd_bus *bus, sd_bus_message *value, sd_bus_error *error, std::string &name)
{
	if (!senderIsRoot(sd_bus_get_current_message(bus)))
		return sd_bus_error_set(error, SD_BUS_ERROR_ACCESS_DENIED,
					"only root may change the log level or target");
	const char *text = nullptr;
	if (const int r = sd_bus_message_read(value, "s", &text); r < 0)
		return r;
	name = text != nullptr ? text : "";
	return 0;
}

const char *targetName(log::Target target)
{
	switch (target) {
	case log::Target::Journal:
		return "journal";
	case log::Target::Console:
		return "console";
	case log::Target::Auto:
		break;
	}
	return "auto";
}

int getLevel(sd_bus * /*bus*/, const char * /*path*/, const char * /*interface*/,
	     const char * /*property*/, sd_bus_message *reply, void * /*userdata*/,
	     sd_bus_error * /*error*/)
{
	return sd_bus_message_append(reply, "s", std::string(log::levelName(log::level())).c_str());
}

int setLevel(sd_bus *bus, const char *path, const char *interface, const char *property,
	     sd_bus_message *value, void * /*userdata*/, sd_bus_error *error)
{
	std::string name;
	if (const int r = readNewValue(bus, value, error, name); r < 0)
		return r;
	const std::optional<log::Level> level = log::parseLevel(name);
	if (!level)
		return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
					 "unknown log level '%s': expected emerg, alert, crit, "
					 "err, warning, notice, info or debug",
					 name.c_str());
	if (*level != log::level()) {
		log::setLevel(*level);
		log::write({ log::Level::Notice,
			     "log level set to " + std::string(log::levelName(*level)),
			     {} });
		(void)sd_bus_emit_properties_changed(bus, path, interface, property, nullptr);
	}
	return 0;
}

int getTarget(sd_bus * /*bus*/, const char * /*path*/, const char * /*interface*/,
	      const char * /*property*/, sd_bus_message *reply, void * /*userdata*/,
	      sd_bus_error * /*error*/)
{
	return sd_bus_message_append(reply, "s", targetName(log::target()));
}

int setTarget(sd_bus *bus, const char *path, const char *interface, const char *property,
	      sd_bus_message *value, void * /*userdata*/, sd_bus_error *error)
{
	std::string name;
	if (const int r = readNewValue(bus, value, error, name); r < 0)
		return r;
	if (name == "journal")
		log::setTarget(log::Target::Journal);
	else if (name == "console")
		log::setTarget(log::Target::Console);
	else if (name == "auto")
		log::setTarget(log::Target::Auto);
	else
		return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
					 "log target '%s' is not supported: expected journal, "
					 "console or auto",
					 name.c_str());
	(void)sd_bus_emit_properties_changed(bus, path, interface, property, nullptr);
	return 0;
}

int getIdentifier(sd_bus * /*bus*/, const char * /*path*/, const char * /*interface*/,
		  const char * /*property*/, sd_bus_message *reply, void * /*userdata*/,
		  sd_bus_error * /*error*/)
{
	return sd_bus_message_append(reply, "s", program_invocation_short_name);
}

const sd_bus_vtable LogControlVtable[] = {
	SD_BUS_VTABLE_START(0),
	SD_BUS_WRITABLE_PROPERTY("LogLevel", "s", getLevel, setLevel, 0,
				 SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
	SD_BUS_WRITABLE_PROPERTY("LogTarget", "s", getTarget, setTarget, 0,
				 SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
	SD_BUS_PROPERTY("SyslogIdentifier", "s", getIdentifier, 0, SD_BUS_VTABLE_PROPERTY_CONST),
	SD_BUS_VTABLE_END,
};

} /* namespace */

Result<SlotPtr> attachLogControl(sd_bus *bus)
{
	sd_bus_slot *slot = nullptr;
	if (const int r = sd_bus_add_object_vtable(bus, &slot, LogControlPath, LogControlInterface,
						   LogControlVtable, nullptr);
	    r < 0)
		return failErrno("cannot register " + std::string(LogControlInterface), -r);
	return SlotPtr(slot);
}

} /* namespace rbdvolume::daemon */
