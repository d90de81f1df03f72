/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* RBD image features: the spec's names to RBD_FEATURE_* bits and back. */
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/result.hpp"

namespace rbdvolume {

/* The bits of the names a spec may list (rbd(8)'s: layering ... journaling). */
Result<uint64_t> featureBits(const std::vector<std::string> &names);

/*
 * The bits an image's features are compared on with a spec's list: the ones
 * a spec can name, less striping. librbd sets others itself (operations,
 * data-pool, migrating, ...), and keeps striping only with a non-default
 * stripe unit or count, which a spec cannot set, so a listed "striping" is
 * dropped at creation and must not make every later comparison fail.
 */
uint64_t comparableFeatures(uint64_t bits);

/* "layering, exclusive-lock" in rbd(8)'s order, "none" for no bits. */
std::string featureNames(uint64_t bits);

} /* namespace rbdvolume */
