/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "engine/reconcile.hpp"

#include <algorithm>

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

namespace {

bool isMapped(const HostSnapshot &snapshot, const ImageSpec &image)
{
	const auto &named = snapshot.mappingsNamed(image.name);
	return std::any_of(named.begin(), named.end(), [&](size_t index) {
		return mapsImage(snapshot.mappings()[index], image);
	});
}

} /* namespace */

Result<PassOutcome> reconcilePass(Host &host, const HostSnapshot &snapshot,
				  const DesiredVolume &desired, const StepHook &onStep,
				  const StepDoneHook &onDone, SizeFollow follow)
{
	/* Before observing: a mapped device that lags its image would hide a grow. */
	if (follow == SizeFollow::Follow && desired.intent == Intent::Up &&
	    isMapped(snapshot, desired.spec.image))
		(void)host.mapper.followImageSize(mapRequestOf(desired.spec));
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
	Executor executor(host, onStep, onDone);
	pass->report = executor.execute(pass->plan, desired.spec, pass->observed.owned);
	return pass;
}

} /* namespace rbdvolume */
