/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "daemon/event_sources.hpp"

#include <cstdint>
#include <ctime>
#include <utility>

#include "common/errno_text.hpp"

namespace rbdvolume::daemon {

namespace {

Result<void> check(int r, const char *what)
{
	if (r < 0)
		return failErrno(std::string(what), -r);
	return {};
}

} /* namespace */

DeferredCall::DeferredCall(sd_event *event, std::function<void()> call)
	: event_(event), call_(std::move(call))
{
}

Result<void> DeferredCall::schedule()
{
	if (!source_) {
		sd_event_source *source = nullptr;
		if (auto r = check(sd_event_add_defer(event_, &source, onDefer, this),
				   "cannot add a deferred call");
		    !r)
			return r;
		source_.reset(source);
	}
	return check(sd_event_source_set_enabled(source_.get(), SD_EVENT_ONESHOT),
		     "cannot schedule a deferred call");
}

int DeferredCall::onDefer(sd_event_source * /*source*/, void *self)
{
	static_cast<DeferredCall *>(self)->call_();
	return 0;
}

Result<void> OneShotTimer::arm(sd_event *event, std::chrono::microseconds delay,
			       std::chrono::microseconds accuracy, std::function<void()> fire)
{
	uint64_t now = 0;
	(void)sd_event_now(event, CLOCK_MONOTONIC, &now);
	const uint64_t at = now + static_cast<uint64_t>(delay.count());
	fire_ = std::move(fire);
	if (!source_) {
		sd_event_source *source = nullptr;
		if (auto r = check(sd_event_add_time(event, &source, CLOCK_MONOTONIC, at,
						     static_cast<uint64_t>(accuracy.count()),
						     onTime, this),
				   "cannot add a timer");
		    !r)
			return r;
		source_.reset(source);
	} else if (auto r =
			   check(sd_event_source_set_time(source_.get(), at), "cannot set a timer");
		   !r) {
		return r;
	}
	if (auto r = check(sd_event_source_set_enabled(source_.get(), SD_EVENT_ONESHOT),
			   "cannot arm a timer");
	    !r)
		return r;
	armed_ = true;
	return {};
}

void OneShotTimer::cancel()
{
	if (source_)
		(void)sd_event_source_set_enabled(source_.get(), SD_EVENT_OFF);
	armed_ = false;
}

int OneShotTimer::onTime(sd_event_source * /*source*/, uint64_t /*usec*/, void *self)
{
	auto &timer = *static_cast<OneShotTimer *>(self);
	timer.armed_ = false;
	/* A copy: the call may arm this timer again, or end its owner's volume. */
	const std::function<void()> fire = timer.fire_;
	fire();
	return 0;
}

} /* namespace rbdvolume::daemon */
