/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Golden plans: each scenario's formatPlan() must equal tests/data/plans/NAME.plan.
 * After an intended change of the plan or its wording, regenerate the files with
 *	RBDV_UPDATE_GOLDEN=1 meson test -C BUILD engine
 * and read every diff before committing it.
 */
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "plan_scenarios.hpp"
#include "read_text.hpp"

namespace rbdvolume::testing {

namespace {

std::string goldenPath(const std::string &name)
{
	const char *dir = std::getenv("RBDV_TEST_DATA");
	return std::string(dir ? dir : "tests/data") + "/plans/" + name + ".plan";
}

bool updating()
{
	const char *update = std::getenv("RBDV_UPDATE_GOLDEN");
	return update && std::string(update) == "1";
}

/* The golden plan; a missing one reads as a line that says so. */
std::string golden(const std::string &path)
{
	if (!std::filesystem::exists(path))
		return "(missing " + path + ")";
	return readText(path);
}

} /* namespace */

/* gtest prints a parameter through this; without it, as raw bytes. It is
 * found by argument-dependent lookup, which an anonymous namespace hides. */
// NOLINTBEGIN(misc-use-internal-linkage)
void PrintTo(const PlanScenario &scenario, std::ostream *out);
void PrintTo(const PlanScenario &scenario, std::ostream *out)
{
	*out << scenario.name;
}
// NOLINTEND(misc-use-internal-linkage)

namespace {

class GoldenPlan : public ::testing::TestWithParam<PlanScenario>
{
};

TEST_P(GoldenPlan, MatchesFile)
{
	const PlanScenario &scenario = GetParam();
	auto rig = scenario.make();
	const std::string actual = rig->planText();
	const std::string path = goldenPath(scenario.name);
	if (updating()) {
		std::ofstream(path) << actual;
		GTEST_SKIP() << "rewrote " << path;
	}
	EXPECT_EQ(actual, golden(path)) << "scene:\n" << rig->world.describe();
}

/* A dry run changes nothing: printing the plan twice gives the same plan. */
TEST_P(GoldenPlan, DryRunChangesNothing)
{
	auto rig = GetParam().make();
	const std::string before = rig->world.describe();
	const size_t logSize = rig->world.log().size();
	const std::string first = rig->planText();
	EXPECT_EQ(rig->planText(), first);
	EXPECT_EQ(rig->world.describe(), before);
	EXPECT_EQ(rig->world.log().size(), logSize);
}

std::string testName(const ::testing::TestParamInfo<PlanScenario> &scenario)
{
	std::string name = scenario.param.name;
	for (char &c : name)
		c = c == '-' ? '_' : c;
	return name;
}

INSTANTIATE_TEST_SUITE_P(Scenarios, GoldenPlan, ::testing::ValuesIn(planScenarios()), testName);

bool isTeardown(const Step &step)
{
	return std::holds_alternative<UnmountStep>(step) || std::holds_alternative<UnmapStep>(step);
}

/* The rules every plan keeps, checked over every scenario rather than by eye alone. */
TEST(PlanRules, TeardownBeforeSetupInEveryScenario)
{
	for (const PlanScenario &scenario : planScenarios()) {
		SCOPED_TRACE(scenario.name);
		auto rig = scenario.make();
		auto outcome = rig->dryRun();
		ASSERT_TRUE(outcome);
		const std::vector<Step> &steps = outcome->plan.steps;
		bool setupSeen = false;
		for (const Step &step : steps) {
			if (!isTeardown(step))
				setupSeen = true;
			else
				EXPECT_FALSE(setupSeen)
					<< "teardown after setup: " << describeSteps(outcome->plan);
		}
	}
}

TEST(PlanRules, NeverFormatsASignatureNorTouchesWhatIsForeignAndConverges)
{
	for (const PlanScenario &scenario : planScenarios()) {
		SCOPED_TRACE(scenario.name);
		auto rig = scenario.make();
		auto outcome = rig->dryRun();
		ASSERT_TRUE(outcome);
		const ObservedVolume &seen = outcome->observed;
		for (const Step &step : outcome->plan.steps) {
			if (std::holds_alternative<FormatStep>(step)) {
				EXPECT_TRUE(seen.probe.kind == ProbeKind::Blank ||
					    seen.probe.kind == ProbeKind::Unprobed)
					<< "format planned over a signature";
			}
			if (const auto *unmount = std::get_if<UnmountStep>(&step)) {
				const ObservedMount *mount = unmount->staging
								     ? &*seen.staging
								     : seen.target(unmount->path);
				ASSERT_NE(mount, nullptr) << unmount->path;
				EXPECT_TRUE(mount->ours)
					<< "unmount of a foreign mount on " << unmount->path;
			}
			if (const auto *unmap = std::get_if<UnmapStep>(&step)) {
				EXPECT_TRUE(seen.mappingIsOurs());
				EXPECT_EQ(unmap->device, seen.mapping->device);
			}
		}
		/* And running it leads to an empty plan, with no data-safety violation on the way. */
		EXPECT_NE(rig->converge(), 0U) << rig->world.describe();
		EXPECT_TRUE(rig->world.violations().empty()) << rig->world.describe();
	}
}

} /* namespace */

} /* namespace rbdvolume::testing */
