/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "csi/volume_names.hpp"

#include <cstdint>
#include <cstdio>

namespace rbdvolume::csi {

namespace {

/* FNV-1a, 64 bits: stable across builds and hosts, which std::hash is not. */
uint64_t fnv1a(std::string_view text)
{
	uint64_t hash = 0xcbf29ce484222325ULL;
	for (const char c : text) {
		hash ^= static_cast<unsigned char>(c);
		hash *= 0x100000001b3ULL;
	}
	return hash;
}

} /* namespace */

std::string volumeNameFor(std::string_view volumeId)
{
	char hex[17];
	std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(fnv1a(volumeId)));
	return std::string("csi_") + hex;
}

} /* namespace rbdvolume::csi */
