/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* parseVolumeSpec/loadVolumeSpec: defaults, parsed fields, diagnostics and robustness. */
#include "config/spec_parser.hpp"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/paths.hpp"
#include "spec_test_support.hpp"

namespace rbdvolume {

namespace {

constexpr std::string_view MinimalImage = "[image]\npool = \"rbd\"\nname = \"data\"\n";

SpecOutcome parse(std::string_view text, const std::string &path = "/etc/vol.toml")
{
	return parseVolumeSpec(text, path);
}

VolumeSpec parseValid(std::string_view text, const std::string &path = "/etc/vol.toml")
{
	SpecOutcome outcome = parse(text, path);
	for (const Diagnostic &diagnostic : outcome.diagnostics)
		ADD_FAILURE() << diagnostic.format();
	return std::move(outcome.spec);
}

VolumeSpec loadValid(const std::string &name)
{
	const std::string path = test::testDataDir() + "/specs/valid/" + name;
	SpecOutcome outcome = loadVolumeSpec(path);
	for (const Diagnostic &diagnostic : outcome.diagnostics)
		ADD_FAILURE() << diagnostic.format();
	return std::move(outcome.spec);
}

std::vector<std::string> messages(const SpecOutcome &outcome)
{
	std::vector<std::string> lines;
	lines.reserve(outcome.diagnostics.size());
	for (const Diagnostic &diagnostic : outcome.diagnostics)
		lines.push_back(diagnostic.format());
	return lines;
}

} /* namespace */

TEST(SpecParser, MinimalSpecGetsEveryDefault)
{
	const VolumeSpec spec = parseValid(MinimalImage, "/etc/rbd-volume/volumes/data1.toml");
	EXPECT_EQ(spec.name, "data1");
	EXPECT_EQ(spec.sourceFile, "/etc/rbd-volume/volumes/data1.toml");
	EXPECT_EQ(spec.image.pool, "rbd");
	EXPECT_EQ(spec.image.name, "data");
	EXPECT_EQ(spec.image.radosNamespace, "");
	EXPECT_EQ(spec.image.snapshot, "");
	EXPECT_FALSE(spec.image.create.has_value());
	EXPECT_EQ(spec.cluster, ClusterSpec{});
	EXPECT_EQ(spec.cluster.conf, "/etc/ceph/ceph.conf");
	EXPECT_EQ(spec.cluster.clientId, "admin");
	EXPECT_EQ(spec.map, MapSpec{});
	EXPECT_EQ(spec.mode, VolumeMode::Filesystem);
	ASSERT_TRUE(spec.filesystem.has_value());
	EXPECT_EQ(*spec.filesystem, FilesystemSpec{});
	EXPECT_EQ(spec.staging.path, paths::defaultStagingPath("data1"));
	EXPECT_EQ(spec.staging.path, "/run/rbd-volume/staging/data1");
	EXPECT_TRUE(spec.staging.options.empty());
	EXPECT_TRUE(spec.publish.empty());
	EXPECT_FALSE(spec.readOnly());
}

TEST(SpecParser, FullFilesystemSpec)
{
	const VolumeSpec spec = loadValid("full_fs.toml");
	EXPECT_EQ(spec.name, "full_fs");
	EXPECT_EQ(spec.image.display(), "rbd/tenant_a/data");
	ASSERT_TRUE(spec.image.create.has_value());
	EXPECT_EQ(spec.image.create->sizeBytes, 10ULL << 30U);
	EXPECT_EQ(spec.image.create->features,
		  (std::vector<std::string>{ "layering", "exclusive-lock", "object-map",
					     "fast-diff", "deep-flatten" }));
	EXPECT_EQ(spec.cluster.conf, "/etc/ceph/prod.conf");
	EXPECT_EQ(spec.cluster.clientId, "volumes");
	EXPECT_EQ(spec.cluster.keyring, "/etc/ceph/ceph.client.volumes.keyring");
	EXPECT_EQ(spec.cluster.keyfile, "");
	EXPECT_EQ(spec.cluster.monitors.size(), 4U);
	EXPECT_EQ(spec.map.driver, Driver::Krbd);
	EXPECT_FALSE(spec.map.readOnly);
	EXPECT_TRUE(spec.map.exclusive);
	EXPECT_FALSE(spec.map.multiWriter);
	EXPECT_EQ(spec.map.krbdOptions.front(), "queue_depth=128");
	ASSERT_TRUE(spec.filesystem.has_value());
	EXPECT_EQ(spec.filesystem->type, FsType::Ext4);
	EXPECT_EQ(spec.filesystem->mkfsOptions,
		  (std::vector<std::string>{ "-m", "0", "-L", "data" }));
	EXPECT_EQ(spec.filesystem->format, FormatPolicy::Never);
	EXPECT_EQ(spec.filesystem->check, CheckPolicy::Never);
	EXPECT_EQ(spec.filesystem->grow, GrowPolicy::Never);
	EXPECT_EQ(spec.staging.path, "/var/lib/rbd-volume/data");
	EXPECT_EQ(spec.staging.options, (std::vector<std::string>{ "noatime", "discard" }));
	ASSERT_EQ(spec.publish.size(), 2U);
	EXPECT_EQ(spec.publish[0].path, "/srv/data");
	EXPECT_FALSE(spec.publish[0].readOnly);
	EXPECT_EQ(spec.publish[0].options, (std::vector<std::string>{ "nosuid", "nodev" }));
	EXPECT_EQ(spec.publish[1].path, "/srv/data-ro");
	EXPECT_TRUE(spec.publish[1].readOnly);
}

TEST(SpecParser, BlockModeHasNoFilesystem)
{
	const VolumeSpec spec = loadValid("block.toml");
	EXPECT_EQ(spec.mode, VolumeMode::Block);
	EXPECT_FALSE(spec.filesystem.has_value());
	EXPECT_TRUE(spec.map.multiWriter);
	EXPECT_EQ(spec.map.krbdOptions, (std::vector<std::string>{ "noudev", "alloc_size=65536" }));
	ASSERT_EQ(spec.publish.size(), 1U);
	EXPECT_TRUE(spec.publish[0].options.empty());
}

TEST(SpecParser, SnapshotIsReadOnlyAndSoAreItsTargets)
{
	const VolumeSpec spec = loadValid("snapshot.toml");
	EXPECT_EQ(spec.image.display(), "backups/db@nightly-2024-01-01");
	EXPECT_TRUE(spec.map.readOnly);
	EXPECT_TRUE(spec.readOnly());
	EXPECT_EQ(spec.cluster.clientId, "backup-reader");
	EXPECT_EQ(spec.cluster.keyfile, "/etc/ceph/backup-reader.secret");
	ASSERT_EQ(spec.publish.size(), 1U);
	EXPECT_TRUE(spec.publish[0].readOnly);
}

TEST(SpecParser, XfsWithCreateInBytes)
{
	const VolumeSpec spec = loadValid("xfs_create.toml");
	ASSERT_TRUE(spec.image.create.has_value());
	EXPECT_EQ(spec.image.create->sizeBytes, 21474836480ULL);
	ASSERT_TRUE(spec.filesystem.has_value());
	EXPECT_EQ(spec.filesystem->type, FsType::Xfs);
	EXPECT_EQ(spec.filesystem->format, FormatPolicy::IfBlank);
	EXPECT_EQ(spec.staging.options, std::vector<std::string>{ "noatime" });
}

TEST(SpecParser, NbdOptions)
{
	const VolumeSpec spec = loadValid("nbd_options.toml");
	EXPECT_EQ(spec.map.driver, Driver::Nbd);
	EXPECT_TRUE(spec.map.readOnly);
	EXPECT_TRUE(spec.map.krbdOptions.empty());
	ASSERT_EQ(spec.map.nbdOptions.size(), 6U);
	EXPECT_EQ(spec.map.nbdOptions[0], "reattach-timeout=300");
	EXPECT_EQ(spec.image.display(), "rbd/ns1/vm-disk");
}

/* krbd fails writes to a full pool unless the spec asks it to hold them. */
TEST(SpecParser, KrbdAbortsOnAFullPoolUnlessTheSpecSaysNot)
{
	EXPECT_TRUE(parseValid(MinimalImage).map.krbdAbortOnFull);
	const VolumeSpec waits =
		parseValid(std::string(MinimalImage) + "[map.krbd]\nabort-on-full = false\n");
	EXPECT_FALSE(waits.map.krbdAbortOnFull);
	EXPECT_TRUE(waits.map.krbdOptions.empty());
	const SpecOutcome both =
		parse(std::string(MinimalImage) +
		      "[map.krbd]\noptions = [\"abort_on_full\"]\nabort-on-full = false\n");
	ASSERT_EQ(both.diagnostics.size(), 1U);
	EXPECT_EQ(both.diagnostics[0].field, "map.krbd.abort-on-full");
	EXPECT_NE(both.diagnostics[0].message.find("expected no 'abort_on_full' in options"),
		  std::string::npos);
	EXPECT_EQ(parse(std::string(MinimalImage) +
			"[map]\ndriver = \"nbd\"\n[map.krbd]\nabort-on-full = false\n")
			  .diagnostics.size(),
		  1U);
}

TEST(SpecParser, InlineTablesReadLikeHeaders)
{
	const VolumeSpec spec = loadValid("fuse_inline.toml");
	EXPECT_EQ(spec.map.driver, Driver::Fuse);
	ASSERT_TRUE(spec.image.create.has_value());
	EXPECT_EQ(spec.image.create->sizeBytes, 512ULL << 20U);
	ASSERT_TRUE(spec.filesystem.has_value());
	EXPECT_EQ(spec.filesystem->type, FsType::Xfs);
	ASSERT_EQ(spec.publish.size(), 2U);
	EXPECT_EQ(spec.publish[1].options, std::vector<std::string>{ "noexec" });
}

TEST(SpecParser, PublishReadOnlyDefaultsFromTheVolume)
{
	const std::string text = std::string(MinimalImage) +
				 "[map]\nread-only = true\n"
				 "[[publish]]\npath = \"/srv/a\"\n"
				 "[[publish]]\npath = \"/srv/b\"\nread-only = true\n";
	const VolumeSpec spec = parseValid(text);
	ASSERT_EQ(spec.publish.size(), 2U);
	EXPECT_TRUE(spec.publish[0].readOnly);
	EXPECT_TRUE(spec.publish[1].readOnly);

	/* A read-write volume may still publish a read-only view. */
	const VolumeSpec rw = parseValid(std::string(MinimalImage) +
					 "[[publish]]\npath = \"/srv/a\"\nread-only = true\n"
					 "[[publish]]\npath = \"/srv/b\"\n");
	EXPECT_TRUE(rw.publish[0].readOnly);
	EXPECT_FALSE(rw.publish[1].readOnly);
}

TEST(SpecParser, SizeSpellings)
{
	const std::vector<std::pair<std::string, uint64_t>> sizes = {
		{ "\"10G\"", 10ULL << 30U },
		{ "\"10GiB\"", 10ULL << 30U },
		{ "\"10GB\"", 10ULL << 30U },
		{ "\"512M\"", 512ULL << 20U },
		{ "\"4K\"", 4096 },
		{ "\"1T\"", 1ULL << 40U },
		{ "\"2P\"", 2ULL << 50U },
		{ "\"1048576\"", 1048576 },
		{ "4096", 4096 },
	};
	for (const auto &[value, bytes] : sizes) {
		SCOPED_TRACE(value);
		const VolumeSpec spec = parseValid(std::string(MinimalImage) +
						   "[image.create]\nsize = " + value + "\n");
		ASSERT_TRUE(spec.image.create.has_value());
		EXPECT_EQ(spec.image.create->sizeBytes, bytes);
		EXPECT_TRUE(spec.image.create->features.empty());
	}
}

TEST(SpecParser, VersionOneIsAccepted)
{
	parseValid("version = 1\n" + std::string(MinimalImage));
}

TEST(SpecParser, DriverSectionsFitTheirDriver)
{
	parseValid(std::string(MinimalImage) +
		   "[map]\ndriver = \"krbd\"\n[map.krbd]\noptions = []\n");
	parseValid(std::string(MinimalImage) +
		   "[map]\ndriver = \"nbd\"\n[map.nbd]\noptions = []\n");
	/* auto may pick either, so both sections are allowed. */
	parseValid(std::string(MinimalImage) + "[map.krbd]\noptions = [\"notrim\"]\n"
					       "[map.nbd]\noptions = [\"quiesce\"]\n");
}

TEST(SpecParser, StagingInsideAnotherDirectoryThanPublishIsFine)
{
	/* Siblings sharing a prefix are not nested: /srv/a and /srv/ab. */
	const VolumeSpec spec =
		parseValid(std::string(MinimalImage) + "[staging]\npath = \"/srv/a\"\n"
						       "[[publish]]\npath = \"/srv/ab\"\n"
						       "[[publish]]\npath = \"/srv/abc\"\n");
	EXPECT_EQ(spec.publish.size(), 2U);
}

TEST(SpecParser, DiagnosticsAreInFileOrderAcrossChecks)
{
	/* The cross-field error (line 8) is found after the value error (line 10), yet comes first. */
	const SpecOutcome outcome = parse(std::string(MinimalImage) +
					  "[map]\nread-only = true\n"
					  "[[publish]]\npath = \"/srv/a\"\nread-only = false\n"
					  "[staging]\npath = \"rel\"\n");
	EXPECT_EQ(
		messages(outcome),
		(std::vector<std::string>{
			"/etc/vol.toml:8:13: publish[0].read-only: expected true (the volume "
			"is read-only: map.read-only = true), found false",
			"/etc/vol.toml:10:8: staging.path: expected an absolute path, found 'rel'",
		}));
}

TEST(SpecParser, OneMistakeGivesOneDiagnostic)
{
	/* A bad driver does not also make [map.nbd] "belong to another driver". */
	const SpecOutcome outcome = parse(std::string(MinimalImage) +
					  "[map]\ndriver = \"rbd\"\n[map.nbd]\noptions = []\n");
	ASSERT_EQ(outcome.diagnostics.size(), 1U);
	EXPECT_EQ(outcome.diagnostics[0].field, "map.driver");
	EXPECT_EQ(outcome.diagnostics[0].line, 5U);
	EXPECT_EQ(outcome.diagnostics[0].column, 10U);
}

/* A misspelt key is one mistake: its "did you mean" says the required key is missing. */
TEST(SpecParser, AMisspeltRequiredKeyIsOneDiagnostic)
{
	EXPECT_EQ(
		messages(parse("[image]\npol = \"rbd\"\nname = \"d\"\n")),
		(std::vector<std::string>{
			"/etc/vol.toml:2:1: image.pol: unknown key 'pol'; did you mean 'pool'?" }));
}

/* A key written in the wrong table is told its table. */
TEST(SpecParser, AMisplacedKeyIsToldWhereItBelongs)
{
	EXPECT_EQ(
		messages(parse(std::string("driver = \"krbd\"\ntype = \"xfs\"\n") +
			       std::string(MinimalImage))),
		(std::vector<std::string>{
			"/etc/vol.toml:1:1: driver: unknown key 'driver' here; it belongs in [map]",
			"/etc/vol.toml:2:1: type: unknown key 'type' here; it belongs in "
			"[filesystem] or [encryption]",
		}));
	/* A near miss of a key of this table stays a "did you mean". */
	EXPECT_EQ(
		messages(parse("[image]\npool = \"rbd\"\nname = \"d\"\nnme = \"x\"\n")),
		(std::vector<std::string>{
			"/etc/vol.toml:4:1: image.nme: unknown key 'nme'; did you mean 'name'?" }));
}

/* rbd's POOL/NAMESPACE and IMAGE@SNAP spellings point to the keys that take their parts. */
TEST(SpecParser, RbdSpellingsPointToTheirKeys)
{
	const std::string prefix = "expected a name without '/', '@', whitespace or control "
				   "characters, found ";
	EXPECT_EQ(messages(parse("[image]\npool = \"rbd/x\"\nname = \"data@snap\"\n")),
		  (std::vector<std::string>{
			  "/etc/vol.toml:2:8: image.pool: " + prefix +
				  "'rbd/x'; a namespace has its own key: pool = 'rbd', namespace = "
				  "'x'",
			  "/etc/vol.toml:3:8: image.name: " + prefix +
				  "'data@snap'; a snapshot has its own key: name = 'data', "
				  "snapshot = "
				  "'snap'",
		  }));
	EXPECT_EQ(messages(parse("[image]\npool = \"rbd\"\nname = \"rbd/data\"\n")),
		  (std::vector<std::string>{ "/etc/vol.toml:3:8: image.name: " + prefix +
					     "'rbd/data'; the pool has its own key: pool = 'rbd', "
					     "name = 'data'" }));
}

/* An enumerated key is told its values, and the near one when it is a near miss or another case. */
TEST(SpecParser, ChoicesAreListedAndNearMissesNamed)
{
	EXPECT_EQ(messages(parse(std::string(MinimalImage) +
				 "[map]\ndriver = \"KRBD\"\n[filesystem]\ngrow = true\n")),
		  (std::vector<std::string>{
			  "/etc/vol.toml:5:10: map.driver: expected one of 'krbd', 'nbd', 'fuse', "
			  "'auto', found 'KRBD'; did you mean 'krbd'?",
			  "/etc/vol.toml:7:8: filesystem.grow: expected one of 'auto', 'never', "
			  "found a boolean",
		  }));
}

/* toml++ calls a missing closing quote "unescaped control characters"; a real one stays so. */
TEST(SpecParser, AnUnterminatedStringIsCalledSo)
{
	EXPECT_EQ(
		messages(parse("[image]\npool = \"rbd\nname = \"d\"\n")),
		(std::vector<std::string>{ "/etc/vol.toml:2:12: invalid TOML: unterminated string: "
					   "its closing quote is missing on this line" }));
	const std::vector<std::string> control =
		messages(parse("[image]\npool = \"r\x01b\"\nname = \"d\"\n"));
	ASSERT_EQ(control.size(), 1U);
	EXPECT_NE(control[0].find("unescaped control characters"), std::string::npos) << control[0];
}

TEST(SpecParser, ControlCharactersAreEscapedInMessages)
{
	const SpecOutcome outcome = parse("[image]\npool = \"a\\u001bb\"\nname = \"x\"\n");
	ASSERT_EQ(outcome.diagnostics.size(), 1U);
	EXPECT_EQ(outcome.diagnostics[0].message,
		  "expected a name without '/', '@', whitespace or control characters, found "
		  "'a\\x1bb'");
}

TEST(SpecParser, UnknownQuotedKeysAreEscapedInTheField)
{
	const SpecOutcome outcome = parse(std::string(MinimalImage) + "\"a\\nb\" = 1\n");
	ASSERT_EQ(outcome.diagnostics.size(), 1U);
	EXPECT_EQ(outcome.diagnostics[0].field, "image.a\\x0ab");
	EXPECT_EQ(outcome.diagnostics[0].message,
		  "unknown key 'a\\x0ab'; expected one of 'pool', 'namespace', 'name', "
		  "'snapshot', 'create'");
}

TEST(SpecParser, VolumeNameIsTheStem)
{
	EXPECT_EQ(parseValid(MinimalImage, "vol.toml").name, "vol");
	EXPECT_EQ(parseValid(MinimalImage, "./a.b/c_d.toml").name, "c_d");

	const SpecOutcome bad = parse(MinimalImage, "/etc/rbd-volume/volumes/.toml");
	ASSERT_EQ(bad.diagnostics.size(), 1U);
	EXPECT_EQ(bad.diagnostics[0].line, 0U);
	EXPECT_EQ(bad.diagnostics[0].format(),
		  "/etc/rbd-volume/volumes/.toml: expected a file name of the form NAME.toml "
		  "with a valid volume name, found '.toml': a volume name cannot be empty");
}

TEST(SpecParser, GarbageNeverThrows)
{
	const std::vector<std::string> inputs = {
		"",
		std::string("\0\0\0", 3),
		"\xff\xfe\x80",
		"[[[[[[[[[[",
		"a = [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[",
		"image = { pool = { pool = { pool = 1 } } }",
		"publish = [[], {}, 1, \"x\", { path = 1 }]",
		/* NOLINTNEXTLINE(bugprone-suspicious-missing-comma): long lines, split */
		"[image]\npool = \"rbd\"\nname = \"x\"\n[image.create]\nsize = "
		"\"99999999999999999999P\"\n",
		"[image]\npool = \"rbd\"\nname = \"x\"\n[image.create]\nsize = "
		"-9223372036854775808\n",
	};
	for (const std::string &input : inputs) {
		SCOPED_TRACE(input);
		const SpecOutcome outcome = parse(input);
		EXPECT_FALSE(outcome.ok());
		for (const Diagnostic &diagnostic : outcome.diagnostics)
			EXPECT_FALSE(diagnostic.message.empty());
	}
}

TEST(SpecParser, EmptyFileNeedsAnImage)
{
	EXPECT_EQ(messages(parse("")),
		  std::vector<std::string>{
			  "/etc/vol.toml:1:1: image: missing required table [image]" });
}

TEST(SpecParser, HugeSizeIsRefused)
{
	const SpecOutcome outcome =
		parse(std::string(MinimalImage) + "[image.create]\nsize = \"16384P\"\n");
	ASSERT_EQ(outcome.diagnostics.size(), 1U);
	EXPECT_EQ(outcome.diagnostics[0].message, "expected a size below 16 EiB, found '16384P'");
}

TEST(SpecLoad, MissingFileIsOneDiagnostic)
{
	const SpecOutcome outcome = loadVolumeSpec("/nonexistent/dir/vol.toml");
	ASSERT_EQ(outcome.diagnostics.size(), 1U);
	EXPECT_EQ(outcome.diagnostics[0].format(),
		  "/nonexistent/dir/vol.toml: cannot read the file: No such file or directory");
	EXPECT_EQ(outcome.spec.sourceFile, "/nonexistent/dir/vol.toml");
}

TEST(SpecLoad, DirectoryIsNotASpec)
{
	const std::string dir = test::testDataDir() + "/specs/valid";
	const SpecOutcome outcome = loadVolumeSpec(dir);
	ASSERT_EQ(outcome.diagnostics.size(), 1U);
	EXPECT_EQ(outcome.diagnostics[0].message, "expected a file, found a directory");
}

TEST(Diagnostic, FormatShowsOnlyWhatIsKnown)
{
	EXPECT_EQ((Diagnostic{ "f.toml", 3, 7, "map.driver", "bad" }).format(),
		  "f.toml:3:7: map.driver: bad");
	EXPECT_EQ((Diagnostic{ "f.toml", 3, 7, "", "bad" }).format(), "f.toml:3:7: bad");
	EXPECT_EQ((Diagnostic{ "f.toml", 0, 0, "", "bad" }).format(), "f.toml: bad");
	EXPECT_EQ((Diagnostic{ "", 0, 0, "x", "bad" }).format(), "x: bad");
}

} /* namespace rbdvolume */
