/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Included first in every test translation unit (the gtest dependency in
 * meson.build adds -include). It changes nothing but what clang's static
 * analyzer sees: clang-tidy runs it with __clang_analyzer__ defined.
 *
 * Every EXPECT and ASSERT splits the analyzer's path in two, passed and
 * failed, and gtest's failure reporting keeps the two states apart, so a test
 * body of a dozen expectations holds thousands of paths: the analyzer spent
 * about two seconds on each such body and stopped at its node budget before
 * it had walked them all. Here, as clang's documentation advises for
 * assertion handlers, a failure (EXPECT_*, ASSERT_*, ADD_FAILURE, FAIL) ends
 * its path; SUCCEED and GTEST_SKIP are left alone. Every statement of a test
 * is still analyzed, along the paths on which the test passes. */
#pragma once

#include <gtest/gtest.h>

#ifdef __clang_analyzer__
namespace rbdvolume::testing {
/* A failure as the analyzer sees it: its message is built, then the path ends.
 * An assignment, as gtest's AssertHelper, so that the message's '<<' binds first. */
struct AnalyzerFailure {
	// NOLINTNEXTLINE(misc-unconventional-assign-operator)
	[[noreturn]] void operator=(const ::testing::Message &message) const;
};
} /* namespace rbdvolume::testing */

/* gtest's own hooks, so they keep gtest's names and stay macros. */
#undef GTEST_FATAL_FAILURE_
// NOLINTNEXTLINE(cppcoreguidelines-macro-usage,readability-identifier-naming)
#define GTEST_FATAL_FAILURE_(message)                                                              \
	return ::rbdvolume::testing::AnalyzerFailure{} = ::testing::Message()
#undef GTEST_NONFATAL_FAILURE_
// NOLINTNEXTLINE(cppcoreguidelines-macro-usage,readability-identifier-naming)
#define GTEST_NONFATAL_FAILURE_(message)                                                           \
	::rbdvolume::testing::AnalyzerFailure{} = ::testing::Message()
#endif
