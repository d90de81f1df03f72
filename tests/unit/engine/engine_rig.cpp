/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "engine_rig.hpp"

namespace rbdvolume::testing {

Result<PassOutcome> Rig::pass()
{
	Host host = world.host();
	auto snapshot = takeSnapshot(host);
	if (!snapshot)
		return tl::make_unexpected(snapshot.error());
	return reconcilePass(host, *snapshot, DesiredVolume{ spec, intent });
}

Result<PassOutcome> Rig::dryRun()
{
	Host host = world.host();
	auto snapshot = takeSnapshot(host);
	if (!snapshot)
		return tl::make_unexpected(snapshot.error());
	return planPass(host, *snapshot, DesiredVolume{ spec, intent });
}

std::string Rig::planText()
{
	auto outcome = dryRun();
	if (!outcome)
		return "error: " + outcome.error().message + "\n";
	return formatPlan(outcome->plan, spec);
}

unsigned Rig::converge(unsigned bound)
{
	for (unsigned n = 1; n <= bound; n++) {
		auto outcome = pass();
		if (outcome && outcome->plan.empty())
			return n;
	}
	return 0;
}

std::string describeSteps(const Plan &plan)
{
	std::string text;
	for (const Step &step : plan.steps)
		text += std::string(text.empty() ? "" : ", ") + stepName(step);
	return text;
}

} /* namespace rbdvolume::testing */
