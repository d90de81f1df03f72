/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Owning pointers for sd-bus and sd-event objects, and an sd_bus_error freed with its scope. */
#pragma once

#include <memory>

#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

namespace rbdvolume::cli {

struct SdBusDeleter {
	void operator()(sd_bus *bus) const { sd_bus_flush_close_unref(bus); }
};
struct SdMessageDeleter {
	void operator()(sd_bus_message *message) const { sd_bus_message_unref(message); }
};
struct SdSlotDeleter {
	void operator()(sd_bus_slot *slot) const { sd_bus_slot_unref(slot); }
};
struct SdEventDeleter {
	void operator()(sd_event *event) const { sd_event_unref(event); }
};
struct SdEventSourceDeleter {
	void operator()(sd_event_source *source) const { sd_event_source_disable_unref(source); }
};

using SdBusPtr = std::unique_ptr<sd_bus, SdBusDeleter>;
using SdMessagePtr = std::unique_ptr<sd_bus_message, SdMessageDeleter>;
using SdSlotPtr = std::unique_ptr<sd_bus_slot, SdSlotDeleter>;
using SdEventPtr = std::unique_ptr<sd_event, SdEventDeleter>;
using SdEventSourcePtr = std::unique_ptr<sd_event_source, SdEventSourceDeleter>;

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

} /* namespace rbdvolume::cli */
