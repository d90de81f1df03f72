/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What rbd-volume keeps in an image's metadata once it made a filesystem or
 * a LUKS2 header on it, so that any host, not only the one that formatted
 * it, can tell a blank read (a mapping that reads zeroes, a wrong LUKS
 * layer, a restored header) from a blank image, and refuses to format it
 * again:
 *
 *     rbd-volume.formatted = "ext4 uuid=0f3c... host=node1 time=2026-12-01T10:02:03Z"
 *     rbd-volume.encrypted = "crypto_LUKS uuid=9a1e... host=node1 time=..."
 */
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "config/volume_spec.hpp"

namespace rbdvolume {

inline constexpr const char *FormattedKey = "rbd-volume.formatted";
inline constexpr const char *EncryptedKey = "rbd-volume.encrypted";

/* "TYPE uuid=UUID host=HOST time=TIME"; the uuid and host left out when unknown. */
std::string formatMarker(const std::string &type, const std::string &uuid, const std::string &host,
			 std::chrono::system_clock::time_point when);

/* One record found in an image's metadata: its key and what it says. */
struct MadeRecord {
	std::string key;
	std::string marker;
};

/*
 * The refusal for `device`, blank now, of an image that keeps `records`:
 * what was made, and how an operator who knows the data is gone lets the
 * format happen (every record removed).
 */
std::string markedButBlank(const ImageSpec &image, const std::string &device,
			   const std::vector<MadeRecord> &records);

} /* namespace rbdvolume */
