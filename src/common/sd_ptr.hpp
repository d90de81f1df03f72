/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Owning pointers for sd-bus and sd-event objects, and an sd_bus_error freed
 * with its scope. For what links libsystemd: bus, daemon, cli, csi.
 */
#pragma once

#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "common/c_handle.hpp"

namespace rbdvolume {

/* A connection is flushed before it closes: replies and signals queued still go out. */
using BusPtr = CHandle<sd_bus, sd_bus_flush_close_unref>;
using MessagePtr = CHandle<sd_bus_message, sd_bus_message_unref>;
using SlotPtr = CHandle<sd_bus_slot, sd_bus_slot_unref>;
using CredsPtr = CHandle<sd_bus_creds, sd_bus_creds_unref>;
using EventPtr = CHandle<sd_event, sd_event_unref>;
/* A source is disabled as it goes: its callback never runs after its owner. */
using SourcePtr = CHandle<sd_event_source, sd_event_source_disable_unref>;

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
