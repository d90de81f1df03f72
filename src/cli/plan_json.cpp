/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* `plan --json`: the plan as one line of JSON, for scripts. */
#include "cli/plan_json.hpp"

#include "common/text_escape.hpp"

namespace rbdvolume::cli {

std::string formatPlanJson(const Plan &plan, const VolumeSpec &spec)
{
	std::string out = "{\"volume\":" + jsonQuote(plan.volume) +
			  ",\"intent\":" + jsonQuote(intentName(plan.intent)) + ",\"steps\":[";
	for (size_t i = 0; i < plan.steps.size(); i++) {
		out += std::string(i == 0 ? "" : ",") +
		       "{\"step\":" + jsonQuote(stepName(plan.steps[i])) +
		       ",\"text\":" + jsonQuote(formatStep(plan.steps[i], spec)) + "}";
	}
	out += "],\"conflicts\":[";
	for (size_t i = 0; i < plan.conflicts.size(); i++) {
		const Conflict &conflict = plan.conflicts[i];
		out += std::string(i == 0 ? "" : ",") +
		       "{\"kind\":" + jsonQuote(conflictKindName(conflict.kind)) +
		       ",\"subject\":" + jsonQuote(conflict.subject) +
		       ",\"detail\":" + jsonQuote(conflict.detail) + "}";
	}
	out += "]}\n";
	return out;
}

} /* namespace rbdvolume::cli */
