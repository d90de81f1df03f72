/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The scenes behind the golden plans in tests/data/plans, each reached through FakeWorld. */
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine_rig.hpp"

namespace rbdvolume::testing {

struct PlanScenario {
	std::string name; /* tests/data/plans/NAME.plan */
	std::function<std::unique_ptr<Rig>()> make;
};

const std::vector<PlanScenario> &planScenarios();

} /* namespace rbdvolume::testing */
