/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The cluster map of rbd-volume-csi from TOML ([[cluster]] tables), with the spec's diagnostics. */
#include <algorithm>
#include <array>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/text_escape.hpp"
#include "config/near_miss.hpp"
#include "config/spec_report.hpp"
#include "config/spec_values.hpp"
#include "config/toml_reader.hpp"
#include "csi/cluster_map.hpp"

namespace rbdvolume::csi {

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

/* At the top level, a cluster's key is pointed into [[cluster]]. */
std::string rootKeyProblem(std::string_view key, std::span<const std::string_view> known)
{
	if (std::find(ClusterKeys.begin(), ClusterKeys.end(), key) != ClusterKeys.end())
		return "unknown key " + quoted(key) + "; did you mean " + quoted(key) +
		       " in [[cluster]]?";
	return unknownKeyProblem(key, known);
}

/* In a [[cluster]], config.json's name of a key is pointed to its TOML name. */
std::string clusterKeyProblem(std::string_view key, std::span<const std::string_view> known)
{
	for (const JsonName &name : JsonNames) {
		if (name.json == key)
			return "unknown key " + quoted(key) + "; did you mean " +
			       quoted(name.toml) + "?";
	}
	return unknownKeyProblem(key, known);
}

std::optional<std::string> readId(TomlTable &reader)
{
	std::optional<std::string> id = reader.readString("id");
	if (!id) {
		if (!reader.present("id"))
			reader.missing("id");
		return std::nullopt;
	}
	if (const auto problem = clusterIdProblem(*id)) {
		reader.check("id", problem);
		return std::nullopt;
	}
	return id;
}

/* Every entry is checked; the list only when all of them are good. */
std::optional<std::vector<std::string>> readMonitors(TomlTable &reader)
{
	const std::optional<std::vector<StringItem>> items = reader.readStrings("monitors");
	if (!items) {
		if (!reader.present("monitors"))
			reader.missing("monitors");
		return std::nullopt;
	}
	if (items->empty() && !reader.failed("monitors")) {
		reader.check("monitors", monitorCountProblem(0));
		return std::nullopt;
	}
	for (const StringItem &item : *items)
		reader.check(item, monitorProblem(item.value));
	if (reader.failed("monitors"))
		return std::nullopt;
	return valuesOf(*items);
}

/* "" when absent; std::nullopt when reported. */
std::optional<std::string> readNamespace(TomlTable &reader)
{
	std::optional<std::string> name = reader.readString("rados-namespace");
	if (!name)
		return reader.present("rados-namespace") ? std::nullopt
							 : std::optional<std::string>("");
	if (const auto problem = radosNamespaceProblem(*name)) {
		reader.check("rados-namespace", problem);
		return std::nullopt;
	}
	return name;
}

ClusterRead readCluster(TomlTable &reader)
{
	std::optional<std::string> id = readId(reader);
	std::optional<std::vector<std::string>> monitors = readMonitors(reader);
	return ClusterRead::of(std::move(id), std::move(monitors), readNamespace(reader));
}

void readRoot(TomlTable root, ClusterMap &map)
{
	const auto clusters =
		root.readTableArray("cluster", { "[[cluster]]", ClusterKeys, clusterKeyProblem });
	if (!clusters)
		return;
	ClusterMapBuilder builder;
	for (std::optional<TomlTable> cluster : *clusters) {
		if (cluster)
			cluster->check("id",
				       builder.add(readCluster(*cluster), cluster->field("id")));
	}
	map = builder.take();
}

ClusterMapOutcome parseChecked(std::string_view text, const std::string &file)
{
	SpecReport report(file);
	ClusterMapOutcome outcome;
	if (const auto parsed = TomlFile::parse(text, file, report))
		readRoot(parsed->root({ "the file", RootKeys, rootKeyProblem }, report),
			 outcome.map);
	outcome.diagnostics = report.take();
	return outcome;
}

} /* namespace */

ClusterMapOutcome parseClusterMapToml(std::string_view text, const std::string &file)
{
	ClusterMapOutcome outcome;
	if (const auto failure = readWithoutThrowing([&] { outcome = parseChecked(text, file); }))
		return clusterMapFailure(file, *failure);
	return outcome;
}

} /* namespace rbdvolume::csi */
