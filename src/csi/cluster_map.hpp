/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The cluster map of rbd-volume-csi: a CSI clusterID to the monitors (and
 * the default RADOS namespace) of that Ceph cluster. Read from ceph-csi's
 * config.json (cluster_map_json.cpp) or from our TOML equivalent
 * (cluster_map_toml.cpp).
 */
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "config/diagnostic.hpp"

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

/* What one cluster of a map gave: its id when that is good, the entry when all of it is. */
struct ClusterRead {
	std::optional<std::string> id;
	std::optional<ClusterEntry> entry;

	static ClusterRead of(std::optional<std::string> id,
			      std::optional<std::vector<std::string>> monitors,
			      std::optional<std::string> radosNamespace);
};

/* The map in file order, each id once: both forms build it the same way. */
class ClusterMapBuilder
{
public:
	/*
	 * Adds what a cluster gave, its id read at `idField` ("cluster[1].id").
	 * An id given before is the problem returned (naming its first field),
	 * and its entry is dropped.
	 */
	std::optional<std::string> add(ClusterRead read, const std::string &idField);
	ClusterMap take() { return std::move(map_); }

private:
	ClusterMap map_;
	std::map<std::string, std::string, std::less<>> seen_; /* id -> its first field */
};

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
