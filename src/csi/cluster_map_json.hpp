/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* ceph-csi's config.json as rbd-volume-csi's cluster map: the keys we use, the rest ignored. */
#pragma once

#include <string>
#include <string_view>

#include "csi/cluster_map.hpp"

namespace rbdvolume::csi {

/*
 * Parses the text of ceph-csi's config.json, a JSON array of objects:
 *
 *     [{"clusterID": "rook-ceph", "monitors": ["192.0.2.1:6789"],
 *       "rbd": {"radosNamespace": "tenant_a"}, "cephFS": {...}, ...}]
 *
 * clusterID and monitors are required, rbd.radosNamespace is optional, every
 * other key is ignored; values are checked as in the TOML form. `file` names
 * the file in diagnostics, whose fields read "[2].monitors[0]". Only a JSON
 * syntax error (or a top-level object) has a line and column.
 */
ClusterMapOutcome parseClusterMapJson(std::string_view text, const std::string &file);

} /* namespace rbdvolume::csi */
