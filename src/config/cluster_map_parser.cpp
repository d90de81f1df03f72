/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The cluster map of rbd-volume-csi from TOML ([[cluster]] tables), with the spec's diagnostics. */
#include <algorithm>
#include <array>
#include <exception>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <toml++/toml.h>

#include "config/cluster_map.hpp"
#include "config/spec_report.hpp"
#include "config/spec_values.hpp"
#include "config/toml_guard.hpp"
#include "config/toml_nodes.hpp"

namespace rbdvolume {

namespace {

constexpr std::array<std::string_view, 1> RootKeys = { "cluster" };
constexpr std::array<std::string_view, 3> ClusterKeys = { "id", "monitors", "rados-namespace" };

/* config.json's names, easily kept when a map is translated by hand. */
struct JsonName {
	std::string_view json;
	std::string_view toml;
};

constexpr std::array<JsonName, 3> JsonNames = { {
	{ "clusterID", "id" },
	{ "radosNamespace", "rados-namespace" },
	{ "rbd", "rados-namespace" },
} };

bool contains(std::span<const std::string_view> keys, std::string_view key)
{
	return std::find(keys.begin(), keys.end(), key) != keys.end();
}

std::string indexField(std::string_view prefix, size_t index)
{
	return std::string(prefix) + '[' + std::to_string(index) + ']';
}

/*
 * unknownKeyProblem(): in a [[cluster]] with the TOML name of a config.json
 * key; at the top level, a cluster's key is pointed into [[cluster]].
 */
std::string keyProblem(std::string_view key, bool topLevel)
{
	if (topLevel && contains(ClusterKeys, key))
		return "unknown key " + quoted(key) + "; did you mean " + quoted(key) +
		       " in [[cluster]]?";
	if (topLevel)
		return unknownKeyProblem(key, RootKeys);
	for (const JsonName &name : JsonNames) {
		if (name.json == key)
			return "unknown key " + quoted(key) + "; did you mean " +
			       quoted(name.toml) + "?";
	}
	return unknownKeyProblem(key, ClusterKeys);
}

/* `prefix` is the cluster's field ("cluster[1]"), "" for the top level. */
void rejectUnknownKeys(const toml::table &table, const std::string &prefix, SpecReport &report)
{
	const bool topLevel = prefix.empty();
	const std::span<const std::string_view> known =
		topLevel ? std::span<const std::string_view>(RootKeys) : ClusterKeys;
	for (const auto &[key, node] : table) {
		const std::string_view name = key.str();
		if (contains(known, name))
			continue;
		SourcePos pos = positionOf(key.source());
		if (pos.line == 0)
			pos = positionOf(node);
		/* A quoted TOML key may hold anything; the field path is printed escaped. */
		const std::string field = topLevel ? escaped(name) : prefix + '.' + escaped(name);
		report.error(field, pos, keyProblem(name, topLevel));
	}
}

void wrongType(SpecReport &report, const std::string &field, const toml::node &node,
	       std::string_view expected)
{
	report.error(field, positionOf(node),
		     "expected " + std::string(expected) + ", found " + typeName(node));
}

/* The value of `key` in the cluster at `prefix`, recorded in the report; nullptr when absent. */
const toml::node *findKey(const toml::table &table, const std::string &prefix, std::string_view key,
			  SpecReport &report)
{
	const toml::node *node = table.get(key);
	if (node != nullptr)
		report.record(prefix + '.' + std::string(key), positionOf(*node));
	return node;
}

void missing(SpecReport &report, const std::string &prefix, std::string_view key)
{
	report.error(prefix + '.' + std::string(key), report.locate(prefix),
		     "missing required key " + quoted(key) + " in [[cluster]]");
}

std::optional<std::string> readId(const toml::table &table, const std::string &prefix,
				  SpecReport &report)
{
	const toml::node *node = findKey(table, prefix, "id", report);
	if (node == nullptr) {
		missing(report, prefix, "id");
		return std::nullopt;
	}
	const auto *id = node->as_string();
	if (id == nullptr) {
		wrongType(report, prefix + ".id", *node, "a string");
		return std::nullopt;
	}
	if (const auto problem = clusterIdProblem(id->get())) {
		report.error(prefix + ".id", positionOf(*node), *problem);
		return std::nullopt;
	}
	return id->get();
}

/* Every entry is checked; the list only when all of them are good. */
std::optional<std::vector<std::string>> readMonitors(const toml::table &table,
						     const std::string &prefix, SpecReport &report)
{
	const std::string field = prefix + ".monitors";
	const toml::node *node = findKey(table, prefix, "monitors", report);
	if (node == nullptr) {
		missing(report, prefix, "monitors");
		return std::nullopt;
	}
	const toml::array *array = node->as_array();
	if (array == nullptr) {
		wrongType(report, field, *node, "an array of strings");
		return std::nullopt;
	}
	if (const auto countProblem = monitorCountProblem(array->size())) {
		report.error(field, positionOf(*node), *countProblem);
		return std::nullopt;
	}
	std::vector<std::string> monitors;
	bool good = true;
	for (size_t i = 0; i < array->size(); ++i) {
		const toml::node &element = *array->get(i);
		const std::string elementField = indexField(field, i);
		const SourcePos pos = positionOf(element);
		report.record(elementField, pos);
		const auto *address = element.as_string();
		const std::optional<std::string> problem =
			address == nullptr
				? std::string("expected a string, found ") + typeName(element)
				: monitorProblem(address->get());
		if (problem) {
			report.error(elementField, pos, *problem);
			good = false;
			continue;
		}
		monitors.push_back(address->get());
	}
	if (!good)
		return std::nullopt;
	return monitors;
}

/* "" when absent; std::nullopt when reported. */
std::optional<std::string> readNamespace(const toml::table &table, const std::string &prefix,
					 SpecReport &report)
{
	const std::string field = prefix + ".rados-namespace";
	const toml::node *node = findKey(table, prefix, "rados-namespace", report);
	if (node == nullptr)
		return std::string();
	const auto *name = node->as_string();
	if (name == nullptr) {
		wrongType(report, field, *node, "a string");
		return std::nullopt;
	}
	if (const auto problem = radosNamespaceProblem(name->get())) {
		report.error(field, positionOf(*node), *problem);
		return std::nullopt;
	}
	return name->get();
}

/* What one [[cluster]] gave: its id when that is good, the entry when all is. */
struct ClusterRead {
	std::optional<std::string> id;
	std::optional<ClusterEntry> entry;
};

ClusterRead readCluster(const toml::node &element, const std::string &prefix, SpecReport &report)
{
	report.record(prefix, positionOf(element));
	const toml::table *table = element.as_table();
	if (table == nullptr) {
		wrongType(report, prefix, element, "a table");
		return {};
	}
	rejectUnknownKeys(*table, prefix, report);
	ClusterRead read;
	read.id = readId(*table, prefix, report);
	std::optional<std::vector<std::string>> monitors = readMonitors(*table, prefix, report);
	std::optional<std::string> radosNamespace = readNamespace(*table, prefix, report);
	if (read.id && monitors && radosNamespace)
		read.entry =
			ClusterEntry{ *read.id, std::move(*monitors), std::move(*radosNamespace) };
	return read;
}

void readClusters(const toml::array &array, SpecReport &report, ClusterMap &map)
{
	/* The fields of the ids read so far, by id, to name the first of a duplicate. */
	std::map<std::string, std::string, std::less<>> seen;
	for (size_t i = 0; i < array.size(); ++i) {
		const std::string prefix = indexField("cluster", i);
		ClusterRead read = readCluster(*array.get(i), prefix, report);
		if (!read.id)
			continue;
		const std::string &id = *read.id;
		const auto [first, added] = seen.try_emplace(id, prefix + ".id");
		if (!added) {
			report.error(prefix + ".id", duplicateClusterIdProblem(id, first->second));
			continue;
		}
		if (read.entry)
			map.clusters.push_back(std::move(*read.entry));
	}
}

void readRoot(const toml::table &root, SpecReport &report, ClusterMap &map)
{
	rejectUnknownKeys(root, "", report);
	const toml::node *node = root.get("cluster");
	if (node == nullptr)
		return;
	report.record("cluster", positionOf(*node));
	if (const toml::array *array = node->as_array())
		readClusters(*array, report, map);
	else
		wrongType(report, "cluster", *node, "an array of tables ([[cluster]])");
}

ClusterMapOutcome parseChecked(std::string_view text, const std::string &file)
{
	SpecReport report(file);
	ClusterMapOutcome outcome;

	std::optional<toml::table> root;
	if (const std::optional<TomlGuardProblem> hazard = findTomlHazard(text)) {
		report.error("", SourcePos{ hazard->line, hazard->column }, hazard->message);
	} else {
		try {
			root = toml::parse(text, std::string_view(file));
		} catch (const toml::parse_error &error) {
			report.error("", positionOf(error.source()),
				     "invalid TOML: " + std::string(error.description()));
		}
	}
	if (root)
		readRoot(*root, report, outcome.map);
	outcome.diagnostics = report.take();
	return outcome;
}

} /* namespace */

const ClusterEntry *ClusterMap::find(std::string_view clusterId) const
{
	const auto it =
		std::find_if(clusters.begin(), clusters.end(), [&](const ClusterEntry &entry) {
			return entry.clusterId == clusterId;
		});
	return it == clusters.end() ? nullptr : &*it;
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

ClusterMapOutcome parseClusterMapToml(std::string_view text, const std::string &file)
{
	/* Nothing may escape a module: toml++ and the standard library throw, we do not. */
	try {
		return parseChecked(text, file);
	} catch (const std::exception &error) {
		return clusterMapFailure(file, std::string("internal error while reading: ") +
						       error.what());
	} catch (...) {
		return clusterMapFailure(file, "internal error while reading: unknown exception");
	}
}

} /* namespace rbdvolume */
