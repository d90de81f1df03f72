/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Owning pointers for sd-bus and sd-event objects, and an sd_bus_error freed
 * with its scope. Only src/daemon and src/cli include it: they link libsystemd.
 */
#pragma once

#include <memory>

#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

namespace rbdvolume {

struct BusUnref {
	void operator()(sd_bus *bus) const { sd_bus_flush_close_unref(bus); }
};
struct MessageUnref {
	void operator()(sd_bus_message *message) const { sd_bus_message_unref(message); }
};
struct SlotUnref {
	void operator()(sd_bus_slot *slot) const { sd_bus_slot_unref(slot); }
};
struct EventUnref {
	void operator()(sd_event *event) const { sd_event_unref(event); }
};
struct SourceUnref {
	void operator()(sd_event_source *source) const { sd_event_source_disable_unref(source); }
};

using BusPtr = std::unique_ptr<sd_bus, BusUnref>;
using MessagePtr = std::unique_ptr<sd_bus_message, MessageUnref>;
using SlotPtr = std::unique_ptr<sd_bus_slot, SlotUnref>;
using EventPtr = std::unique_ptr<sd_event, EventUnref>;
using SourcePtr = std::unique_ptr<sd_event_source, SourceUnref>;

/* An sd_bus_error that frees itself. */
class ScopedBusError
{
public:
	ScopedBusError() = default;
	~ScopedBusError() { sd_bus_error_free(&error_); }
	ScopedBusError(const ScopedBusError &) = delete;
	ScopedBusError &operator=(const ScopedBusError &) = delete;
	ScopedBusError(ScopedBusError &&) = delete;
	ScopedBusError &operator=(ScopedBusError &&) = delete;

	sd_bus_error *get() { return &error_; }
	bool isSet() const { return sd_bus_error_is_set(&error_) != 0; }
	const char *name() const { return error_.name != nullptr ? error_.name : ""; }
	const char *message() const { return error_.message != nullptr ? error_.message : ""; }

private:
	sd_bus_error error_{}; /* SD_BUS_ERROR_NULL, which is a C compound literal */
};

} /* namespace rbdvolume */
