/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* LibrbdCluster::ensureImage against the real cluster, as client.test. */
#include <rbd/features.h>

#include <gtest/gtest.h>

#include "ceph_fixture.hpp"
#include "host/ceph/image_features.hpp"
#include "host/ceph/librbd_cluster.hpp"

namespace rbdvolume::testing {

namespace {

class EnsureImage : public ::testing::Test
{
protected:
	uint64_t sizeOf(const VolumeSpec &spec)
	{
		auto info = ceph_.imageInfo(imageRequestOf(spec));
		EXPECT_TRUE(info) << info.error().message;
		return info ? info->sizeBytes : 0;
	}

	LibrbdCluster ceph_;
};

TEST_F(EnsureImage, CreatesAMissingImageOnceWithTheListedFeatures)
{
	const VolumeSpec spec = specFor(uniqueImageName("create"),
					createSpec(64 * MiB, { "layering", "exclusive-lock" }));

	auto first = ceph_.ensureImage(imageRequestOf(spec));
	ASSERT_TRUE(first) << first.error().message;
	EXPECT_EQ(first->change, Change::Changed);
	EXPECT_EQ(first->detail, "created, 64 MiB");
	auto second = ceph_.ensureImage(imageRequestOf(spec));
	ASSERT_TRUE(second) << second.error().message;
	EXPECT_EQ(second->change, Change::Unchanged);
	EXPECT_EQ(second->detail, "");

	auto info = ceph_.imageInfo(imageRequestOf(spec));
	ASSERT_TRUE(info) << info.error().message;
	EXPECT_EQ(info->sizeBytes, 64 * MiB);
	EXPECT_EQ(comparableFeatures(info->features),
		  RBD_FEATURE_LAYERING | RBD_FEATURE_EXCLUSIVE_LOCK);
	/* Inspection opens read-only: we never show up as a user of the image. */
	EXPECT_TRUE(info->watchers.empty());
	EXPECT_TRUE(info->lockOwners.empty());
	EXPECT_NE(rbdAdmin({ "info", spec.image.display() }).find("size 64 MiB"),
		  std::string::npos);
}

TEST_F(EnsureImage, CreatesWithTheClusterDefaultsWhenNoFeaturesAreListed)
{
	const VolumeSpec spec = specFor(uniqueImageName("defaults"), createSpec(16 * MiB));

	auto created = ceph_.ensureImage(imageRequestOf(spec));
	ASSERT_TRUE(created) << created.error().message;
	EXPECT_EQ(created->change, Change::Changed);
	auto info = ceph_.imageInfo(imageRequestOf(spec));
	ASSERT_TRUE(info) << info.error().message;
	EXPECT_EQ(comparableFeatures(info->features), uint64_t{ RBD_FEATURES_DEFAULT });
	auto again = ceph_.ensureImage(imageRequestOf(spec));
	ASSERT_TRUE(again) << again.error().message;
	EXPECT_EQ(again->change, Change::Unchanged);
}

/* librbd drops striping without a stripe unit or count, which a spec cannot set. */
TEST_F(EnsureImage, ListedStripingDoesNotMakeTheNextPassAConflict)
{
	const VolumeSpec spec = specFor(uniqueImageName("striping"),
					createSpec(8 * MiB, { "layering", "striping" }));

	auto created = ceph_.ensureImage(imageRequestOf(spec));
	ASSERT_TRUE(created) << created.error().message;
	EXPECT_EQ(created->change, Change::Changed);
	auto again = ceph_.ensureImage(imageRequestOf(spec));
	ASSERT_TRUE(again) << again.error().message;
	EXPECT_EQ(again->change, Change::Unchanged);
}

TEST_F(EnsureImage, AnImageWithOtherFeaturesIsAConflict)
{
	const std::string name = uniqueImageName("features");
	rbdAdmin({ "create", "--size", "64M", "--image-feature", "layering", "rbd/" + name });
	const VolumeSpec spec =
		specFor(name, createSpec(64 * MiB, { "layering", "exclusive-lock" }));

	auto result = ceph_.ensureImage(imageRequestOf(spec));
	ASSERT_FALSE(result);
	EXPECT_EQ(result.error().code, Errc::Conflict);
	EXPECT_EQ(result.error().message,
		  "image rbd/" + name +
			  " has features 'layering' but the spec's [image.create] lists "
			  "'layering, exclusive-lock'; rbd-volume does not change the features of "
			  "an existing image");
}

TEST_F(EnsureImage, ALargerImageIsAConflictAndIsNotShrunk)
{
	const std::string name = uniqueImageName("larger");
	rbdAdmin({ "create", "--size", "20G", "rbd/" + name });
	const VolumeSpec spec = specFor(name, createSpec(10 * GiB));

	auto result = ceph_.ensureImage(imageRequestOf(spec));
	ASSERT_FALSE(result);
	EXPECT_EQ(result.error().code, Errc::Conflict);
	EXPECT_EQ(result.error().message,
		  "image rbd/" + name +
			  " is 20 GiB, larger than the spec's 10 GiB; rbd-volume never shrinks "
			  "an image");
	EXPECT_EQ(sizeOf(spec), 20 * GiB);
}

TEST_F(EnsureImage, ASmallerImageIsGrown)
{
	const std::string name = uniqueImageName("smaller");
	rbdAdmin({ "create", "--size", "32M", "rbd/" + name });
	const VolumeSpec spec = specFor(name, createSpec(96 * MiB));

	auto grown = ceph_.ensureImage(imageRequestOf(spec));
	ASSERT_TRUE(grown) << grown.error().message;
	EXPECT_EQ(grown->change, Change::Changed);
	EXPECT_EQ(grown->detail, "grown from 32 MiB to 96 MiB");
	EXPECT_EQ(sizeOf(spec), 96 * MiB);
	auto again = ceph_.ensureImage(imageRequestOf(spec));
	ASSERT_TRUE(again) << again.error().message;
	EXPECT_EQ(again->change, Change::Unchanged);
	/* The grow left no watcher of ours behind. */
	auto info = ceph_.imageInfo(imageRequestOf(spec));
	ASSERT_TRUE(info) << info.error().message;
	EXPECT_TRUE(info->watchers.empty());
}

TEST_F(EnsureImage, AnExistingImageWithoutCreateIsLeftAlone)
{
	const std::string name = uniqueImageName("existing");
	rbdAdmin({ "create", "--size", "8M", "rbd/" + name });

	auto result = ceph_.ensureImage(imageRequestOf(specFor(name)));
	ASSERT_TRUE(result) << result.error().message;
	EXPECT_EQ(result->change, Change::Unchanged);
}

TEST_F(EnsureImage, AMissingImageWithoutCreateIsNotFound)
{
	const std::string name = uniqueImageName("missing");

	auto result = ceph_.ensureImage(imageRequestOf(specFor(name)));
	ASSERT_FALSE(result);
	EXPECT_EQ(result.error().code, Errc::NotFound);
	EXPECT_EQ(result.error().message,
		  "image 'rbd/" + name + "' does not exist (and the spec has no [image.create])");
	auto info = ceph_.imageInfo(imageRequestOf(specFor(name)));
	ASSERT_FALSE(info);
	EXPECT_EQ(info.error().code, Errc::NotFound);
	EXPECT_EQ(info.error().message, "image 'rbd/" + name + "' does not exist");
}

TEST_F(EnsureImage, AMissingPoolIsNotFound)
{
	VolumeSpec spec = specFor(uniqueImageName("nopool"), createSpec(8 * MiB));
	spec.image.pool = "no-such-pool";

	auto result = ceph_.ensureImage(imageRequestOf(spec));
	ASSERT_FALSE(result);
	EXPECT_EQ(result.error().code, Errc::NotFound);
	EXPECT_EQ(result.error().message, "pool 'no-such-pool' does not exist");
}

TEST_F(EnsureImage, ASnapshotIsOnlyCheckedForExistence)
{
	const std::string name = uniqueImageName("snap");
	rbdAdmin({ "create", "--size", "8M", "rbd/" + name });
	rbdAdmin({ "snap", "create", "rbd/" + name + "@s1" });
	/* A size in [image.create] does not make a snapshot's image grow. */
	VolumeSpec spec = specFor(name, createSpec(64 * MiB));
	spec.image.snapshot = "s1";
	spec.map.readOnly = true;

	auto present = ceph_.ensureImage(imageRequestOf(spec));
	ASSERT_TRUE(present) << present.error().message;
	EXPECT_EQ(present->change, Change::Unchanged);
	EXPECT_EQ(sizeOf(specFor(name)), 8 * MiB);

	spec.image.snapshot = "nope";
	auto noSnapshot = ceph_.ensureImage(imageRequestOf(spec));
	ASSERT_FALSE(noSnapshot);
	EXPECT_EQ(noSnapshot.error().code, Errc::NotFound);
	EXPECT_EQ(noSnapshot.error().message,
		  "snapshot 'nope' of image 'rbd/" + name + "' does not exist");

	spec.image.name = uniqueImageName("snap-missing");
	auto noImage = ceph_.ensureImage(imageRequestOf(spec));
	ASSERT_FALSE(noImage);
	EXPECT_EQ(noImage.error().code, Errc::NotFound);
	EXPECT_EQ(noImage.error().message,
		  "image 'rbd/" + spec.image.name +
			  "' does not exist (the spec maps its snapshot 'nope')");
}

TEST_F(EnsureImage, CreatesInAnExistingNamespaceOnly)
{
	const std::string space = uniqueImageName("ns");
	rbdAdmin({ "namespace", "create", "rbd/" + space });
	VolumeSpec spec = specFor(uniqueImageName("in-ns"), createSpec(8 * MiB));
	spec.image.radosNamespace = space;

	auto created = ceph_.ensureImage(imageRequestOf(spec));
	ASSERT_TRUE(created) << created.error().message;
	EXPECT_EQ(created->change, Change::Changed);
	EXPECT_NE(rbdAdmin({ "ls", "rbd/" + space }).find(spec.image.name), std::string::npos);

	spec.image.radosNamespace = "no-such-namespace";
	auto missing = ceph_.ensureImage(imageRequestOf(spec));
	ASSERT_FALSE(missing);
	EXPECT_EQ(missing.error().code, Errc::NotFound);
	EXPECT_EQ(missing.error().message,
		  "namespace 'no-such-namespace' does not exist in pool 'rbd'; rbd-volume "
		  "creates images, not namespaces");
}

TEST_F(EnsureImage, MetadataIsReadAsRbdSetsItAndWrittenAsRbdReadsIt)
{
	const VolumeSpec spec = specFor(uniqueImageName("meta"), createSpec(16 * MiB));
	ASSERT_TRUE(ceph_.ensureImage(imageRequestOf(spec)));

	auto missing = ceph_.metadata(imageRequestOf(spec), "rbd.csi.ceph.com/dek");
	ASSERT_TRUE(missing) << missing.error().message;
	EXPECT_FALSE(*missing);

	/* Longer than a first guess at the buffer, as a wrapped key is. */
	const std::string value = R"({"dek":")" + std::string(300, 'k') + R"(","nonce":"n"})";
	rbdAdmin({ "image-meta", "set", spec.image.display(), "rbd.csi.ceph.com/dek", value });
	auto read = ceph_.metadata(imageRequestOf(spec), "rbd.csi.ceph.com/dek");
	ASSERT_TRUE(read) << read.error().message;
	EXPECT_EQ(*read, value);

	ASSERT_TRUE(
		ceph_.setMetadata(imageRequestOf(spec), "rbd.csi.ceph.com/encrypted", "encrypted"));
	std::string shown = rbdAdmin(
		{ "image-meta", "get", spec.image.display(), "rbd.csi.ceph.com/encrypted" });
	while (!shown.empty() && shown.back() == '\n')
		shown.pop_back();
	EXPECT_EQ(shown, "encrypted");
	/* The write's open was short: nobody watches the image afterwards. */
	auto info = ceph_.imageInfo(imageRequestOf(spec));
	ASSERT_TRUE(info) << info.error().message;
	EXPECT_TRUE(info->watchers.empty());

	const VolumeSpec gone = specFor(uniqueImageName("meta-gone"), std::nullopt);
	auto absent = ceph_.metadata(imageRequestOf(gone), "rbd.csi.ceph.com/dek");
	ASSERT_FALSE(absent);
	EXPECT_EQ(absent.error().code, Errc::NotFound);
}

} /* namespace */

} /* namespace rbdvolume::testing */
