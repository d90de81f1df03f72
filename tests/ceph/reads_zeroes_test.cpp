/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * LibrbdCluster::readsZeroes against the real cluster: the proof that lets
 * mkfs leave ext4's journal unwritten, checked against `rbd du` and against
 * images that hold one written block, directly or through their parent.
 */
#include <gtest/gtest.h>

#include "ceph_fixture.hpp"
#include "host/ceph/librbd_cluster.hpp"

namespace rbdvolume::testing {

namespace {

const std::vector<std::string> FastDiff = { "layering", "exclusive-lock", "object-map",
					    "fast-diff" };

/* `rbd du`'s used size of POOL/IMAGE, in bytes, as its JSON says. */
std::string usedBytes(const std::string &image)
{
	const std::string json = rbdAdmin({ "du", "--format", "json", image });
	constexpr std::string_view Key = "\"used_size\":";
	const size_t at = json.find(Key);
	if (at == std::string::npos)
		return "(no used_size in " + json + ")";
	const size_t end = json.find_first_of(",}", at);
	return json.substr(at + Key.size(), end - at - Key.size());
}

/* One 4 KiB write at the start of IMAGE, by rbd itself. */
void writeOneBlock(const std::string &image)
{
	rbdAdmin({ "bench", "--io-type", "write", "--io-size", "4K", "--io-total", "4K",
		   "--io-pattern", "seq", image });
}

class ReadsZeroes : public ::testing::Test
{
protected:
	VolumeSpec create(const std::string &prefix, std::vector<std::string> features)
	{
		VolumeSpec spec =
			specFor(uniqueImageName(prefix), createSpec(64 * MiB, std::move(features)));
		auto created = ceph_.ensureImage(imageRequestOf(spec));
		EXPECT_TRUE(created) << created.error().message;
		return spec;
	}

	LibrbdCluster ceph_;
};

TEST_F(ReadsZeroes, AnImageNeverWrittenIsProvedAndOneWrittenBlockUndoesIt)
{
	const VolumeSpec spec = create("zeroes", FastDiff);
	EXPECT_EQ(usedBytes(spec.image.display()), "0");
	auto unwritten = ceph_.readsZeroes(imageRequestOf(spec));
	ASSERT_TRUE(unwritten) << unwritten.error().message;
	EXPECT_TRUE(*unwritten);

	writeOneBlock(spec.image.display());
	EXPECT_NE(usedBytes(spec.image.display()), "0");
	auto written = ceph_.readsZeroes(imageRequestOf(spec));
	ASSERT_TRUE(written) << written.error().message;
	EXPECT_FALSE(*written);
}

/* Without fast-diff each object of a small image is asked; one written undoes it. */
TEST_F(ReadsZeroes, ASmallImageWithoutFastDiffIsAskedObjectByObject)
{
	const VolumeSpec spec = create("nofastdiff", { "layering", "exclusive-lock" });
	EXPECT_EQ(usedBytes(spec.image.display()), "0");
	auto unwritten = ceph_.readsZeroes(imageRequestOf(spec));
	ASSERT_TRUE(unwritten) << unwritten.error().message;
	EXPECT_TRUE(*unwritten);

	writeOneBlock(spec.image.display());
	auto written = ceph_.readsZeroes(imageRequestOf(spec));
	ASSERT_TRUE(written) << written.error().message;
	EXPECT_FALSE(*written);
}

/* ... but not each of a big one's: 8 GiB is 2,048 objects, more than RbdImage asks. */
TEST_F(ReadsZeroes, ABigImageWithoutFastDiffIsNeverClaimed)
{
	VolumeSpec spec = specFor(uniqueImageName("bignofastdiff"),
				  createSpec(uint64_t{ 8 } * 1024 * MiB, { "layering" }));
	auto created = ceph_.ensureImage(imageRequestOf(spec));
	ASSERT_TRUE(created) << created.error().message;
	auto unwritten = ceph_.readsZeroes(imageRequestOf(spec));
	ASSERT_TRUE(unwritten) << unwritten.error().message;
	EXPECT_FALSE(*unwritten);
}

/* A clone reads its parent's data where it wrote none of its own. */
TEST_F(ReadsZeroes, ACloneOfAWrittenParentIsNotZeroes)
{
	const VolumeSpec parent = create("parent", FastDiff);
	writeOneBlock(parent.image.display());
	const std::string snapshot = parent.image.display() + "@base";
	rbdAdmin({ "snap", "create", snapshot });
	rbdAdmin({ "snap", "protect", snapshot });
	VolumeSpec clone = specFor(uniqueImageName("clone"));
	rbdAdmin({ "clone", "--image-feature", "layering,exclusive-lock,object-map,fast-diff",
		   snapshot, clone.image.display() });
	EXPECT_EQ(usedBytes(clone.image.display()), "0"); /* nothing of its own */
	auto zeroes = ceph_.readsZeroes(imageRequestOf(clone));
	ASSERT_TRUE(zeroes) << zeroes.error().message;
	EXPECT_FALSE(*zeroes);
}

TEST_F(ReadsZeroes, AMissingImageIsNotFound)
{
	const VolumeSpec spec = specFor(uniqueImageName("missing"));
	auto zeroes = ceph_.readsZeroes(imageRequestOf(spec));
	ASSERT_FALSE(zeroes);
	EXPECT_EQ(zeroes.error().code, Errc::NotFound);
}

} /* namespace */

} /* namespace rbdvolume::testing */
