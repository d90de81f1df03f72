/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Owning pointers for libsystemd objects (their unref functions as deleters). */
#pragma once

#include <memory>

#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

namespace rbdvolume::daemon {

struct EventUnref {
	void operator()(sd_event *event) const { sd_event_unref(event); }
};
struct SourceUnref {
	/* Disabling first: a source may be shared with the loop until it runs. */
	void operator()(sd_event_source *source) const { sd_event_source_disable_unref(source); }
};
struct BusUnref {
	void operator()(sd_bus *bus) const { sd_bus_flush_close_unref(bus); }
};
struct SlotUnref {
	void operator()(sd_bus_slot *slot) const { sd_bus_slot_unref(slot); }
};
struct MessageUnref {
	void operator()(sd_bus_message *message) const { sd_bus_message_unref(message); }
};

using EventPtr = std::unique_ptr<sd_event, EventUnref>;
using SourcePtr = std::unique_ptr<sd_event_source, SourceUnref>;
using BusPtr = std::unique_ptr<sd_bus, BusUnref>;
using SlotPtr = std::unique_ptr<sd_bus_slot, SlotUnref>;
using MessagePtr = std::unique_ptr<sd_bus_message, MessageUnref>;

} /* namespace rbdvolume::daemon */
