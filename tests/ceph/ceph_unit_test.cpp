/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The Ceph adapter's pure parts: feature names, sizes, error words. No cluster. */
#include <cerrno>

#include <rbd/features.h>

#include <gtest/gtest.h>

#include "host/ceph/ceph_errors.hpp"
#include "host/ceph/image_features.hpp"
#include "host/ceph/size_text.hpp"

namespace rbdvolume {

namespace {

const CallContext Context{ "client.test", "[v2:10.0.0.1:3300]", std::chrono::seconds(30) };

TEST(ImageFeatures, NamesAndBitsRoundTrip)
{
	auto bits = featureBits(
		{ "layering", "exclusive-lock", "object-map", "fast-diff", "deep-flatten" });
	ASSERT_TRUE(bits);
	EXPECT_EQ(*bits, uint64_t{ RBD_FEATURES_DEFAULT });
	EXPECT_EQ(featureNames(*bits), "layering, exclusive-lock, object-map, fast-diff, "
				       "deep-flatten");
	EXPECT_EQ(featureNames(0), "none");
	auto none = featureBits({});
	ASSERT_TRUE(none);
	EXPECT_EQ(*none, 0U);
}

TEST(ImageFeatures, UnknownNamesAreRefused)
{
	auto bits = featureBits({ "layering", "data-pool" });
	ASSERT_FALSE(bits);
	EXPECT_EQ(bits.error().code, Errc::InvalidArgument);
	EXPECT_EQ(bits.error().message, "unknown RBD image feature 'data-pool'");
}

TEST(ImageFeatures, LibrbdsOwnBitsAndStripingAreNotCompared)
{
	const uint64_t image = RBD_FEATURE_LAYERING | RBD_FEATURE_OPERATIONS |
			       RBD_FEATURE_DATA_POOL | RBD_FEATURE_DIRTY_CACHE |
			       RBD_FEATURE_STRIPINGV2;
	EXPECT_EQ(comparableFeatures(image), uint64_t{ RBD_FEATURE_LAYERING });
	EXPECT_EQ(featureNames(image), "layering, striping");
}

TEST(SizeText, UsesTheLargestUnitThatDividesTheSize)
{
	EXPECT_EQ(sizeText(uint64_t{ 20 } << 30), "20 GiB");
	EXPECT_EQ(sizeText(uint64_t{ 1536 } << 20), "1536 MiB");
	EXPECT_EQ(sizeText(uint64_t{ 3 } << 40), "3 TiB");
	EXPECT_EQ(sizeText(4096), "4 KiB");
	EXPECT_EQ(sizeText(1000), "1000 bytes");
	EXPECT_EQ(sizeText(0), "0 bytes");
}

TEST(CephErrors, TimeoutsNameTheMonitorsAndTheBound)
{
	const Error error = callError(-ETIMEDOUT, "opening image rbd/a", Context);
	EXPECT_EQ(error.code, Errc::Timeout);
	EXPECT_EQ(error.sysErrno, ETIMEDOUT);
	EXPECT_EQ(error.message,
		  "opening image rbd/a: no answer from the cluster at [v2:10.0.0.1:3300] within "
		  "30 s");
	EXPECT_TRUE(isConnectionFault(error));
}

TEST(CephErrors, DenialsNameTheClientAndItsCaps)
{
	for (const int err : { EACCES, EPERM }) {
		const Error error = callError(-err, "creating image rbd/a", Context);
		EXPECT_EQ(error.code, Errc::PermissionDenied);
		EXPECT_EQ(error.message.rfind(
				  "creating image rbd/a: client.test is not allowed to (", 0),
			  0U)
			<< error.message;
		EXPECT_NE(error.message.find("): check its caps (profile rbd)"), std::string::npos);
		EXPECT_TRUE(isConnectionFault(error));
	}
}

TEST(CephErrors, OtherErrnosKeepTheirText)
{
	const Error missing = callError(-ENOENT, "opening image rbd/a", Context);
	EXPECT_EQ(missing.code, Errc::NotFound);
	EXPECT_EQ(missing.message, "opening image rbd/a: No such file or directory");
	EXPECT_FALSE(isConnectionFault(missing));
	EXPECT_EQ(callError(-EEXIST, "x", Context).code, Errc::Conflict);
	EXPECT_EQ(callError(-EBUSY, "x", Context).code, Errc::Busy);
	const Error io = callError(-EIO, "x", Context);
	EXPECT_EQ(io.code, Errc::Io);
	EXPECT_EQ(io.message, "x: Input/output error");
	const Error blocklisted = callError(-ESHUTDOWN, "x", Context);
	EXPECT_EQ(blocklisted.code, Errc::Blocklisted);
	EXPECT_TRUE(isConnectionFault(blocklisted));
	EXPECT_NE(blocklisted.message.find("blocklisted"), std::string::npos);
}

} /* namespace */

} /* namespace rbdvolume */
