/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* parseClusterMapToml: valid maps, every refusal with its place and field, lookups. */
#include <cstdlib>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "cluster_map_cases.hpp"
#include "common/file_io.hpp"
#include "csi/cluster_map.hpp"

namespace rbdvolume::csi {

namespace {

using cases::expectedLines;
using cases::InvalidCase;
using cases::messages;

constexpr std::string_view File = "/etc/rbd-volume/csi-clusters.toml";

ClusterMap parseValid(std::string_view text)
{
	ClusterMapOutcome outcome = parseClusterMapToml(text, std::string(File));
	for (const Diagnostic &diagnostic : outcome.diagnostics)
		ADD_FAILURE() << diagnostic.format();
	return std::move(outcome.map);
}

class ClusterMapTomlInvalid : public ::testing::TestWithParam<InvalidCase>
{
};

} /* namespace */

TEST(ClusterMapToml, EmptyFileIsAnEmptyMap)
{
	EXPECT_EQ(parseValid(""), ClusterMap{});
	EXPECT_EQ(parseValid("# no clusters yet\n\n"), ClusterMap{});
	EXPECT_EQ(parseValid("cluster = []\n"), ClusterMap{});
}

TEST(ClusterMapToml, ClustersAreReadInOrder)
{
	const ClusterMap map = parseValid(R"(# two clusters
[[cluster]]
id = "rook-ceph"
monitors = ["192.0.2.1:6789", "192.0.2.2:6789", "192.0.2.3"]
rados-namespace = "tenant_a"

[[cluster]]
id = "b9127830-b0cc-4e34-aa47-9d1a2e9949a8"
monitors = ["v2:[2001:db8::1]:3300", "mon.example.com"]
)");
	const ClusterMap expected{ {
		ClusterEntry{ "rook-ceph",
			      { "192.0.2.1:6789", "192.0.2.2:6789", "192.0.2.3" },
			      "tenant_a" },
		ClusterEntry{ "b9127830-b0cc-4e34-aa47-9d1a2e9949a8",
			      { "v2:[2001:db8::1]:3300", "mon.example.com" },
			      "" },
	} };
	EXPECT_EQ(map, expected);
}

TEST(ClusterMapToml, InlineTablesReadLikeHeaders)
{
	const ClusterMap map = parseValid("cluster = [\n"
					  "  { id = \"a\", monitors = [\"192.0.2.1\"] },\n"
					  "  { id = \"b\", monitors = [\"192.0.2.2\"], "
					  "rados-namespace = \"\" },\n"
					  "]\n");
	ASSERT_EQ(map.clusters.size(), 2U);
	EXPECT_EQ(map.clusters[0], (ClusterEntry{ "a", { "192.0.2.1" }, "" }));
	EXPECT_EQ(map.clusters[1], (ClusterEntry{ "b", { "192.0.2.2" }, "" }));
}

TEST(ClusterMapToml, ShippedExampleIsValid)
{
	const char *path = std::getenv("RBDV_CLUSTER_MAP_EXAMPLE");
	ASSERT_NE(path, nullptr)
		<< "RBDV_CLUSTER_MAP_EXAMPLE (set by meson) names conf/csi-clusters.toml";
	const auto text = readFileBounded(path, SmallFileBytes, Symlinks::Follow);
	ASSERT_TRUE(text && *text) << path;
	const ClusterMap map = parseValid(**text);
	ASSERT_EQ(map.clusters.size(), 2U);
	EXPECT_EQ(map.clusters[0].clusterId, "rook-ceph");
	EXPECT_EQ(map.clusters[0].radosNamespace, "tenant_a");
	EXPECT_EQ(map.clusters[1].radosNamespace, "");
}

TEST(ClusterMapToml, FindByClusterId)
{
	const ClusterMap map = parseValid("[[cluster]]\nid = \"a\"\nmonitors = [\"192.0.2.1\"]\n"
					  "[[cluster]]\nid = \"b\"\nmonitors = [\"192.0.2.2\"]\n"
					  "rados-namespace = \"ns\"\n");
	const ClusterEntry *b = map.find("b");
	ASSERT_NE(b, nullptr);
	EXPECT_EQ(b->clusterId, "b");
	EXPECT_EQ(b->monitors, std::vector<std::string>{ "192.0.2.2" });
	EXPECT_EQ(b->radosNamespace, "ns");
	ASSERT_NE(map.find("a"), nullptr);
	EXPECT_EQ(map.find("a")->clusterId, "a");
	EXPECT_EQ(map.find("c"), nullptr);
	EXPECT_EQ(map.find(""), nullptr);
	EXPECT_EQ(map.find("A"), nullptr);
	EXPECT_EQ(ClusterMap{}.find("a"), nullptr);
}

TEST(ClusterMapToml, SharedChecks)
{
	EXPECT_EQ(clusterIdProblem("rook-ceph"), std::nullopt);
	EXPECT_EQ(clusterIdProblem(""), "expected a non-empty cluster id, found ''");
	EXPECT_EQ(clusterIdProblem("a\nb"),
		  "expected a cluster id without control characters, found 'a\\x0ab'");
	EXPECT_EQ(monitorCountProblem(1), std::nullopt);
	EXPECT_EQ(monitorCountProblem(0),
		  "expected at least one monitor address, found an empty array");
	EXPECT_EQ(radosNamespaceProblem(""), std::nullopt);
	EXPECT_EQ(radosNamespaceProblem("tenant_a"), std::nullopt);
	EXPECT_EQ(radosNamespaceProblem("a/b"),
		  "expected a name without '/', '@', whitespace or control characters, found "
		  "'a/b'");
	EXPECT_EQ(duplicateClusterIdProblem("a", "cluster[0].id"),
		  "expected each cluster id once, found 'a' again (first at cluster[0].id)");
}

TEST(ClusterMapToml, EveryProblemOfAnEntryIsReported)
{
	const ClusterMapOutcome outcome = parseClusterMapToml(
		"[[cluster]]\nid = \"\"\nmonitors = [\"192.0.2.1,192.0.2.2\", 1]\n"
		"rados-namespace = \"a b\"\nkeyring = \"/etc/ceph/keyring\"\n",
		std::string(File));
	EXPECT_EQ(messages(outcome),
		  (std::vector<std::string>{
			  std::string(File) +
				  ":2:6: cluster[0].id: expected a non-empty cluster id, found ''",
			  std::string(File) +
				  ":3:13: cluster[0].monitors[0]: expected one monitor address "
				  "per entry, without ',' or whitespace, found "
				  "'192.0.2.1,192.0.2.2'",
			  std::string(File) + ":3:36: cluster[0].monitors[1]: expected a string, "
					      "found an integer",
			  std::string(File) +
				  ":4:19: cluster[0].rados-namespace: expected a name without "
				  "'/', '@', whitespace or control characters, found 'a b'",
			  std::string(File) +
				  ":5:1: cluster[0].keyring: unknown key 'keyring'; expected "
				  "one of 'id', 'monitors', 'rados-namespace'",
		  }));
	EXPECT_TRUE(outcome.map.clusters.empty());
}

TEST(ClusterMapToml, GoodEntriesSurviveABadOne)
{
	/* The map is complete only without diagnostics; still, no bad entry gets into it. */
	const ClusterMapOutcome outcome =
		parseClusterMapToml("[[cluster]]\nid = \"a\"\nmonitors = [\"192.0.2.1\"]\n"
				    "[[cluster]]\nid = \"b\"\nmonitors = []\n",
				    std::string(File));
	EXPECT_FALSE(outcome.ok());
	ASSERT_EQ(outcome.map.clusters.size(), 1U);
	EXPECT_EQ(outcome.map.clusters[0].clusterId, "a");
}

TEST(ClusterMapToml, GarbageNeverThrows)
{
	const std::vector<std::string> inputs = {
		std::string("\0\0\0", 3),
		"\xff\xfe\x80",
		"[[[[[[[[[[",
		"cluster = [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[",
		"cluster = [{ cluster = [{ cluster = 1 }] }]",
		"cluster = [[], {}, 1.5, \"\", true]",
		"[[cluster]]\nmonitors = [[], {}, 1.5, \"\"]\nid = [\"a\"]\n",
		"[[cluster]]\nid = \"\xc3\x28\"\n",
		"\xc3\xa9 = 1\n",
	};
	for (const std::string &input : inputs) {
		SCOPED_TRACE(input);
		const ClusterMapOutcome outcome = parseClusterMapToml(input, std::string(File));
		EXPECT_FALSE(outcome.ok());
		for (const Diagnostic &diagnostic : outcome.diagnostics) {
			EXPECT_FALSE(diagnostic.message.empty());
			EXPECT_EQ(diagnostic.file, File);
		}
	}
}

TEST_P(ClusterMapTomlInvalid, IsReportedExactly)
{
	const InvalidCase &invalid = GetParam();
	const ClusterMapOutcome outcome = parseClusterMapToml(invalid.text, std::string(File));
	EXPECT_EQ(messages(outcome), expectedLines(File, invalid));
	EXPECT_FALSE(outcome.ok());
}

INSTANTIATE_TEST_SUITE_P(
	Cases, ClusterMapTomlInvalid,
	::testing::Values(
		InvalidCase{
			"InvalidToml",
			"[[cluster]\nid = \"a\"\n",
			{ "1:11: invalid TOML: Error while parsing table header: expected ']', saw "
			  "'\\n'" } },
		InvalidCase{
			"NonAsciiOutsideStrings",
			"[[cluster]]\nid = \"a\"\nmonitors = [\"192.0.2.1\"]\n\xc3\xa9 = 1\n",
			{ "4:1: invalid TOML: unexpected character outside a string or comment: "
			  "U+00E9" } },
		InvalidCase{ "UnknownTopLevelKey",
			     "clusters = []\n",
			     { "1:1: clusters: unknown key 'clusters'; did you mean 'cluster'?" } },
		InvalidCase{ "ClusterKeyAtTheTopLevel",
			     "id = \"a\"\nmonitors = [\"192.0.2.1\"]\n",
			     { "1:1: id: unknown key 'id'; did you mean 'id' in [[cluster]]?",
			       "2:1: monitors: unknown key 'monitors'; did you mean 'monitors' in "
			       "[[cluster]]?" } },
		InvalidCase{
			"UnknownTableAtTheTopLevel",
			"[clusterss]\n",
			{ "1:2: clusterss: unknown key 'clusterss'; did you mean 'cluster'?" } },
		InvalidCase{ "SingleTable",
			     "[cluster]\nid = \"a\"\nmonitors = [\"192.0.2.1\"]\n",
			     { "1:1: cluster: expected an array of tables ([[cluster]]), found a "
			       "table" } },
		InvalidCase{ "ClusterNotAnArray",
			     "cluster = \"a\"\n",
			     { "1:11: cluster: expected an array of tables ([[cluster]]), found a "
			       "string" } },
		InvalidCase{ "ClusterElementNotATable",
			     "cluster = [1]\n",
			     { "1:12: cluster[0]: expected a table, found an integer" } },
		InvalidCase{
			"UnknownClusterKey",
			"[[cluster]]\nid = \"a\"\nmonitors = [\"192.0.2.1\"]\nmonitor = \"x\"\n",
			{ "4:1: cluster[0].monitor: unknown key 'monitor'; did you mean "
			  "'monitors'?" } },
		InvalidCase{ "ConfigJsonKeyNames",
			     "[[cluster]]\nclusterID = \"a\"\nmonitors = [\"192.0.2.1\"]\n"
			     "radosNamespace = \"ns\"\n",
			     { "1:1: cluster[0].id: missing required key 'id' in [[cluster]]",
			       "2:1: cluster[0].clusterID: unknown key 'clusterID'; did you mean "
			       "'id'?",
			       "4:1: cluster[0].radosNamespace: unknown key 'radosNamespace'; did "
			       "you mean 'rados-namespace'?" } },
		InvalidCase{
			"QuotedKeyIsPrintedEscaped",
			"[[cluster]]\nid = \"a\"\nmonitors = [\"192.0.2.1\"]\n\"a\\u0001\" = 1\n",
			{ "4:1: cluster[0].a\\x01: unknown key 'a\\x01'; expected one of 'id', "
			  "'monitors', 'rados-namespace'" } },
		InvalidCase{ "MissingId",
			     "[[cluster]]\nmonitors = [\"192.0.2.1\"]\n",
			     { "1:1: cluster[0].id: missing required key 'id' in [[cluster]]" } },
		InvalidCase{ "MissingIdInTheSecondCluster",
			     "[[cluster]]\nid = \"a\"\nmonitors = [\"192.0.2.1\"]\n\n"
			     "[[cluster]]\nmonitors = [\"192.0.2.1\"]\n",
			     { "5:1: cluster[1].id: missing required key 'id' in [[cluster]]" } },
		InvalidCase{ "IdNotAString",
			     "[[cluster]]\nid = 7\nmonitors = [\"192.0.2.1\"]\n",
			     { "2:6: cluster[0].id: expected a string, found an integer" } },
		InvalidCase{ "EmptyId",
			     "[[cluster]]\nid = \"\"\nmonitors = [\"192.0.2.1\"]\n",
			     { "2:6: cluster[0].id: expected a non-empty cluster id, found ''" } },
		InvalidCase{ "IdWithAControlCharacter",
			     "[[cluster]]\nid = \"a\\tb\"\nmonitors = [\"192.0.2.1\"]\n",
			     { "2:6: cluster[0].id: expected a cluster id without control "
			       "characters, found 'a\\x09b'" } },
		InvalidCase{ "DuplicateId",
			     "[[cluster]]\nid = \"a\"\nmonitors = [\"192.0.2.1\"]\n"
			     "[[cluster]]\nid = \"b\"\nmonitors = [\"192.0.2.2\"]\n"
			     "[[cluster]]\nid = \"a\"\nmonitors = [\"192.0.2.3\"]\n",
			     { "8:6: cluster[2].id: expected each cluster id once, found 'a' again "
			       "(first at cluster[0].id)" } },
		InvalidCase{ "MissingMonitors",
			     "[[cluster]]\nid = \"a\"\n",
			     { "1:1: cluster[0].monitors: missing required key 'monitors' in "
			       "[[cluster]]" } },
		InvalidCase{ "MonitorsNotAnArray",
			     "[[cluster]]\nid = \"a\"\nmonitors = \"192.0.2.1,192.0.2.2\"\n",
			     { "3:12: cluster[0].monitors: expected an array of strings, found a "
			       "string" } },
		InvalidCase{ "NoMonitors",
			     "[[cluster]]\nid = \"a\"\nmonitors = []\n",
			     { "3:12: cluster[0].monitors: expected at least one monitor address, "
			       "found an empty array" } },
		InvalidCase{ "MonitorNotAString",
			     "[[cluster]]\nid = \"a\"\nmonitors = [\"192.0.2.1\", 6789]\n",
			     { "3:26: cluster[0].monitors[1]: expected a string, found an "
			       "integer" } },
		InvalidCase{
			"MonitorWithAComma",
			"[[cluster]]\nid = \"a\"\nmonitors = [\"192.0.2.1:6789,192.0.2.2:6789\"]\n",
			{ "3:13: cluster[0].monitors[0]: expected one monitor address per "
			  "entry, without ',' or whitespace, found "
			  "'192.0.2.1:6789,192.0.2.2:6789'" } },
		InvalidCase{ "MonitorIpv6WithoutBrackets",
			     "[[cluster]]\nid = \"a\"\nmonitors = [\"2001:db8::1\"]\n",
			     { "3:13: cluster[0].monitors[0]: expected an IPv6 address in brackets "
			       "('[2001:db8::1]:3300'), found '2001:db8::1'" } },
		InvalidCase{
			"MonitorBadPort",
			"[[cluster]]\nid = \"a\"\nmonitors = [\"192.0.2.1:99999\"]\n",
			{ "3:13: cluster[0].monitors[0]: expected a port from 1 to 65535, found "
			  "'99999' in '192.0.2.1:99999'" } },
		InvalidCase{ "NamespaceNotAString",
			     "[[cluster]]\nid = \"a\"\nmonitors = [\"192.0.2.1\"]\n"
			     "rados-namespace = [\"ns\"]\n",
			     { "4:19: cluster[0].rados-namespace: expected a string, found an "
			       "array" } },
		InvalidCase{ "NamespaceWithASlash",
			     "[[cluster]]\nid = \"a\"\nmonitors = [\"192.0.2.1\"]\n"
			     "rados-namespace = \"a/b\"\n",
			     { "4:19: cluster[0].rados-namespace: expected a name without '/', "
			       "'@', whitespace or control characters, found 'a/b'" } }));

} /* namespace rbdvolume::csi */
