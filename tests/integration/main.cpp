/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The integration suite's main: real loop devices, mkfs and mounts, contained.
 * Before any test it enters a private mount namespace with "/" made private,
 * mounts a tmpfs for scratch files and points libmount's utab at it, so no
 * mount, file or utab line outlives the process. Without root or loop
 * devices it exits 77 (meson: SKIP) — unless RBDV_REQUIRE_INTEGRATION=1, as
 * in CI, where that is a failure.
 */
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <sched.h>
#include <string>
#include <unistd.h>

#include <sys/mount.h>

#include <gtest/gtest.h>

#include "common/errno_text.hpp"
#include "integration_env.hpp"

namespace {

constexpr int ExitSkip = 77;

int cannotRun(const std::string &why)
{
	const char *required = std::getenv("RBDV_REQUIRE_INTEGRATION");
	const bool mustRun = required && std::string(required) == "1";
	std::fprintf(stderr, "integration suite %s: %s\n", mustRun ? "FAILED" : "skipped",
		     why.c_str());
	return mustRun ? EXIT_FAILURE : ExitSkip;
}

} /* namespace */

int main(int argc, char **argv)
{
	::testing::InitGoogleTest(&argc, argv);

	if (geteuid() != 0)
		return cannotRun("needs root for loop devices and mounts");
	if (access("/dev/loop-control", R_OK | W_OK) != 0)
		return cannotRun("no /dev/loop-control");
	if (unshare(CLONE_NEWNS) != 0)
		return cannotRun(std::string("unshare(CLONE_NEWNS): ") +
				 rbdvolume::errnoText(errno));
	if (mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0)
		return cannotRun(std::string("making / private: ") + rbdvolume::errnoText(errno));

	const std::string error = rbdvolume::testing::setUpScratch();
	if (!error.empty())
		return cannotRun(error);

	const int result = RUN_ALL_TESTS();
	rbdvolume::testing::tearDownScratch();
	return result;
}
