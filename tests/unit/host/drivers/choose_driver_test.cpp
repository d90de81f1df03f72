/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* How "auto" picks a driver from what the (fake) sysfs shows. */
#include "host/drivers/choose_driver.hpp"

#include <filesystem>

#include <gtest/gtest.h>

#include "fake_host.hpp"

namespace rbdvolume::testing {
namespace {

TEST(ChooseDriver, AnExplicitDriverIsKept)
{
	const TempDir root;
	std::filesystem::create_directories(root.path() + "/sys/bus/rbd");
	for (const Driver driver : { Driver::Krbd, Driver::Nbd, Driver::Fuse })
		EXPECT_EQ(chooseDriver(rootsIn(root), driver), driver);
}

TEST(ChooseDriver, AutoPrefersKrbdThenNbdThenFuse)
{
	const TempDir root;
	const SystemRoots roots = rootsIn(root);
	EXPECT_EQ(chooseDriver(roots, Driver::Auto), Driver::Fuse);
	std::filesystem::create_directories(root.path() + "/sys/module/nbd/parameters");
	EXPECT_EQ(chooseDriver(roots, Driver::Auto), Driver::Nbd);
	std::filesystem::create_directories(root.path() + "/sys/bus/rbd/devices");
	EXPECT_EQ(chooseDriver(roots, Driver::Auto), Driver::Krbd);
	std::filesystem::remove_all(root.path() + "/sys/module/nbd");
	EXPECT_EQ(chooseDriver(roots, Driver::Auto), Driver::Krbd);
}

TEST(ChooseDriver, AFileIsNoModule)
{
	const TempDir root;
	root.write("sys/module/nbd", "");
	EXPECT_EQ(chooseDriver(rootsIn(root), Driver::Auto), Driver::Fuse);
}

} /* namespace */
} /* namespace rbdvolume::testing */
