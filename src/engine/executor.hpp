/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Executor: runs a plan's steps on a Host, one at a time, recording what we own. */
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "engine/plan.hpp"
#include "engine/ports.hpp"

namespace rbdvolume {

struct StepOutcome {
	Step step;
	Change change = Change::Unchanged;
	std::optional<Error> error;
	bool uncertain =
		false; /* it may have happened (Error::uncertain): the next pass observes first */
	std::string device; /* the device it acted on or through; "" when none yet */
	std::string detail; /* what it did, for the record: mkfs's command line, fsck's
				   verdict, a grow's sizes, the path it mounted */
	std::chrono::microseconds duration{ 0 };
};

struct ExecutionReport {
	std::vector<StepOutcome> outcomes; /* stops at the first failure */

	bool ok() const;
	bool uncertain() const;
	const Error *firstError() const;
};

/* Told of each step just before it runs (the daemon shows it as the volume's activity). */
using StepHook = std::function<void(const Step &)>;
/* Told of each step once it is over, failed ones included (the daemon's record). */
using StepDoneHook = std::function<void(const StepOutcome &)>;

class Executor
{
public:
	explicit Executor(Host &host, StepHook onStep = {}, StepDoneHook onDone = {})
		: host_(host), onStep_(std::move(onStep)), onDone_(std::move(onDone))
	{
	}

	/*
	 * `record` is the ownership the plan was made from (observed.owned); it is
	 * updated before a step that creates something (so a timeout cannot leave
	 * an orphan) and after a step that removes something, and saved each time.
	 */
	ExecutionReport execute(const Plan &plan, const VolumeSpec &spec, Ownership record);

private:
	Host &host_;
	StepHook onStep_;
	StepDoneHook onDone_;
};

} /* namespace rbdvolume */
