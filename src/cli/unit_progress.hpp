/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * While `rbd-volumectl up` or `down` runs as rbd-volume@NAME.service's
 * ExecStart= or ExecStop=, systemd's start and stop timeouts must not end a
 * wait the daemon still works on: a first mkfs of a large image outlasts
 * any fixed TimeoutStartSec=. Each new step of the volume, and a heartbeat
 * while one lasts, extend the unit's timeout (EXTEND_TIMEOUT_USEC) and put
 * the step in the unit's status: "format ext4 /dev/rbd0, 40 s". The daemon
 * bounds every step it takes, so the wait it is extended for is bounded too.
 */
#pragma once

#include <chrono>
#include <memory>
#include <string>

namespace rbdvolume::cli {

class UnitProgress
{
public:
	using Clock = std::chrono::steady_clock;

	/* How often the wait tells systemd it goes on, and for how long each time. */
	static constexpr std::chrono::seconds HeartbeatEvery{ 10 };
	static constexpr std::chrono::seconds Extension{ 30 };

	/* Null unless systemd runs us with a notify socket (NotifyAccess=main). */
	static std::shared_ptr<UnitProgress> fromEnvironment();

	/* The volume began a step ("" between steps). */
	void activity(const std::string &text);
	/* The wait goes on. */
	void heartbeat() const;

	/* What goes to systemd now: the extension, and the step with its time so far. */
	std::string message(Clock::time_point now) const;

private:
	std::string activity_;
	Clock::time_point since_ = Clock::now();
};

} /* namespace rbdvolume::cli */
