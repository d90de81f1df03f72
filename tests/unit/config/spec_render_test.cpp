/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* renderVolumeSpec: the text parses back into the same spec, with every key written out. */
#include "config/spec_render.hpp"

#include <chrono>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "common/paths.hpp"
#include "config/spec_parser.hpp"
#include "spec_test_support.hpp"

namespace rbdvolume {

namespace {

std::string specPathFor(const std::string &name)
{
	return std::string(paths::RuntimeSpecDir) + "/" + name + ".toml";
}

/* Parses rendered text as NAME.toml; every diagnostic fails the test, with the text. */
SpecOutcome parseRendered(const std::string &text, const std::string &name)
{
	SpecOutcome outcome = parseVolumeSpec(text, specPathFor(name));
	for (const Diagnostic &diagnostic : outcome.diagnostics)
		ADD_FAILURE() << diagnostic.format() << "\nin:\n" << text;
	return outcome;
}

/* The spec the rendered text of `spec` reads as, named and sourced like `spec`. */
VolumeSpec reparse(const VolumeSpec &spec)
{
	VolumeSpec back = parseRendered(renderVolumeSpec(spec), spec.name).spec;
	back.sourceFile = spec.sourceFile;
	return back;
}

/* Round trip, and rendering the result again gives the same text. */
void expectRoundTrip(const VolumeSpec &spec)
{
	const std::string text = renderVolumeSpec(spec);
	SCOPED_TRACE(text);
	const VolumeSpec back = reparse(spec);
	EXPECT_EQ(back, spec);
	EXPECT_EQ(renderVolumeSpec(back), text);
}

/* A complete filesystem-mode spec as the parser gives it for a minimal file. */
VolumeSpec baseSpec(const std::string &name = "vol1")
{
	VolumeSpec spec;
	spec.name = name;
	spec.sourceFile = "/etc/rbd-volume/volumes/" + name + ".toml";
	spec.image.pool = "rbd";
	spec.image.name = "data";
	spec.filesystem.emplace();
	spec.staging.path = paths::defaultStagingPath(name);
	return spec;
}

VolumeSpec blockSpec()
{
	VolumeSpec spec = baseSpec("disk0");
	spec.mode = VolumeMode::Block;
	spec.filesystem.reset();
	return spec;
}

PublishTarget target(std::string path, bool readOnly = false, std::vector<std::string> options = {})
{
	PublishTarget publish;
	publish.path = std::move(path);
	publish.readOnly = readOnly;
	publish.options = std::move(options);
	return publish;
}

bool contains(std::string_view text, std::string_view part)
{
	return text.find(part) != std::string_view::npos;
}

void expectSameAfterRoundTrip(const std::string &path)
{
	SCOPED_TRACE(path);
	const SpecOutcome original = loadVolumeSpec(path);
	ASSERT_TRUE(original.ok()) << original.diagnostics.front().format();
	const std::string text = renderVolumeSpec(original.spec);
	SCOPED_TRACE(text);
	const SpecOutcome back = parseVolumeSpec(text, path);
	ASSERT_TRUE(back.ok()) << back.diagnostics.front().format();
	EXPECT_EQ(back.spec, original.spec);
	EXPECT_EQ(renderVolumeSpec(back.spec), text);
	EXPECT_TRUE(text.starts_with("version = 1\nmode = "));
}

} /* namespace */

TEST(SpecRender, CheckBuiltSpecIsTheParsersVerdict)
{
	VolumeSpec spec = baseSpec();
	const SpecOutcome good = checkBuiltSpec(spec, "vol1.toml");
	ASSERT_TRUE(good.ok()) << good.diagnostics[0].format();
	EXPECT_EQ(good.spec.name, "vol1");
	EXPECT_EQ(good.spec.staging.path, spec.staging.path);

	spec.image.pool = "a/b";
	const SpecOutcome bad = checkBuiltSpec(spec, "vol1.toml");
	ASSERT_FALSE(bad.ok());
	EXPECT_EQ(bad.diagnostics[0].field, "image.pool");

	const SpecOutcome badName = checkBuiltSpec(baseSpec(), "pvc-1.toml");
	ASSERT_FALSE(badName.ok()) << "the file stem is the volume's name, and '-' is refused";
}

TEST(SpecRender, GoldenLayout)
{
	VolumeSpec spec = baseSpec("golden");
	spec.image.create = CreateSpec{ 1ULL << 30U, { "layering" } };
	spec.publish.push_back(target("/srv/data", false, { "nodev" }));

	constexpr std::string_view Expected = R"(# Written by a test.
#
# Do not edit.

version = 1
mode = "filesystem"

[image]
pool = "rbd"
name = "data"

[image.create]
size = 1073741824
features = ["layering"]

[cluster]
conf = "/etc/ceph/ceph.conf"
id = "admin"

[map]
driver = "auto"
read-only = false
exclusive = false
multi-writer = false

[filesystem]
type = "ext4"
mkfs-options = []
format = "if-blank"
check = "auto"
grow = "auto"

[staging]
path = "/run/rbd-volume/staging/golden"
options = []

[[publish]]
path = "/srv/data"
read-only = false
options = ["nodev"]
)";
	EXPECT_EQ(renderVolumeSpec(spec, "Written by a test.\n\nDo not edit.\n"), Expected);
	expectRoundTrip(spec);
}

TEST(SpecRender, ValidSpecFilesRoundTrip)
{
	const std::vector<std::string> files =
		test::filesIn(test::testDataDir() + "/specs/valid", ".toml");
	ASSERT_GE(files.size(), 8U) << "too few valid specs in " << test::testDataDir();
	for (const std::string &file : files)
		expectSameAfterRoundTrip(file);
}

TEST(SpecRender, ExampleSpecRoundTrips)
{
	expectSameAfterRoundTrip(test::exampleSpecPath());
}

TEST(SpecRender, EveryTableInExampleOrder)
{
	VolumeSpec spec = baseSpec();
	spec.image.radosNamespace = "tenant_a";
	spec.image.create = CreateSpec{ 10ULL << 30U, { "layering", "exclusive-lock" } };
	spec.cluster.keyring = "/etc/ceph/ceph.client.admin.keyring";
	spec.cluster.monitors = { "192.0.2.1:6789", "[2001:db8::1]:3300" };
	spec.map.krbdOptions = { "queue_depth=128" };
	spec.map.nbdOptions = { "reattach-timeout=300" };
	spec.filesystem->mkfsOptions = { "-m", "0" };
	spec.staging.options = { "noatime" };
	spec.publish.push_back(target("/srv/a"));
	expectRoundTrip(spec);

	const std::string text = renderVolumeSpec(spec);
	const std::vector<std::string_view> order = {
		"version = 1", "mode = ",      "[image]\n",   "namespace = ", "[image.create]",
		"[cluster]",   "keyring = ",   "monitors = ", "[map]",	      "[map.krbd]",
		"[map.nbd]",   "[filesystem]", "[staging]",   "[[publish]]",
	};
	size_t at = 0;
	for (const std::string_view part : order) {
		const size_t found = text.find(part, at);
		ASSERT_NE(found, std::string::npos) << part << " after offset " << at << "\n"
						    << text;
		at = found;
	}
}

TEST(SpecRender, EncryptionWithAKeyfileOrAPassphraseGivenAtUp)
{
	VolumeSpec spec = baseSpec();
	spec.encryption.emplace();
	spec.encryption->keyfile = "/etc/rbd-volume/keys/a";
	expectRoundTrip(spec);
	EXPECT_TRUE(contains(renderVolumeSpec(spec), "keyfile = \"/etc/rbd-volume/keys/a\"\n"));

	spec.encryption->source = KeySource::ImageMetadata;
	spec.encryption->keyfile.clear();
	spec.encryption->givenAtUp = true;
	spec.encryption->volumeId = "0001-0009-rook-ceph-0000000000000002-1b3c";
	spec.encryption->pbkdf = Pbkdf::Pbkdf2;
	spec.encryption->pbkdfTime = std::chrono::milliseconds(250);
	expectRoundTrip(spec);
	const std::string text = renderVolumeSpec(spec);
	EXPECT_TRUE(contains(text, "given-at-up = true\n")) << text;
	EXPECT_FALSE(contains(text, "keyfile")) << text;
	EXPECT_TRUE(contains(text, "pbkdf-time = \"250ms\"\n")) << text;
}

TEST(SpecRender, BlockMode)
{
	VolumeSpec spec = blockSpec();
	spec.map.driver = Driver::Krbd;
	spec.map.multiWriter = true;
	spec.map.krbdOptions = { "noudev", "alloc_size=65536" };
	spec.publish.push_back(target("/var/lib/cluster/disk0"));
	expectRoundTrip(spec);

	const std::string text = renderVolumeSpec(spec);
	EXPECT_TRUE(contains(text, "mode = \"block\"\n"));
	EXPECT_TRUE(contains(text, "multi-writer = true\n"));
	EXPECT_FALSE(contains(text, "[filesystem]"));
	EXPECT_TRUE(contains(text, "\n[staging]\npath = \"/run/rbd-volume/staging/disk0\"\n\n"));
	EXPECT_TRUE(text.ends_with("path = \"/var/lib/cluster/disk0\"\nread-only = false\n"));
}

/* [map.krbd] is written for abort-on-full = false alone, and with options. */
TEST(SpecRender, KrbdThatHoldsWritesOnAFullPool)
{
	VolumeSpec spec = baseSpec();
	spec.map.driver = Driver::Krbd;
	spec.map.krbdAbortOnFull = false;
	expectRoundTrip(spec);
	EXPECT_TRUE(contains(renderVolumeSpec(spec), "[map.krbd]\nabort-on-full = false\n"))
		<< renderVolumeSpec(spec);
	spec.map.krbdOptions = { "notrim" };
	expectRoundTrip(spec);
	spec.map.krbdAbortOnFull = true;
	expectRoundTrip(spec);
	EXPECT_FALSE(contains(renderVolumeSpec(spec), "abort-on-full"));
}

TEST(SpecRender, BlockModeLeavesOutWhatItRefuses)
{
	/* A filesystem and mount options cannot take effect in block mode. */
	VolumeSpec spec = blockSpec();
	spec.filesystem.emplace();
	spec.staging.options = { "noatime" };
	spec.publish.push_back(target("/srv/disk", false, { "nodev" }));

	const VolumeSpec back = reparse(spec);
	EXPECT_FALSE(back.filesystem.has_value());
	EXPECT_TRUE(back.staging.options.empty());
	ASSERT_EQ(back.publish.size(), 1U);
	EXPECT_TRUE(back.publish[0].options.empty());
}

TEST(SpecRender, FilesystemModeWithoutFilesystemGetsTheDefaults)
{
	VolumeSpec spec = baseSpec();
	spec.filesystem.reset();
	const VolumeSpec back = reparse(spec);
	ASSERT_TRUE(back.filesystem.has_value());
	EXPECT_EQ(*back.filesystem, FilesystemSpec{});
}

TEST(SpecRender, Snapshot)
{
	VolumeSpec spec = baseSpec();
	spec.image.snapshot = "nightly-2024-01-01";
	spec.map.readOnly = true;
	spec.cluster.clientId = "backup-reader";
	spec.cluster.keyfile = "/etc/ceph/backup-reader.secret";
	spec.publish.push_back(target("/srv/restore", true));
	expectRoundTrip(spec);

	const std::string text = renderVolumeSpec(spec);
	EXPECT_TRUE(contains(text, "name = \"data\"\nsnapshot = \"nightly-2024-01-01\"\n"));
	EXPECT_TRUE(contains(text, "keyfile = \"/etc/ceph/backup-reader.secret\"\n"));
	EXPECT_FALSE(contains(text, "keyring"));
	EXPECT_FALSE(contains(text, "[image.create]"));
}

TEST(SpecRender, SnapshotAndReadOnlyVolumeWriteTheDerivedReadOnly)
{
	/* As completeSpec() derives them: a snapshot is read-only, and so are its targets. */
	VolumeSpec snapshot = baseSpec();
	snapshot.image.snapshot = "daily";
	snapshot.publish.push_back(target("/srv/a"));
	const VolumeSpec back = reparse(snapshot);
	EXPECT_TRUE(back.map.readOnly);
	ASSERT_EQ(back.publish.size(), 1U);
	EXPECT_TRUE(back.publish[0].readOnly);

	VolumeSpec readOnly = baseSpec();
	readOnly.map.readOnly = true;
	readOnly.publish.push_back(target("/srv/a"));
	EXPECT_TRUE(reparse(readOnly).publish.at(0).readOnly);
}

TEST(SpecRender, ReadWriteVolumeKeepsReadOnlyTargets)
{
	VolumeSpec spec = baseSpec();
	spec.publish.push_back(target("/srv/rw"));
	spec.publish.push_back(target("/srv/ro", true));
	expectRoundTrip(spec);
}

TEST(SpecRender, CreateWithFeatures)
{
	VolumeSpec spec = baseSpec();
	spec.image.create = CreateSpec{ 20ULL << 30U,
					{ "layering", "striping", "exclusive-lock", "object-map",
					  "fast-diff", "deep-flatten", "journaling" } };
	spec.filesystem->type = FsType::Xfs;
	spec.filesystem->mkfsOptions = { "-m", "reflink=1" };
	spec.filesystem->format = FormatPolicy::Never;
	spec.filesystem->check = CheckPolicy::Never;
	spec.filesystem->grow = GrowPolicy::Never;
	expectRoundTrip(spec);

	const std::string text = renderVolumeSpec(spec);
	EXPECT_TRUE(contains(text, "\n[image.create]\nsize = 21474836480\nfeatures = ["));
	EXPECT_TRUE(contains(text, "type = \"xfs\"\n"));
	EXPECT_TRUE(contains(text, "format = \"never\"\ncheck = \"never\"\ngrow = \"never\"\n"));
}

TEST(SpecRender, CreateWithoutFeaturesLeavesThemToTheCluster)
{
	VolumeSpec spec = baseSpec();
	spec.image.create = CreateSpec{ 512, {} };
	expectRoundTrip(spec);
	EXPECT_TRUE(contains(renderVolumeSpec(spec), "[image.create]\nsize = 512\n\n[cluster]"));
}

TEST(SpecRender, SizeBeyondTomlIntegersIsWrittenAsDigits)
{
	VolumeSpec spec = baseSpec();
	const uint64_t huge = std::numeric_limits<uint64_t>::max() - 511; /* 2^64 - 512 */
	spec.image.create = CreateSpec{ huge, {} };
	expectRoundTrip(spec);
	EXPECT_TRUE(contains(renderVolumeSpec(spec), "size = \"18446744073709551104\"\n"));

	spec.image.create->sizeBytes =
		static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) - 511;
	expectRoundTrip(spec);
	EXPECT_TRUE(contains(renderVolumeSpec(spec), "size = 9223372036854775296\n"));
}

TEST(SpecRender, NbdOptions)
{
	VolumeSpec spec = baseSpec();
	spec.image.radosNamespace = "ns1";
	spec.map.driver = Driver::Nbd;
	spec.map.readOnly = true;
	spec.map.nbdOptions = { "reattach-timeout=300", "io-timeout=60", "quiesce",
				"encryption-format=luks2",
				"encryption-passphrase-file=/etc/rbd-volume/keys/vm-disk" };
	spec.publish.push_back(target("/srv/vm-disk", true));
	expectRoundTrip(spec);
	EXPECT_FALSE(contains(renderVolumeSpec(spec), "[map.krbd]"));
}

TEST(SpecRender, KrbdOptions)
{
	VolumeSpec spec = baseSpec();
	spec.map.driver = Driver::Krbd;
	spec.map.exclusive = true;
	spec.map.krbdOptions = { "queue_depth=128", "lock_on_read", "ms_mode=prefer-crc",
				 "read_from_replica=balance" };
	expectRoundTrip(spec);
	EXPECT_TRUE(contains(renderVolumeSpec(spec),
			     "\n[map.krbd]\noptions = [\"queue_depth=128\", \"lock_on_read\", "
			     "\"ms_mode=prefer-crc\", \"read_from_replica=balance\"]\n"));
}

TEST(SpecRender, OptionsOfAnotherDriverAreLeftOut)
{
	VolumeSpec spec = baseSpec();
	spec.map.driver = Driver::Krbd;
	spec.map.nbdOptions = { "quiesce" };
	const VolumeSpec back = reparse(spec);
	EXPECT_TRUE(back.map.nbdOptions.empty());

	spec.map.driver = Driver::Fuse;
	spec.map.krbdOptions = { "noudev" };
	const std::string text = renderVolumeSpec(spec);
	EXPECT_FALSE(contains(text, "[map.krbd]"));
	EXPECT_FALSE(contains(text, "[map.nbd]"));
	EXPECT_EQ(reparse(spec).map.driver, Driver::Fuse);
}

TEST(SpecRender, MultiplePublishTargetsWithOptions)
{
	VolumeSpec spec = baseSpec();
	spec.staging.path = "/var/lib/rbd-volume/data";
	spec.staging.options = { "noatime", "discard" };
	spec.publish.push_back(target("/srv/data", false, { "nosuid", "nodev" }));
	spec.publish.push_back(target("/srv/data-ro", true, { "noexec" }));
	spec.publish.push_back(target("/home/data", false));
	expectRoundTrip(spec);

	const std::string text = renderVolumeSpec(spec);
	EXPECT_TRUE(contains(text, "[[publish]]\npath = \"/srv/data-ro\"\nread-only = true\n"
				   "options = [\"noexec\"]\n\n[[publish]]\npath = \"/home/data\"\n"
				   "read-only = false\noptions = []\n"));
}

TEST(SpecRender, ClusterKeys)
{
	VolumeSpec spec = baseSpec();
	spec.cluster.conf = "/etc/ceph/prod.conf";
	spec.cluster.clientId = "volumes";
	spec.cluster.keyring = "/etc/ceph/ceph.client.volumes.keyring";
	spec.cluster.monitors = { "192.0.2.1:6789", "[2001:db8::1]:3300", "v2:192.0.2.2:3300",
				  "mon3.example.net" };
	expectRoundTrip(spec);
	EXPECT_FALSE(contains(renderVolumeSpec(spec), "keyfile"));

	const std::string plain = renderVolumeSpec(baseSpec());
	EXPECT_TRUE(
		contains(plain, "\n[cluster]\nconf = \"/etc/ceph/ceph.conf\"\nid = \"admin\"\n\n"));
	EXPECT_FALSE(contains(plain, "monitors"));
}

TEST(SpecRender, StringsAreEscaped)
{
	VolumeSpec spec = baseSpec("strings");
	spec.image.pool = "po\"ol";
	spec.image.name = "back\\slash";
	spec.image.snapshot = "été";
	spec.map.readOnly = true;
	spec.cluster.conf = R"(/etc/ceph/"quoted" \ dir/ceph.conf)";
	spec.filesystem->mkfsOptions = {
		"-L",	 "a\"b\\c",	 "line1\nline2", "tab\there",
		"cr\rx", "\x01\x1f\x7f", "données ✓ 😀",
	};
	spec.staging.path = "/srv/staging/équipe";
	spec.publish.push_back(target(R"(/srv/"x"\y)", true));
	expectRoundTrip(spec);

	const std::string text = renderVolumeSpec(spec);
	EXPECT_TRUE(contains(text, "pool = \"po\\\"ol\"\n"));
	EXPECT_TRUE(contains(text, "name = \"back\\\\slash\"\n"));
	EXPECT_TRUE(contains(text, "snapshot = \"été\"\n"));
	EXPECT_TRUE(contains(text, "conf = \"/etc/ceph/\\\"quoted\\\" \\\\ dir/ceph.conf\"\n"));
	EXPECT_TRUE(contains(text, R"(mkfs-options = ["-L", "a\"b\\c", "line1\u000Aline2", )"
				   R"("tab\u0009here", "cr\u000Dx", "\u0001\u001F\u007F", )"
				   R"("données ✓ 😀"])"));
	EXPECT_TRUE(contains(text, "path = \"/srv/staging/équipe\"\n"));
	EXPECT_TRUE(contains(text, R"(path = "/srv/\"x\"\\y")"));
}

TEST(SpecRender, NulInAStringSurvives)
{
	VolumeSpec spec = baseSpec();
	spec.filesystem->mkfsOptions = { std::string("a\0b", 3) };
	expectRoundTrip(spec);
	EXPECT_TRUE(contains(renderVolumeSpec(spec), R"(["a\u0000b"])"));
}

TEST(SpecRender, HeaderLinesBecomeComments)
{
	const VolumeSpec spec = baseSpec();
	const std::string body = renderVolumeSpec(spec);
	EXPECT_TRUE(body.starts_with("version = 1\n"));
	EXPECT_EQ(renderVolumeSpec(spec, ""), body);

	EXPECT_EQ(renderVolumeSpec(spec, "one line"), "# one line\n\n" + body);
	EXPECT_EQ(renderVolumeSpec(spec, "one\ntwo\n"), "# one\n# two\n\n" + body);
	EXPECT_EQ(renderVolumeSpec(spec, "crlf\r\nlines\r\n"), "# crlf\n# lines\n\n" + body);
	EXPECT_EQ(renderVolumeSpec(spec, "\n"), "#\n\n" + body);
	EXPECT_EQ(renderVolumeSpec(spec, "Équipe « données »"), "# Équipe « données »\n\n" + body);
}

TEST(SpecRender, HeaderCannotBreakTheToml)
{
	/* Control characters and bytes that are not UTF-8 are not allowed in TOML comments. */
	const VolumeSpec spec = baseSpec();
	const std::string header = std::string("tab\there\x01 nul") + '\0' + " bad\xff utf8\xc3" +
				   "\nversion = 2\n[image]";
	const std::string text = renderVolumeSpec(spec, header);
	EXPECT_TRUE(text.starts_with("# tab\\x09here\\x01 nul\\x00 bad\\xFF utf8\\xC3\n"
				     "# version = 2\n# [image]\n\nversion = 1\n"))
		<< text;
	VolumeSpec back = parseRendered(text, spec.name).spec;
	back.sourceFile = spec.sourceFile;
	EXPECT_EQ(back, spec);
}

TEST(SpecRender, EmptyStagingPathIsDerivedFromTheFileName)
{
	VolumeSpec spec = baseSpec("fresh");
	spec.staging.path.clear();
	const std::string text = renderVolumeSpec(spec);
	EXPECT_TRUE(contains(text, "\n[staging]\noptions = []\n")) << text;
	EXPECT_EQ(reparse(spec).staging.path, "/run/rbd-volume/staging/fresh");
}

TEST(SpecRender, ContradictionsAreWrittenAsTheyAreAndRefused)
{
	/* The renderer does not choose between two settings the validator refuses together. */
	VolumeSpec both = baseSpec();
	both.image.snapshot = "daily";
	both.image.create = CreateSpec{ 4096, {} };
	EXPECT_FALSE(parseVolumeSpec(renderVolumeSpec(both), specPathFor(both.name)).ok());

	VolumeSpec keys = baseSpec();
	keys.cluster.keyring = "/etc/ceph/keyring";
	keys.cluster.keyfile = "/etc/ceph/secret";
	EXPECT_FALSE(parseVolumeSpec(renderVolumeSpec(keys), specPathFor(keys.name)).ok());

	VolumeSpec writers = baseSpec();
	writers.map.multiWriter = true;
	EXPECT_FALSE(parseVolumeSpec(renderVolumeSpec(writers), specPathFor(writers.name)).ok());
}

} /* namespace rbdvolume */
