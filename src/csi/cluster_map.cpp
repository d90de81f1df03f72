/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The cluster map's lookup, and the checks its two forms share. */
#include "csi/cluster_map.hpp"

#include <algorithm>
#include <utility>

#include "common/text_escape.hpp"
#include "config/spec_values.hpp"

namespace rbdvolume::csi {

const ClusterEntry *ClusterMap::find(std::string_view clusterId) const
{
	const auto it =
		std::find_if(clusters.begin(), clusters.end(), [&](const ClusterEntry &entry) {
			return entry.clusterId == clusterId;
		});
	return it == clusters.end() ? nullptr : &*it;
}

ClusterRead ClusterRead::of(std::optional<std::string> id,
			    std::optional<std::vector<std::string>> monitors,
			    std::optional<std::string> radosNamespace)
{
	ClusterRead read;
	if (id && monitors && radosNamespace)
		read.entry = ClusterEntry{ *id, std::move(*monitors), std::move(*radosNamespace) };
	read.id = std::move(id);
	return read;
}

std::optional<std::string> ClusterMapBuilder::add(ClusterRead read, const std::string &idField)
{
	if (!read.id)
		return std::nullopt;
	const auto [first, added] = seen_.try_emplace(*read.id, idField);
	if (!added)
		return duplicateClusterIdProblem(*read.id, first->second);
	if (read.entry)
		map_.clusters.push_back(std::move(*read.entry));
	return std::nullopt;
}

ClusterMapOutcome clusterMapFailure(const std::string &file, std::string message)
{
	ClusterMapOutcome outcome;
	outcome.diagnostics.push_back(Diagnostic{ file, 0, 0, {}, std::move(message) });
	return outcome;
}

std::optional<std::string> clusterIdProblem(std::string_view id)
{
	if (id.empty())
		return "expected a non-empty cluster id, found ''";
	const bool control = std::any_of(id.begin(), id.end(), [](char c) {
		return static_cast<unsigned char>(c) < 0x20 || c == '\x7f';
	});
	if (control)
		return "expected a cluster id without control characters, found " + quoted(id);
	return {};
}

std::optional<std::string> monitorCountProblem(size_t count)
{
	if (count == 0)
		return "expected at least one monitor address, found an empty array";
	return {};
}

std::optional<std::string> radosNamespaceProblem(std::string_view name)
{
	if (name.empty())
		return std::nullopt;
	return rbdNameProblem(name);
}

std::string duplicateClusterIdProblem(std::string_view id, std::string_view first)
{
	return "expected each cluster id once, found " + quoted(id) + " again (first at " +
	       std::string(first) + ")";
}

} /* namespace rbdvolume::csi */
