/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* loadClusterMap(): the cluster map file of rbd-volume-csi, ceph-csi's config.json or TOML. */
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "csi/cluster_map.hpp"

namespace rbdvolume::csi {

enum class ClusterMapFormat : uint8_t {
	Json, /* ceph-csi's config.json (src/csi/cluster_map_json.hpp) */
	Toml, /* [[cluster]] tables (src/spec/cluster_map.hpp) */
};

/*
 * JSON when the first character after blanks is '{', or '[' that does not
 * open a TOML table header ("[[cluster]]", "[cluster]": '[' followed by '['
 * or, after spaces, by a letter); TOML otherwise, an empty text included.
 */
ClusterMapFormat detectClusterMapFormat(std::string_view text);

/*
 * Reads `path` (at most 1 MiB) and parses it in the format it is written
 * in. A missing, unreadable or oversized file is one diagnostic without a
 * line; an empty file is an empty map.
 */
ClusterMapOutcome loadClusterMap(const std::string &path);

} /* namespace rbdvolume::csi */
