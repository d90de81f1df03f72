/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "host/ceph/image_features.hpp"

#include <array>
#include <string_view>

#include <rbd/features.h>

namespace rbdvolume {

namespace {

struct Feature {
	std::string_view name;
	uint64_t bit;
};

/* The features a spec may name, in rbd(8)'s order. */
constexpr std::array<Feature, 7> Features = { {
	{ RBD_FEATURE_NAME_LAYERING, RBD_FEATURE_LAYERING },
	{ RBD_FEATURE_NAME_STRIPINGV2, RBD_FEATURE_STRIPINGV2 },
	{ RBD_FEATURE_NAME_EXCLUSIVE_LOCK, RBD_FEATURE_EXCLUSIVE_LOCK },
	{ RBD_FEATURE_NAME_OBJECT_MAP, RBD_FEATURE_OBJECT_MAP },
	{ RBD_FEATURE_NAME_FAST_DIFF, RBD_FEATURE_FAST_DIFF },
	{ RBD_FEATURE_NAME_DEEP_FLATTEN, RBD_FEATURE_DEEP_FLATTEN },
	{ RBD_FEATURE_NAME_JOURNALING, RBD_FEATURE_JOURNALING },
} };

} /* namespace */

Result<uint64_t> featureBits(const std::vector<std::string> &names)
{
	uint64_t bits = 0;
	for (const std::string &name : names) {
		const Feature *found = nullptr;
		for (const Feature &feature : Features) {
			if (feature.name == name)
				found = &feature;
		}
		if (!found)
			return fail(Errc::InvalidArgument,
				    "unknown RBD image feature '" + name + "'");
		bits |= found->bit;
	}
	return bits;
}

uint64_t comparableFeatures(uint64_t bits)
{
	uint64_t mask = 0;
	for (const Feature &feature : Features)
		mask |= feature.bit;
	return bits & mask & ~uint64_t{ RBD_FEATURE_STRIPINGV2 };
}

std::string featureNames(uint64_t bits)
{
	std::string out;
	for (const Feature &feature : Features) {
		if (bits & feature.bit)
			out += (out.empty() ? "" : ", ") + std::string(feature.name);
	}
	return out.empty() ? "none" : out;
}

} /* namespace rbdvolume */
