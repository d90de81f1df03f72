/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The cluster map of rbd-volume-csi: a CSI clusterID to the monitors (and
 * the default RADOS namespace) of that Ceph cluster. Read from ceph-csi's
 * config.json (cluster_map_json.cpp) or from our TOML equivalent
 * (cluster_map_toml.cpp).
 */
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/spec_parser.hpp"

namespace rbdvolume::csi {

struct ClusterEntry {
	std::string clusterId;
	std::vector<std::string> monitors; /* as spec [cluster] monitors takes them */
	std::string radosNamespace;	   /* ceph-csi's rbd.radosNamespace; "" none */

	bool operator==(const ClusterEntry &) const = default;
};

struct ClusterMap {
	std::vector<ClusterEntry> clusters;

	const ClusterEntry *find(std::string_view clusterId) const;
	bool operator==(const ClusterMap &) const = default;
};

/* The map, or every problem found (FILE:LINE:COL: field: message), none lost. */
struct ClusterMapOutcome {
	ClusterMap map;
	std::vector<Diagnostic> diagnostics;

	bool ok() const { return diagnostics.empty(); }
};

/*
 * The TOML form:
 *
 *     [[cluster]]
 *     id = "rook-ceph"
 *     monitors = ["192.0.2.1:6789", "192.0.2.2:6789"]
 *     rados-namespace = "tenant_a"     # optional
 */
ClusterMapOutcome parseClusterMapToml(std::string_view text, const std::string &file);

/* An outcome of one problem with the file as a whole (no line): unreadable, an internal error. */
ClusterMapOutcome clusterMapFailure(const std::string &file, std::string message);

/*
 * The checks both forms share. Each returns nothing for a good value, else
 * a message "expected ..., found ..." (see config/spec_values.hpp); monitor
 * addresses are checked one by one with monitorProblem().
 */

/* Non-empty, without control characters. */
std::optional<std::string> clusterIdProblem(std::string_view id);

/* At least one monitor. */
std::optional<std::string> monitorCountProblem(size_t count);

/* "" (none) or a name as the spec's image.namespace takes it. */
std::optional<std::string> radosNamespaceProblem(std::string_view name);

/* `id` given again; `first` is the field of its first use ("cluster[0].id"). */
std::string duplicateClusterIdProblem(std::string_view id, std::string_view first);

} /* namespace rbdvolume::csi */
