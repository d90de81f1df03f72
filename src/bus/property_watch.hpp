/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Each new value of one string property of the volumes (Activity, Phase), handed to a callback as it comes. */
#pragma once

#include <functional>
#include <memory>
#include <string>

#include <systemd/sd-bus.h>

#include "common/result.hpp"
#include "common/sd_ptr.hpp"

namespace rbdvolume::bus {

/* A volume's name and the property's new value (the host's bytes, unescaped). */
using PropertyCallback = std::function<void(const std::string &name, const std::string &value)>;

class PropertyWatch
{
public:
	/*
	 * Watches PropertiesChanged from `sender` (a unique bus name, or
	 * org.rbdvolume1 to follow whichever daemon owns it) on the volume object
	 * `objectPath`, or on every volume object when it is "", for the string
	 * property `property`. A signal that names it without its value (the
	 * daemon sends only some that way) is not handed on.
	 */
	static Result<PropertyWatch> start(sd_bus *bus, const std::string &sender,
					   const std::string &objectPath, const char *property,
					   PropertyCallback callback);

	PropertyWatch() = default;

	/* What the match's callback is given. */
	struct Watched {
		const char *property;
		PropertyCallback callback;
	};

private:
	PropertyWatch(SlotPtr slot, std::unique_ptr<Watched> watched);

	/* On the heap: the match holds its address. */
	std::unique_ptr<Watched> watched_;
	SlotPtr slot_;
};

} /* namespace rbdvolume::bus */
