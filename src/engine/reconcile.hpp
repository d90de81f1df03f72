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

/* Observe, save the tidied record when it changed, plan and execute. */
Result<PassOutcome> reconcilePass(Host &host, const HostSnapshot &snapshot,
				  const DesiredVolume &desired, const StepHook &onStep = {},
				  const StepDoneHook &onDone = {});

} /* namespace rbdvolume */
