/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Event sources owned by the object they call back into (systemd's
 * homed-home.h keeps its timers the same way): the source's userdata is the
 * owner's member itself, so no heap context is passed around, and the source
 * goes with its owner, never firing after it.
 */
#pragma once

#include <chrono>
#include <functional>

#include <systemd/sd-event.h>

#include "common/result.hpp"
#include "common/sd_ptr.hpp"

namespace rbdvolume::daemon {

/*
 * A call the loop makes when it next gets to it, after the current callback:
 * scheduled again before it ran, it still runs once.
 */
class DeferredCall
{
public:
	DeferredCall(sd_event *event, std::function<void()> call);
	DeferredCall(const DeferredCall &) = delete;
	DeferredCall &operator=(const DeferredCall &) = delete;
	DeferredCall(DeferredCall &&) = delete;
	DeferredCall &operator=(DeferredCall &&) = delete;
	~DeferredCall() = default;

	Result<void> schedule();

private:
	static int onDefer(sd_event_source *source, void *self);

	sd_event *event_;
	std::function<void()> call_;
	SourcePtr source_;
};

/*
 * A timer that fires once, `delay` after it was armed; armed again before
 * that, the new time counts. Cancelled or destroyed, it never fires.
 */
class OneShotTimer
{
public:
	OneShotTimer() = default;
	OneShotTimer(const OneShotTimer &) = delete;
	OneShotTimer &operator=(const OneShotTimer &) = delete;
	OneShotTimer(OneShotTimer &&) = delete;
	OneShotTimer &operator=(OneShotTimer &&) = delete;
	~OneShotTimer() = default;

	/* `accuracy` 0 is sd-event's default (250 ms): how late it may fire to batch wakeups. */
	Result<void> arm(sd_event *event, std::chrono::microseconds delay,
			 std::chrono::microseconds accuracy, std::function<void()> fire);
	void cancel();
	bool armed() const { return armed_; }

private:
	static int onTime(sd_event_source *source, uint64_t usec, void *self);

	std::function<void()> fire_;
	SourcePtr source_;
	bool armed_ = false;
};

} /* namespace rbdvolume::daemon */
