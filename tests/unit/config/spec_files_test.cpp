/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The spec corpus: every invalid spec gives exactly the diagnostics it declares, valid ones none. */
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "config/spec_parser.hpp"
#include "read_text.hpp"
#include "spec_test_support.hpp"

namespace rbdvolume {

namespace {

constexpr std::string_view ExpectPrefix = "# expect: ";

/*
 * The leading comment lines "# expect: LINE:COL: FIELD: MESSAGE" of a spec,
 * made into what Diagnostic::format() prints for it: the file path, then
 * ':' before a position or ": " before a file-level message.
 */
std::vector<std::string> expectedDiagnostics(const std::string &path)
{
	std::vector<std::string> expected;
	std::istringstream text(testing::readText(path));
	std::string line;
	while (std::getline(text, line) && line.starts_with('#')) {
		if (!line.starts_with(ExpectPrefix))
			continue;
		const std::string what = line.substr(ExpectPrefix.size());
		const bool located = !what.empty() && what.front() >= '0' && what.front() <= '9';
		expected.push_back(path + (located ? ":" : ": ") + what);
	}
	return expected;
}

std::vector<std::string> formatted(const std::vector<Diagnostic> &diagnostics)
{
	std::vector<std::string> lines;
	lines.reserve(diagnostics.size());
	for (const Diagnostic &diagnostic : diagnostics)
		lines.push_back(diagnostic.format());
	return lines;
}

std::string specDir(const char *kind)
{
	return test::testDataDir() + "/specs/" + kind;
}

} /* namespace */

TEST(SpecFiles, InvalidSpecsGiveExactlyTheirExpectedDiagnostics)
{
	const std::vector<std::string> files = test::filesIn(specDir("invalid"));
	ASSERT_GE(files.size(), 30U) << "too few invalid specs in " << specDir("invalid");
	for (const std::string &file : files) {
		SCOPED_TRACE(file);
		const std::vector<std::string> expected = expectedDiagnostics(file);
		ASSERT_FALSE(expected.empty()) << "an invalid spec declares its '# expect:' lines";
		const SpecOutcome outcome = loadVolumeSpec(file);
		EXPECT_FALSE(outcome.ok());
		EXPECT_EQ(formatted(outcome.diagnostics), expected);
	}
}

TEST(SpecFiles, InvalidSpecsAreRejectedAsTextToo)
{
	/* parseVolumeSpec and loadVolumeSpec agree: reading the file adds nothing. */
	for (const std::string &file : test::filesIn(specDir("invalid"))) {
		SCOPED_TRACE(file);
		EXPECT_EQ(formatted(parseVolumeSpec(testing::readText(file), file).diagnostics),
			  formatted(loadVolumeSpec(file).diagnostics));
	}
}

TEST(SpecFiles, ValidSpecsParseWithoutDiagnostics)
{
	const std::vector<std::string> files = test::filesIn(specDir("valid"));
	ASSERT_GE(files.size(), 6U);
	for (const std::string &file : files) {
		SCOPED_TRACE(file);
		const SpecOutcome outcome = loadVolumeSpec(file);
		EXPECT_EQ(formatted(outcome.diagnostics), std::vector<std::string>{});
		EXPECT_EQ(outcome.spec.sourceFile, file);
	}
}

TEST(SpecFiles, ExampleSpecParsesWithoutDiagnostics)
{
	const std::string file = test::exampleSpecPath();
	ASSERT_FALSE(testing::readText(file).empty()) << "cannot read " << file;
	const SpecOutcome outcome = loadVolumeSpec(file);
	EXPECT_EQ(formatted(outcome.diagnostics), std::vector<std::string>{});
	EXPECT_EQ(outcome.spec.name, "example");
	/* The example shows every key, so it sets every optional part. */
	EXPECT_TRUE(outcome.spec.image.create.has_value());
	EXPECT_FALSE(outcome.spec.cluster.monitors.empty());
	EXPECT_FALSE(outcome.spec.map.krbdOptions.empty());
	EXPECT_FALSE(outcome.spec.map.nbdOptions.empty());
	EXPECT_FALSE(outcome.spec.staging.options.empty());
	EXPECT_EQ(outcome.spec.publish.size(), 2U);
}

} /* namespace rbdvolume */
