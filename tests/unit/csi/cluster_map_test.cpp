/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The cluster map of rbd-volume-csi: ceph-csi's config.json, and loading either form from a file. */
#include "csi/cluster_map.hpp"

#include <filesystem>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "cluster_map_cases.hpp"
#include "csi/cluster_map_json.hpp"
#include "csi/cluster_map_load.hpp"
#include "temp_dir.hpp"

namespace rbdvolume::csi {

namespace {

using cases::expectedLines;
using cases::InvalidCase;
using cases::messages;

constexpr std::string_view File = "/etc/ceph-csi-config/config.json";

/* As a ceph-csi deployment writes it, keys rbd-volume-csi has no use for included. */
constexpr std::string_view CephCsiConfig = R"([
  {
    "clusterID": "rook-ceph",
    "monitors": [
      "10.98.44.171:6789",
      "10.98.44.172:6789",
      "v2:10.98.44.173:3300"
    ],
    "cephFS": {
      "subvolumeGroup": "csi",
      "netNamespaceFilePath": "/var/lib/kubelet/plugins/rook-ceph.cephfs.csi.ceph.com/net",
      "kernelMountOptions": "ms_mode=secure",
      "fuseMountOptions": ""
    },
    "rbd": {
      "netNamespaceFilePath": "/var/lib/kubelet/plugins/rook-ceph.rbd.csi.ceph.com/net",
      "radosNamespace": "tenant_a",
      "mirrorDaemonCount": 2
    },
    "nfs": {
      "netNamespaceFilePath": ""
    },
    "readAffinity": {
      "enabled": true,
      "crushLocationLabels": [
        "kubernetes.io/hostname",
        "topology.kubernetes.io/region"
      ]
    }
  },
  {
    "clusterID": "b9127830-b0cc-4e34-aa47-9d1a2e9949a8",
    "monitors": ["[2001:db8::10]:6789", "mon-b.example.com"],
    "rbd": {},
    "radosNamespace": "legacy-top-level-key-ceph-csi-ignores"
  }
]
)";

ClusterMap parseValid(std::string_view text)
{
	ClusterMapOutcome outcome = parseClusterMapJson(text, std::string(File));
	for (const Diagnostic &diagnostic : outcome.diagnostics)
		ADD_FAILURE() << diagnostic.format();
	return std::move(outcome.map);
}

/* A file removed when the test ends. */
class TempFile
{
public:
	explicit TempFile(std::string_view text) : path_(dir_.path() + "/clusters")
	{
		dir_.write("clusters", std::string(text));
	}

	const std::string &path() const { return path_; }

private:
	rbdvolume::testing::TempDir dir_;
	std::string path_;
};

class ClusterMapJsonInvalid : public ::testing::TestWithParam<InvalidCase>
{
};

} /* namespace */

TEST(ClusterMapJson, CephCsiConfigKeepsWhatWeUse)
{
	const ClusterMap map = parseValid(CephCsiConfig);
	const ClusterMap expected{ {
		ClusterEntry{ "rook-ceph",
			      { "10.98.44.171:6789", "10.98.44.172:6789", "v2:10.98.44.173:3300" },
			      "tenant_a" },
		ClusterEntry{ "b9127830-b0cc-4e34-aa47-9d1a2e9949a8",
			      { "[2001:db8::10]:6789", "mon-b.example.com" },
			      "" },
	} };
	EXPECT_EQ(map, expected);
	ASSERT_NE(map.find("rook-ceph"), nullptr);
	EXPECT_EQ(map.find("rook-ceph")->radosNamespace, "tenant_a");
	EXPECT_EQ(map.find("rook"), nullptr);
}

TEST(ClusterMapJson, EmptyArrayIsAnEmptyMap)
{
	EXPECT_EQ(parseValid("[]"), ClusterMap{});
	EXPECT_EQ(parseValid("\n  [ ]\n"), ClusterMap{});
}

TEST(ClusterMapJson, NullsReadAsCephCsiReadsThem)
{
	/* Go's encoding/json leaves a field unset for null; so do we for the optional ones. */
	EXPECT_EQ(parseValid(R"([{"clusterID": "a", "monitors": ["192.0.2.1"], "rbd": null},
				 {"clusterID": "b", "monitors": ["192.0.2.2"],
				  "rbd": {"radosNamespace": null}}])"),
		  (ClusterMap{ {
			  ClusterEntry{ "a", { "192.0.2.1" }, "" },
			  ClusterEntry{ "b", { "192.0.2.2" }, "" },
		  } }));
}

TEST(ClusterMapJson, EveryProblemOfAnEntryIsReported)
{
	const ClusterMapOutcome outcome = parseClusterMapJson(
		R"([{"clusterID": "", "monitors": ["192.0.2.1,192.0.2.2", 6789],
		     "rbd": {"radosNamespace": "a b"}}])",
		std::string(File));
	EXPECT_EQ(
		messages(outcome),
		(std::vector<std::string>{
			std::string(File) + ": [0].clusterID: expected a non-empty cluster id, "
					    "found ''",
			std::string(File) + ": [0].monitors[0]: expected one monitor address "
					    "per entry, without ',' or whitespace, found "
					    "'192.0.2.1,192.0.2.2'",
			std::string(File) + ": [0].monitors[1]: expected a string, found a number",
			std::string(File) + ": [0].rbd.radosNamespace: expected a name without "
					    "'/', '@', whitespace or control characters, found "
					    "'a b'",
		}));
	EXPECT_TRUE(outcome.map.clusters.empty());
}

TEST(ClusterMapJson, GarbageNeverThrows)
{
	const std::vector<std::string> inputs = {
		"",
		std::string("\0\0\0", 3),
		"\xff\xfe\x80",
		"[[[[[[[[[[",
		std::string(size_t{ 1024 } * 1024, '['),
		"[" + std::string(size_t{ 512 } * 1024, '{'),
		R"([{"clusterID": "a\u0000b", "monitors": ["192.0.2.1"]}])",
		"[{\"clusterID\": \"\xc3\x28\", \"monitors\": [\"192.0.2.1\"]}]",
		R"([{"clusterID": "a", "monitors": [[], {}, 1.5, "", null, true]}])",
		"[1e999999]",
		"null",
	};
	for (const std::string &input : inputs) {
		SCOPED_TRACE(input.substr(0, 80));
		const ClusterMapOutcome outcome = parseClusterMapJson(input, std::string(File));
		EXPECT_FALSE(outcome.ok());
		for (const Diagnostic &diagnostic : outcome.diagnostics) {
			EXPECT_FALSE(diagnostic.message.empty());
			EXPECT_EQ(diagnostic.file, File);
		}
	}
}

TEST_P(ClusterMapJsonInvalid, IsReportedExactly)
{
	const InvalidCase &invalid = GetParam();
	const ClusterMapOutcome outcome = parseClusterMapJson(invalid.text, std::string(File));
	EXPECT_EQ(messages(outcome), expectedLines(File, invalid));
	EXPECT_FALSE(outcome.ok());
}

INSTANTIATE_TEST_SUITE_P(
	Cases, ClusterMapJsonInvalid,
	::testing::Values(
		InvalidCase{
			"TopLevelObject",
			"\n  {\"clusterID\": \"a\", \"monitors\": [\"192.0.2.1\"]}\n",
			{ "2:3: expected a JSON array of clusters as in ceph-csi's config.json "
			  "('[{\"clusterID\": ..., \"monitors\": [...]}]'), found an object" } },
		InvalidCase{
			"TopLevelString",
			"\"rook-ceph\"",
			{ " expected a JSON array of clusters as in ceph-csi's config.json "
			  "('[{\"clusterID\": ..., \"monitors\": [...]}]'), found a string" } },
		InvalidCase{ "SyntaxErrorIsLocated",
			     "[\n  {\"clusterID\": \"a\"\n   \"monitors\": [\"192.0.2.1\"]}\n]\n",
			     { "3:4: invalid JSON: Expected , or } after key:value pair." } },
		InvalidCase{
			"SyntaxErrorAtTheEnd",
			"[{\"clusterID\": \"a\", \"monitors\": [\"192.0.2.1\"]}\n\n",
			{ "1:47: invalid JSON: Unexpected end of string. Expected , or ] after "
			  "array value." } },
		InvalidCase{ "UnterminatedString",
			     "[{\"clusterID\": \"rook\n",
			     { "1:21: invalid JSON: Closing quote expected in string." } },
		InvalidCase{ "TrailingGarbage",
			     "[] []",
			     { "1:4: invalid JSON: Parsing terminated before end of input." } },
		InvalidCase{ "RepeatedKey",
			     "[{\"clusterID\": \"a\", \"clusterID\": \"b\", \"monitors\": []}]",
			     { " invalid JSON: clusterID: Repeated map key: 'clusterID' is already "
			       "set." } },
		InvalidCase{
			"NestedTooDeep",
			"[{\"clusterID\": \"a\", \"monitors\": [\"192.0.2.1\"],\n"
			" \"x\": "
			"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\"[[[[\"]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}]",
			{ "2:37: expected JSON nested at most 32 deep, found deeper nesting" } },
		InvalidCase{
			"NestedToTheLimit",
			"[{\"x\": "
			"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\"\\\"[[\"]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}]",
			{ " [0].clusterID: missing required key 'clusterID'",
			  " [0].monitors: missing required key 'monitors'" } },
		InvalidCase{ "ElementNotAnObject",
			     "[\"rook-ceph\"]",
			     { " [0]: expected an object, found a string" } },
		InvalidCase{ "MissingClusterId",
			     "[{\"monitors\": [\"192.0.2.1\"]}]",
			     { " [0].clusterID: missing required key 'clusterID'" } },
		InvalidCase{ "ClusterIdIsCaseSensitive",
			     "[{\"clusterId\": \"a\", \"monitors\": [\"192.0.2.1\"]}]",
			     { " [0].clusterID: missing required key 'clusterID'" } },
		InvalidCase{ "ClusterIdNotAString",
			     "[{\"clusterID\": 7, \"monitors\": [\"192.0.2.1\"]}]",
			     { " [0].clusterID: expected a string, found a number" } },
		InvalidCase{ "ClusterIdNull",
			     "[{\"clusterID\": null, \"monitors\": [\"192.0.2.1\"]}]",
			     { " [0].clusterID: expected a string, found null" } },
		InvalidCase{ "EmptyClusterId",
			     "[{\"clusterID\": \"\", \"monitors\": [\"192.0.2.1\"]}]",
			     { " [0].clusterID: expected a non-empty cluster id, found ''" } },
		InvalidCase{ "DuplicateClusterId",
			     "[{\"clusterID\": \"a\", \"monitors\": [\"192.0.2.1\"]},\n"
			     " {\"clusterID\": \"b\", \"monitors\": [\"192.0.2.2\"]},\n"
			     " {\"clusterID\": \"a\", \"monitors\": [\"192.0.2.3\"]}]",
			     { " [2].clusterID: expected each cluster id once, found 'a' again "
			       "(first at [0].clusterID)" } },
		InvalidCase{ "MissingMonitors",
			     "[{\"clusterID\": \"a\"}]",
			     { " [0].monitors: missing required key 'monitors'" } },
		InvalidCase{ "MonitorsNotAnArray",
			     "[{\"clusterID\": \"a\", \"monitors\": \"192.0.2.1,192.0.2.2\"}]",
			     { " [0].monitors: expected an array of strings, found a string" } },
		InvalidCase{
			"NoMonitors",
			"[{\"clusterID\": \"a\", \"monitors\": []}]",
			{ " [0].monitors: expected at least one monitor address, found an empty "
			  "array" } },
		InvalidCase{
			"MonitorInTheSecondCluster",
			"[{\"clusterID\": \"a\", \"monitors\": [\"192.0.2.1\"]},\n"
			" {\"clusterID\": \"b\", \"monitors\": [\"192.0.2.2\", \"2001:db8::1\"]}]",
			{ " [1].monitors[1]: expected an IPv6 address in brackets "
			  "('[2001:db8::1]:3300'), found '2001:db8::1'" } },
		InvalidCase{
			"RbdNotAnObject",
			"[{\"clusterID\": \"a\", \"monitors\": [\"192.0.2.1\"], \"rbd\": \"ns\"}]",
			{ " [0].rbd: expected an object, found a string" } },
		InvalidCase{ "NamespaceNotAString",
			     "[{\"clusterID\": \"a\", \"monitors\": [\"192.0.2.1\"],\n"
			     "  \"rbd\": {\"radosNamespace\": 1}}]",
			     { " [0].rbd.radosNamespace: expected a string, found a number" } },
		InvalidCase{
			"NamespaceWithASlash",
			"[{\"clusterID\": \"a\", \"monitors\": [\"192.0.2.1\"],\n"
			"  \"rbd\": {\"radosNamespace\": \"a/b\"}}]",
			{ " [0].rbd.radosNamespace: expected a name without '/', '@', whitespace "
			  "or control characters, found 'a/b'" } }));

TEST(ClusterMapFormat, IsChosenByTheFirstCharacter)
{
	EXPECT_EQ(detectClusterMapFormat(""), ClusterMapFormat::Toml);
	EXPECT_EQ(detectClusterMapFormat(" \n\t"), ClusterMapFormat::Toml);
	EXPECT_EQ(detectClusterMapFormat("# comment\n[[cluster]]\n"), ClusterMapFormat::Toml);
	EXPECT_EQ(detectClusterMapFormat("[[cluster]]\nid = \"a\"\n"), ClusterMapFormat::Toml);
	EXPECT_EQ(detectClusterMapFormat("\n[cluster]\n"), ClusterMapFormat::Toml);
	EXPECT_EQ(detectClusterMapFormat("[ cluster ]\n"), ClusterMapFormat::Toml);
	EXPECT_EQ(detectClusterMapFormat("cluster = []\n"), ClusterMapFormat::Toml);
	EXPECT_EQ(detectClusterMapFormat("[]"), ClusterMapFormat::Json);
	EXPECT_EQ(detectClusterMapFormat("["), ClusterMapFormat::Json);
	EXPECT_EQ(detectClusterMapFormat("\r\n  [\n  {\"clusterID\": \"a\"}]"),
		  ClusterMapFormat::Json);
	EXPECT_EQ(detectClusterMapFormat("[{\"clusterID\": \"a\"}]"), ClusterMapFormat::Json);
	EXPECT_EQ(detectClusterMapFormat("[ {}]"), ClusterMapFormat::Json);
	EXPECT_EQ(detectClusterMapFormat("{\"clusterID\": \"a\"}"), ClusterMapFormat::Json);
	EXPECT_EQ(detectClusterMapFormat("  {"), ClusterMapFormat::Json);
}

TEST(ClusterMapLoad, ReadsCephCsiConfigJson)
{
	const TempFile file(CephCsiConfig);
	const ClusterMapOutcome outcome = loadClusterMap(file.path());
	EXPECT_EQ(messages(outcome), std::vector<std::string>{});
	EXPECT_EQ(outcome.map, parseValid(CephCsiConfig));
}

TEST(ClusterMapLoad, ReadsToml)
{
	const TempFile file("[[cluster]]\nid = \"rook-ceph\"\nmonitors = [\"192.0.2.1:6789\"]\n"
			    "rados-namespace = \"tenant_a\"\n");
	const ClusterMapOutcome outcome = loadClusterMap(file.path());
	EXPECT_EQ(messages(outcome), std::vector<std::string>{});
	EXPECT_EQ(
		outcome.map,
		(ClusterMap{ { ClusterEntry{ "rook-ceph", { "192.0.2.1:6789" }, "tenant_a" } } }));
}

TEST(ClusterMapLoad, EmptyFileIsAnEmptyMap)
{
	const TempFile file("");
	const ClusterMapOutcome outcome = loadClusterMap(file.path());
	EXPECT_TRUE(outcome.ok());
	EXPECT_EQ(outcome.map, ClusterMap{});
}

TEST(ClusterMapLoad, DiagnosticsNameTheFile)
{
	const TempFile toml("[[cluster]]\nid = \"a\"\nmonitors = []\n");
	EXPECT_EQ(messages(loadClusterMap(toml.path())),
		  std::vector<std::string>{ toml.path() +
					    ":3:12: cluster[0].monitors: expected at least one "
					    "monitor address, found an empty array" });
	const TempFile json(R"([{"clusterID": "a", "monitors": []}])");
	EXPECT_EQ(messages(loadClusterMap(json.path())),
		  std::vector<std::string>{ json.path() +
					    ": [0].monitors: expected at least one monitor "
					    "address, found an empty array" });
}

TEST(ClusterMapLoad, TopLevelObjectIsExplained)
{
	const TempFile file(
		"{\"clusterID\": \"a\", \"monitors\": [\"192.0.2.1\"], \"rbd\": {},}\n");
	EXPECT_EQ(messages(loadClusterMap(file.path())),
		  std::vector<std::string>{
			  file.path() +
			  ":1:1: expected a JSON array of clusters as in ceph-csi's config.json "
			  "('[{\"clusterID\": ..., \"monitors\": [...]}]'), found an object" });
}

TEST(ClusterMapLoad, MissingFileIsOneDiagnostic)
{
	const std::string path = "/nonexistent/dir/config.json";
	EXPECT_EQ(messages(loadClusterMap(path)),
		  std::vector<std::string>{ path +
					    ": cannot read the file: No such file or directory" });
}

TEST(ClusterMapLoad, DirectoryIsOneDiagnostic)
{
	const std::string dir = std::filesystem::temp_directory_path().string();
	EXPECT_EQ(messages(loadClusterMap(dir)),
		  std::vector<std::string>{ dir + ": expected a file, found a directory" });
}

TEST(ClusterMapLoad, HugeFileIsRefused)
{
	const TempFile file(std::string(size_t{ 1024 } * 1024 + 1, ' '));
	EXPECT_EQ(messages(loadClusterMap(file.path())),
		  std::vector<std::string>{ file.path() + ": expected a cluster map of at most "
							  "1 MiB, found a larger file" });
}

} /* namespace rbdvolume::csi */
