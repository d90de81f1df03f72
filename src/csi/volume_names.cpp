/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "csi/volume_names.hpp"

#include <cstdint>
#include <cstdio>

namespace rbdvolume::csi {

namespace {

/* CSI's own limit for a string field. */
constexpr size_t MaxVolumeIdBytes = 128;

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

std::optional<std::string> volumeIdProblem(std::string_view volumeId)
{
	if (volumeId.empty())
		return "volume_id is required";
	if (volumeId.size() > MaxVolumeIdBytes)
		return "volume_id has " + std::to_string(volumeId.size()) + " bytes, at most " +
		       std::to_string(MaxVolumeIdBytes) + " are allowed";
	for (const char c : volumeId) {
		if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
			return "volume_id holds a control character";
	}
	return {};
}

} /* namespace rbdvolume::csi */
