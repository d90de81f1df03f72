/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Our LUKS mappings as sysfs shows them: name prefix, LUKS UUID, one device beneath. */
#include "host/crypt_devices.hpp"

#include <filesystem>

#include <gtest/gtest.h>

#include "fake_world.hpp"
#include "temp_dir.hpp"

namespace rbdvolume::testing {

namespace {

/* /sys/block/dm-N as the kernel lays it out: dm/{name,uuid}, ro, slaves/DEV. */
void addDm(const TempDir &sys, int index, const std::string &name, const std::string &uuid,
	   const std::vector<std::string> &slaves, bool readOnly = false)
{
	const std::string dir = "block/dm-" + std::to_string(index);
	sys.write(dir + "/dm/name", name + "\n");
	sys.write(dir + "/dm/uuid", uuid + "\n");
	sys.write(dir + "/ro", readOnly ? "1\n" : "0\n");
	std::filesystem::create_directories(sys.path() + "/" + dir + "/slaves");
	for (const std::string &slave : slaves)
		sys.write(dir + "/slaves/" + slave + "/dev", "252:0\n");
}

} /* namespace */

TEST(CryptMappings, OursAreFoundByNameAndLuksUuidWithTheDeviceTheyDecrypt)
{
	TempDir sys;
	addDm(sys, 0, "rbdv-web", "CRYPT-LUKS2-0a1b2c3d4e5f-rbdv-web", { "rbd0" });
	addDm(sys, 3, "rbdv-db", "CRYPT-LUKS2-ffeeddccbbaa-rbdv-db", { "nbd2" }, true);
	sys.write("block/rbd0/size", "2097152\n");

	const std::vector<CryptMapping> found = listCryptMappings(sys.path());
	ASSERT_EQ(found.size(), 2U);
	EXPECT_EQ(found[0], (CryptMapping{ "rbdv-db", "/dev/mapper/rbdv-db", "/dev/nbd2", true }));
	EXPECT_EQ(found[1],
		  (CryptMapping{ "rbdv-web", "/dev/mapper/rbdv-web", "/dev/rbd0", false }));
}

TEST(CryptMappings, OthersAreLeftAlone)
{
	TempDir sys;
	/* Someone's own LUKS volume, an LVM volume named like ours, a stacked mapping. */
	addDm(sys, 0, "luks-home", "CRYPT-LUKS2-0a1b2c3d-luks-home", { "sda2" });
	addDm(sys, 1, "rbdv-lv", "LVM-abcdef", { "sdb" });
	addDm(sys, 2, "rbdv-raid", "CRYPT-LUKS2-1234-rbdv-raid", { "sdc", "sdd" });
	addDm(sys, 3, "rbdv-none", "CRYPT-LUKS2-5678-rbdv-none", {});
	sys.write("block/sda/size", "1\n");

	EXPECT_TRUE(listCryptMappings(sys.path()).empty());
}

TEST(CryptMappings, AHostWithoutDeviceMapperHasNone)
{
	TempDir sys;
	EXPECT_TRUE(listCryptMappings(sys.path()).empty());
	EXPECT_TRUE(listCryptMappings(sys.path() + "/missing").empty());
}

TEST(CryptMappings, WithoutItsKeyNothingIsOpened)
{
	TempDir sys;
	FakeWorld world;
	GivenPassphrases given;
	HostCryptDevices crypt(world, given, sys.path());
	CryptRequest request;
	request.volume = "web";
	request.encryption.keyfile = sys.path() + "/missing.key";
	/* The key is read before the device is touched: no device is needed here. */
	auto opened = crypt.open(request, sys.path() + "/no-device");
	ASSERT_FALSE(opened);
	EXPECT_EQ(opened.error().code, Errc::NotFound);
	EXPECT_NE(opened.error().message.find("missing.key"), std::string::npos);
}

TEST(CryptMappings, AnOpenFindsOurMappingOverTheSameDeviceAndRefusesAnotherDevice)
{
	TempDir sys;
	addDm(sys, 0, "rbdv-web", "CRYPT-LUKS2-0a1b2c3d4e5f-rbdv-web", { "rbd0" });
	FakeWorld world;
	GivenPassphrases given;
	HostCryptDevices crypt(world, given, sys.path());
	CryptRequest request;
	request.volume = "web";
	request.encryption.keyfile = sys.path() + "/missing.key";
	auto same = crypt.open(request, "/dev/rbd0");
	ASSERT_TRUE(same) << same.error().message;
	EXPECT_EQ(*same, "/dev/mapper/rbdv-web");
	auto other = crypt.open(request, "/dev/rbd1");
	ASSERT_FALSE(other);
	EXPECT_EQ(other.error().code, Errc::Conflict);
}

} /* namespace rbdvolume::testing */
