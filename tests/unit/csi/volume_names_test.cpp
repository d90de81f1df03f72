/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* CSI volume IDs to rbd-volume names, and the ID recorded to catch collisions. */
#include "csi/volume_names.hpp"

#include <gtest/gtest.h>

#include "common/volume_name.hpp"
#include "config/spec_values.hpp"
#include "csi/request_checks.hpp"
#include "csi/runtime_files.hpp"
#include "temp_dir.hpp"

namespace rbdvolume::testing {

namespace {

TEST(VolumeNames, StableValidAndDistinct)
{
	const std::string id =
		"0001-0009-rook-ceph-0000000000000002-b0285c97-a0ce-11eb-8c66-0242ac110005";
	const std::string name = csi::volumeNameFor(id);
	EXPECT_EQ(name, csi::volumeNameFor(id));
	EXPECT_EQ(name.size(), 20U);
	EXPECT_TRUE(name.starts_with("csi_"));
	EXPECT_TRUE(isValidVolumeName(name)) << name;
	/* FNV-1a of "" is its offset basis: the hash is the documented one, not std::hash. */
	EXPECT_EQ(csi::volumeNameFor(""), "csi_cbf29ce484222325");
	EXPECT_NE(csi::volumeNameFor(id + "x"), name);
	EXPECT_NE(csi::volumeNameFor("a"), csi::volumeNameFor("b"));
}

/* The shim takes what a spec's volume-id may hold: the two never disagree. */
TEST(VolumeNames, VolumeIdsFollowTheSpecsRule)
{
	EXPECT_TRUE(csi::checkVolumeId("pvc-1"));
	EXPECT_TRUE(csi::checkVolumeId(std::string(128, 'a')));
	EXPECT_EQ(csi::checkVolumeId("").error().message, "volume_id is required");
	for (const std::string &id :
	     { std::string(129, 'a'), std::string("a b"), std::string("a\nb") }) {
		const auto checked = csi::checkVolumeId(id);
		ASSERT_FALSE(checked) << id;
		EXPECT_EQ(checked.error().code, Errc::InvalidArgument);
		EXPECT_EQ(checked.error().message, "volume_id: " + *volumeIdProblem(id));
	}
}

TEST(VolumeNames, ACollidingIdIsRefusedNotMixed)
{
	TempDir dir;
	const csi::RuntimeFiles files(dir.path());
	ASSERT_TRUE(files.claimName("csi_0000000000000001", "volume-a"));
	EXPECT_TRUE(files.claimName("csi_0000000000000001", "volume-a")) << "the same ID again";
	auto other = files.claimName("csi_0000000000000001", "volume-b");
	ASSERT_FALSE(other);
	EXPECT_EQ(other.error().code, Errc::Conflict);
	EXPECT_NE(other.error().message.find("volume-a"), std::string::npos);
	ASSERT_TRUE(files.removeAll("csi_0000000000000001"));
	EXPECT_TRUE(files.claimName("csi_0000000000000001", "volume-b")) << "free again";
}

} /* namespace */

} /* namespace rbdvolume::testing */
