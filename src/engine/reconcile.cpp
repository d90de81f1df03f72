/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "engine/reconcile.hpp"

#include "engine/diff.hpp"

namespace rbdvolume {

Result<PassOutcome> planPass(Host &host, const HostSnapshot &snapshot, const DesiredVolume &desired)
{
	auto observed = observeVolume(host, snapshot, desired);
	if (!observed)
		return tl::make_unexpected(observed.error());
	const VolumeDiff gaps = diff(desired, *observed);
	Plan plan = makePlan(desired, *observed, gaps);
	return PassOutcome{ std::move(*observed), std::move(plan), {} };
}

Result<PassOutcome> reconcilePass(Host &host, const HostSnapshot &snapshot,
				  const DesiredVolume &desired, const StepHook &onStep)
{
	/* Before observing: a device that lags its image would hide a grow. */
	if (desired.intent == Intent::Up)
		(void)host.mapper.followImageSize(desired.spec);
	auto pass = planPass(host, snapshot, desired);
	if (!pass)
		return pass;
	/* Forget what is gone even when nothing is left to do, so a stale record adopts nothing. */
	if (pass->observed.recordStale) {
		auto saved = host.records.save(desired.spec.name, pass->observed.owned);
		if (!saved)
			return tl::make_unexpected(saved.error());
	}
	if (pass->plan.empty())
		return pass;
	Executor executor(host, onStep);
	pass->report = executor.execute(pass->plan, desired.spec, pass->observed.owned);
	return pass;
}

} /* namespace rbdvolume */
