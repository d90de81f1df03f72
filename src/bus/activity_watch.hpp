/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* While a call waits: each new Activity of a volume, handed to a callback as it comes. */
#pragma once

#include <functional>
#include <memory>
#include <string>

#include <systemd/sd-bus.h>

#include "common/result.hpp"
#include "common/sd_ptr.hpp"

namespace rbdvolume::bus {

/* A volume's name and its new Activity (the host's bytes, unescaped). */
using ActivityCallback = std::function<void(const std::string &name, const std::string &activity)>;

class ActivityWatch
{
public:
	/*
	 * Watches PropertiesChanged from `sender` (a unique bus name) on the
	 * volume object `objectPath`, or on every volume object when it is "".
	 */
	static Result<ActivityWatch> start(sd_bus *bus, const std::string &sender,
					   const std::string &objectPath,
					   ActivityCallback callback);

	ActivityWatch() = default;

private:
	ActivityWatch(SlotPtr slot, std::unique_ptr<ActivityCallback> callback);

	/* On the heap: the match holds its address. */
	std::unique_ptr<ActivityCallback> callback_;
	SlotPtr slot_;
};

} /* namespace rbdvolume::bus */
