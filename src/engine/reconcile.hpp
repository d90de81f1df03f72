/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* One reconcile pass for one volume: observe, diff, plan, and (unless dry) execute. */
#pragma once

#include "common/result.hpp"
#include "engine/executor.hpp"
#include "engine/observer.hpp"
#include "engine/plan.hpp"

namespace rbdvolume {

struct PassOutcome {
	ObservedVolume observed;
	Plan plan;
	ExecutionReport report; /* empty for a dry run or an empty plan */
};

/* Observe and plan only: never changes the host (`rbd-volumectl plan`). */
Result<PassOutcome> planPass(Host &host, const HostSnapshot &snapshot,
			     const DesiredVolume &desired);

/*
 * Whether a pass first tells a mapped device that does not follow its image
 * by itself (fuse's loop) to catch up. A pass right after one that mapped or
 * followed it can skip that: the device is as fresh as it gets, and telling
 * it costs a unit reload (a PID 1 job and a process) per volume.
 */
enum class SizeFollow { Follow, Skip };

/* Observe, save the tidied record when it changed, plan and execute. */
Result<PassOutcome> reconcilePass(Host &host, const HostSnapshot &snapshot,
				  const DesiredVolume &desired, const StepHook &onStep = {},
				  const StepDoneHook &onDone = {},
				  SizeFollow follow = SizeFollow::Follow);

} /* namespace rbdvolume */
