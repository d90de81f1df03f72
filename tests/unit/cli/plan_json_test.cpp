/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* `plan --json`: the plan's steps and conflicts as one line of JSON. */
#include "cli/plan_json.hpp"

#include <string>

#include <gtest/gtest.h>

#include "config/spec_parser.hpp"

namespace rbdvolume::cli {

namespace {

VolumeSpec sampleSpec()
{
	const SpecOutcome outcome = parseVolumeSpec("[image]\n"
						    "pool = \"rbd\"\n"
						    "name = \"db\"\n"
						    "[[publish]]\n"
						    "path = \"/srv/db\"\n",
						    "/etc/rbd-volume/volumes/db.toml");
	EXPECT_TRUE(outcome.ok()) << (outcome.diagnostics.empty()
					      ? std::string()
					      : outcome.diagnostics.front().format());
	return outcome.spec;
}

TEST(PlanJson, EachStepByNameAndLineEachConflictByKind)
{
	const VolumeSpec spec = sampleSpec();
	Plan plan;
	plan.volume = "db";
	plan.intent = Intent::Up;
	plan.steps = { MapStep{}, PublishStep{ "/srv/db" } };
	plan.conflicts = { { ConflictKind::UnknownData, "/dev/rbd0", "not blank: \"x\"\n" } };
	EXPECT_EQ(formatPlanJson(plan, spec),
		  "{\"volume\":\"db\",\"intent\":\"up\",\"steps\":["
		  "{\"step\":\"map\",\"text\":" +
			  std::string("\"") + formatStep(plan.steps[0], spec) +
			  "\"},"
			  "{\"step\":\"publish\",\"text\":\"" +
			  formatStep(plan.steps[1], spec) +
			  "\"}],"
			  "\"conflicts\":[{\"kind\":\"unknown-data\",\"subject\":\"/dev/rbd0\","
			  "\"detail\":\"not blank: \\\"x\\\"\\n\"}]}\n");
}

TEST(PlanJson, AConvergedPlanHasEmptyLists)
{
	Plan plan;
	plan.volume = "db";
	plan.intent = Intent::Down;
	EXPECT_EQ(formatPlanJson(plan, sampleSpec()),
		  "{\"volume\":\"db\",\"intent\":\"down\",\"steps\":[],\"conflicts\":[]}\n");
}

} /* namespace */

} /* namespace rbdvolume::cli */
