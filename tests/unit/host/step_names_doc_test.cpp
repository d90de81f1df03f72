/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Every RBDV_STEP a journal line can carry is in operations.md's table of fields. */
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "engine/plan.hpp"
#include "host/key_rotation.hpp"
#include "read_text.hpp"

namespace rbdvolume::testing {
namespace {

template<size_t... Kind> std::vector<std::string> stepNames(std::index_sequence<Kind...> /*kinds*/)
{
	return { stepName(Step{ std::in_place_index<Kind> })... };
}

/* The table row of RBDV_STEP in docs/operations.md. */
std::string documentedSteps()
{
	const char *data = std::getenv("RBDV_TEST_DATA"); /* NOLINT(concurrency-mt-unsafe) */
	EXPECT_NE(data, nullptr) << "meson sets RBDV_TEST_DATA";
	const std::string text =
		readText(std::string(data ? data : ".") + "/../../docs/operations.md");
	const size_t row = text.find("\n| `RBDV_STEP` |");
	if (row == std::string::npos)
		return {};
	return text.substr(row, text.find('\n', row + 1) - row);
}

TEST(StepNames, EachIsDocumented)
{
	const std::string documented = documentedSteps();
	ASSERT_FALSE(documented.empty()) << "no RBDV_STEP row in docs/operations.md";
	std::vector<std::string> names =
		stepNames(std::make_index_sequence<std::variant_size_v<Step>>{});
	for (const RotationStep step : RotationSteps)
		names.push_back(std::string("rotate-key-") + rotationStepName(step));
	for (const std::string &name : names)
		EXPECT_NE(documented.find("`" + name + "`"), std::string::npos)
			<< name << " is missing from operations.md's RBDV_STEP row";
}

} /* namespace */
} /* namespace rbdvolume::testing */
