/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* While a call waits: each new Activity of a volume, printed on stderr as "NAME: ACTIVITY". */
#pragma once

#include <memory>
#include <string>

#include <systemd/sd-bus.h>

#include "common/result.hpp"
#include "common/sd_ptr.hpp"

namespace rbdvolume::cli {

class ProgressWatch
{
public:
	/*
	 * Watches PropertiesChanged from `sender` (a unique bus name) on the volume
	 * object `objectPath`, printed as `name`; with an empty `objectPath`, on
	 * every volume object, each printed under its own name.
	 */
	static Result<ProgressWatch> start(sd_bus *bus, const std::string &sender,
					   const std::string &objectPath, const std::string &name);

	ProgressWatch() = default;

private:
	ProgressWatch(SlotPtr slot, std::unique_ptr<std::string> name);

	/* The name lives on the heap: the match callback holds its address. */
	std::unique_ptr<std::string> name_;
	SlotPtr slot_;
};

} /* namespace rbdvolume::cli */
