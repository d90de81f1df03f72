/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The rbdmap import: rbdmap and fstab text into specs. */
#include "import/rbdmap_import.hpp"

#include <algorithm>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "config/spec_parser.hpp"
#include "import/rbdmap_file.hpp"
#include "read_text.hpp"

namespace rbdvolume::importer {

namespace {

using rbdvolume::testing::readText;

std::string dataPath(const std::string &name)
{
	const char *dir = std::getenv("RBDV_TEST_DATA"); /* NOLINT(concurrency-mt-unsafe) */
	return std::string(dir != nullptr ? dir : "tests/data") + "/rbdmap/" + name;
}

/* The sample files: tests/data/rbdmap/rbdmap and tests/data/rbdmap/fstab. */
class SampleImport : public ::testing::Test
{
protected:
	void SetUp() override
	{
		rbdmapText_ = readText(dataPath("rbdmap"));
		fstabText_ = readText(dataPath("fstab"));
		ASSERT_FALSE(rbdmapText_.empty());
		ASSERT_FALSE(fstabText_.empty());
		outcome_ = importRbdmap({ "rbdmap", rbdmapText_ }, { "fstab", fstabText_ });
	}

	const ImportedVolume *volume(const std::string &name) const
	{
		for (const ImportedVolume &volume : outcome_.volumes) {
			if (volume.spec.name == name)
				return &volume;
		}
		ADD_FAILURE() << "no volume '" << name << "'";
		return nullptr;
	}

	/* The formatted messages about `file`:`line`. */
	std::vector<std::string> messagesAt(const std::string &file, unsigned line) const
	{
		std::vector<std::string> found;
		for (const ImportMessage &message : outcome_.messages) {
			if (message.file == file && message.line == line)
				found.push_back(message.format());
		}
		return found;
	}

	bool saysAt(const std::string &file, unsigned line, const std::string &part) const
	{
		const std::vector<std::string> found = messagesAt(file, line);
		return std::any_of(found.begin(), found.end(), [&part](const std::string &m) {
			return m.find(part) != std::string::npos;
		});
	}

	std::string rbdmapText_;
	std::string fstabText_;
	ImportOutcome outcome_;
};

ImportOutcome importText(std::string_view rbdmap, std::string_view fstab = {})
{
	return importRbdmap({ "rbdmap", rbdmap }, { "fstab", fstab });
}

std::vector<std::string> names(const ImportOutcome &outcome)
{
	std::vector<std::string> out;
	out.reserve(outcome.volumes.size());
	for (const ImportedVolume &volume : outcome.volumes)
		out.push_back(volume.spec.name);
	return out;
}

bool anyMessageContains(const ImportOutcome &outcome, const std::string &part)
{
	return std::any_of(outcome.messages.begin(), outcome.messages.end(),
			   [&part](const ImportMessage &m) {
				   return m.format().find(part) != std::string::npos;
			   });
}

/* ---- names ---- */

TEST(RbdmapNames, DerivedFromTheImage)
{
	const auto nameOf = [](const std::string &spec) {
		const Result<ImageSpec> image = parseRbdmapImage(spec);
		return image ? volumeNameForImage(*image) : std::string("?");
	};
	EXPECT_EQ(nameOf("pool/data"), "data");
	EXPECT_EQ(nameOf("pool/raw-disk"), "raw_disk");
	EXPECT_EQ(nameOf("pool/-x.y"), "x.y");
	EXPECT_EQ(nameOf("pool/---"), "volume");
	EXPECT_EQ(nameOf("pool/base@gold"), "base.gold");
	EXPECT_EQ(nameOf("pool/" + std::string(100, 'a')), std::string(63, 'a'));
}

TEST(RbdmapNames, CollisionsGetASuffixWithinTheLimit)
{
	const std::string longName(70, 'v');
	const ImportOutcome outcome = importText("a/data\nb/data\nc/data\nd/data_2\na/" + longName +
						 "\nb/" + longName + "\n");
	const std::vector<std::string> expected = {
		"data",
		"data_2",
		"data_3",
		"data_2_2",
		std::string(63, 'v'),
		std::string(61, 'v') + "_2",
	};
	EXPECT_EQ(names(outcome), expected);
	EXPECT_TRUE(outcome.complete());
	EXPECT_TRUE(anyMessageContains(outcome, "b/data -> volume 'data_2' ('data' is taken)"));
}

/* ---- the sample files ---- */

TEST_F(SampleImport, EveryGoodLineGivesAValidSpecInFileOrder)
{
	const std::vector<std::string> expected = {
		"bar1",	  "bar2",   "web",	 "logs",   "raw_disk",
		"spaced", "bar1_2", "base.gold", "inline", "spares",
	};
	EXPECT_EQ(names(outcome_), expected);
	EXPECT_EQ(outcome_.lines, 16U);
	EXPECT_EQ(outcome_.images, 12U);     /* less a repeated line and 3 bad ones */
	EXPECT_EQ(outcome_.failedLines, 5U); /* 3 bad lines, a partition, btrfs */
	EXPECT_FALSE(outcome_.complete());

	for (const ImportedVolume &volume : outcome_.volumes) {
		SCOPED_TRACE(volume.text);
		const SpecOutcome parsed = parseVolumeSpec(volume.text, volume.spec.name + ".toml");
		EXPECT_TRUE(parsed.ok());
		EXPECT_EQ(parsed.spec, volume.spec);
		EXPECT_EQ(volume.spec.map.driver, Driver::Krbd);
	}
}

TEST_F(SampleImport, HeadersNameTheSourceLines)
{
	const ImportedVolume *bar1 = volume("bar1");
	ASSERT_NE(bar1, nullptr);
	EXPECT_TRUE(bar1->text.starts_with("# Imported by `rbd-volumectl import-rbdmap` from:\n"
					   "#   rbdmap:4: foopool/bar1\n"
					   "#   fstab:3: /dev/rbd/foopool/bar1 /srv/bar1 ext4\n"))
		<< bar1->text;
	const ImportedVolume *raw = volume("raw_disk");
	ASSERT_NE(raw, nullptr);
	EXPECT_NE(raw->text.find("#   rbdmap:8: rbd/raw-disk\n"), std::string::npos);
}

TEST_F(SampleImport, NoautoEntryStillGetsASpecAndANote)
{
	const ImportedVolume *bar1 = volume("bar1");
	ASSERT_NE(bar1, nullptr);
	const VolumeSpec &spec = bar1->spec;
	EXPECT_EQ(spec.mode, VolumeMode::Filesystem);
	ASSERT_TRUE(spec.filesystem);
	EXPECT_EQ(spec.filesystem->type, FsType::Ext4);
	EXPECT_EQ(spec.filesystem->format, FormatPolicy::Never);
	EXPECT_EQ(spec.filesystem->check, CheckPolicy::Never); /* passno 0 */
	EXPECT_EQ(spec.staging.options, std::vector<std::string>{ "noatime" });
	ASSERT_EQ(spec.publish.size(), 1U);
	EXPECT_EQ(spec.publish[0].path, "/srv/bar1");
	EXPECT_EQ(spec.cluster.clientId, "admin");
	EXPECT_EQ(spec.cluster.keyring, "/etc/ceph/ceph.client.admin.keyring");
	EXPECT_TRUE(saysAt("fstab", 3, "note: fstab-only options dropped: noauto, _netdev"));
	EXPECT_TRUE(saysAt("fstab", 3, "systemctl enable rbd-volume@bar1"));
	EXPECT_NE(bar1->text.find("# fstab:3: note: 'noauto' was rbdmap's idiom"),
		  std::string::npos);
}

TEST_F(SampleImport, SingleQuotedOptionsXfsAndAnEscapedMountPoint)
{
	const ImportedVolume *bar2 = volume("bar2");
	ASSERT_NE(bar2, nullptr);
	const VolumeSpec &spec = bar2->spec;
	const std::vector<std::string> krbd = { "lock_on_read", "queue_depth=1024" };
	EXPECT_EQ(spec.map.krbdOptions, krbd);
	ASSERT_TRUE(spec.filesystem);
	EXPECT_EQ(spec.filesystem->type, FsType::Xfs);
	EXPECT_EQ(spec.staging.options, std::vector<std::string>{ "nouuid" });
	ASSERT_EQ(spec.publish.size(), 1U);
	EXPECT_EQ(spec.publish[0].path, "/srv/bar two"); /* \040 */
	EXPECT_TRUE(saysAt("fstab", 4, "_netdev, nofail, x-systemd.mount-timeout=30"));
}

TEST_F(SampleImport, DoubleQuotedOptions)
{
	const ImportedVolume *web = volume("web");
	ASSERT_NE(web, nullptr);
	EXPECT_EQ(web->spec.cluster.clientId, "web");
	EXPECT_EQ(web->spec.cluster.keyring, "/etc/ceph/ceph.client.web.keyring");
	const std::vector<std::string> krbd = { "queue_depth=128", "noshare" };
	EXPECT_EQ(web->spec.map.krbdOptions, krbd);
	ASSERT_TRUE(web->spec.filesystem);
	EXPECT_EQ(web->spec.filesystem->check, CheckPolicy::Auto); /* passno 2 */
	const std::vector<std::string> options = { "nosuid", "nodev" };
	EXPECT_EQ(web->spec.staging.options, options);
	EXPECT_TRUE(saysAt("rbdmap", 6, "warning: double quotes are not quotes to rbdmap"));
}

TEST_F(SampleImport, NamespaceReadOnlyAndClientName)
{
	const ImportedVolume *logs = volume("logs");
	ASSERT_NE(logs, nullptr);
	const VolumeSpec &spec = logs->spec;
	EXPECT_EQ(spec.image.pool, "data");
	EXPECT_EQ(spec.image.radosNamespace, "tenant_a");
	EXPECT_EQ(spec.image.name, "logs");
	EXPECT_EQ(spec.cluster.clientId, "logs"); /* name=client.logs */
	EXPECT_EQ(spec.cluster.keyfile, "/etc/ceph/logs.secret");
	EXPECT_TRUE(spec.map.readOnly); /* fstab 'ro' */
	ASSERT_EQ(spec.publish.size(), 1U);
	EXPECT_TRUE(spec.publish[0].readOnly);
	EXPECT_EQ(spec.staging.options, std::vector<std::string>{ "noatime" });
	EXPECT_TRUE(saysAt("fstab", 6, "note: 'ro': the volume is read-only"));
}

TEST_F(SampleImport, ImageWithoutFstabEntryIsBlockMode)
{
	const ImportedVolume *raw = volume("raw_disk");
	ASSERT_NE(raw, nullptr);
	EXPECT_EQ(raw->spec.mode, VolumeMode::Block);
	EXPECT_FALSE(raw->spec.filesystem);
	EXPECT_TRUE(raw->spec.publish.empty());
	EXPECT_EQ(raw->spec.image.pool, "rbd");
	EXPECT_TRUE(raw->spec.map.exclusive); /* options='noudev,exclusive' */
	EXPECT_EQ(raw->spec.map.krbdOptions, std::vector<std::string>{ "noudev" });
	EXPECT_TRUE(saysAt("rbdmap", 8, "a block-mode spec"));
}

TEST_F(SampleImport, KeyringPathWithABlank)
{
	const ImportedVolume *spaced = volume("spaced");
	ASSERT_NE(spaced, nullptr);
	EXPECT_EQ(spaced->spec.cluster.keyring, "/etc/ceph/my keyring");
	EXPECT_TRUE(saysAt("rbdmap", 9, "warning: a quoted value holds a blank"));
}

TEST_F(SampleImport, PartitionAndUnsupportedFilesystemGiveNoSpec)
{
	EXPECT_TRUE(saysAt("fstab", 7,
			   "warning: '/dev/rbd/data/parted-part1' is a partition of "
			   "data/parted"));
	EXPECT_TRUE(saysAt("fstab", 8, "warning: filesystem type 'btrfs' is not supported"));
	for (const ImportedVolume &volume : outcome_.volumes) {
		EXPECT_NE(volume.spec.image.name, "parted");
		EXPECT_NE(volume.spec.image.name, "btr");
	}
}

TEST_F(SampleImport, CollisionSnapshotAndCluster)
{
	const ImportedVolume *other = volume("bar1_2");
	ASSERT_NE(other, nullptr);
	EXPECT_EQ(other->spec.image.pool, "other");
	EXPECT_TRUE(saysAt("rbdmap", 12, "other/bar1 -> volume 'bar1_2' ('bar1' is taken)"));

	const ImportedVolume *gold = volume("base.gold");
	ASSERT_NE(gold, nullptr);
	EXPECT_EQ(gold->spec.image.snapshot, "gold");
	EXPECT_TRUE(gold->spec.readOnly());

	const ImportedVolume *spares = volume("spares");
	ASSERT_NE(spares, nullptr);
	EXPECT_EQ(spares->spec.cluster.conf, "/etc/ceph/backup.conf");
	EXPECT_EQ(spares->spec.cluster.keyring, "/etc/ceph/backup.client.admin.keyring");
	EXPECT_TRUE(spares->spec.staging.options.empty());
	EXPECT_TRUE(saysAt("fstab", 14, "warning: mount option dropped: 'bind'"));
}

TEST_F(SampleImport, InlineSecretIsNeverRepeated)
{
	const ImportedVolume *secretive = volume("inline");
	ASSERT_NE(secretive, nullptr);
	EXPECT_TRUE(secretive->spec.cluster.keyring.empty());
	EXPECT_TRUE(saysAt("rbdmap", 14, "warning: 'key' (an inline secret) is not carried over"));
	EXPECT_TRUE(saysAt("rbdmap", 14, "'noudev' is not carried over"));
	for (const ImportMessage &message : outcome_.messages)
		EXPECT_EQ(message.format().find("AQBS"), std::string::npos) << message.format();
	for (const ImportedVolume &volume : outcome_.volumes)
		EXPECT_EQ(volume.text.find("AQBS"), std::string::npos) << volume.text;
}

TEST_F(SampleImport, BadLinesAreReportedWithTheirLineNumbers)
{
	EXPECT_TRUE(saysAt("rbdmap", 15, "warning: foopool/bar1 is listed already at rbdmap:4"));
	EXPECT_TRUE(saysAt("rbdmap", 16, "rbdmap:16: error: an unquoted blank in the options"));
	EXPECT_TRUE(saysAt("rbdmap", 17,
			   "rbdmap:17: error: expected POOL/[NAMESPACE/]IMAGE[@SNAP], "
			   "found 'a/b/c/d'"));
	EXPECT_TRUE(saysAt("rbdmap", 18, "rbdmap:18: error: unterminated ' quote"));
	EXPECT_TRUE(messagesAt("rbdmap", 19).empty()); /* an indented comment */
	EXPECT_TRUE(messagesAt("rbdmap", 20).empty()); /* a blank line */
	EXPECT_TRUE(saysAt("fstab", 11, "note: '/dev/rbd/data/unlisted' is not listed in rbdmap"));
	EXPECT_TRUE(saysAt("fstab", 12, "warning: '/dev/rbd0' is a kernel device name"));
	EXPECT_TRUE(messagesAt("fstab", 2).empty()); /* the root filesystem */
}

TEST_F(SampleImport, MessagesFollowTheRbdmapFile)
{
	unsigned last = 0;
	for (const ImportMessage &message : outcome_.messages) {
		if (message.file != "rbdmap")
			continue;
		EXPECT_GE(message.line, last) << message.format();
		last = message.line;
	}
}

/* ---- smaller cases ---- */

TEST(RbdmapImport, ReadsLikeBashRead)
{
	/* A backslash-newline joins lines, CRLF line ends are fine, blanks around fields go. */
	const ImportOutcome outcome =
		importText("  pool/one \tid=admin,\\\nexclusive  \r\npool/two\r\n\\#pool/three\n");
	ASSERT_EQ(names(outcome), (std::vector<std::string>{ "one", "two" }));
	EXPECT_TRUE(outcome.volumes[0].spec.map.exclusive);
	EXPECT_EQ(outcome.volumes[0].spec.cluster.clientId, "admin");
	EXPECT_TRUE(outcome.complete());
	EXPECT_TRUE(anyMessageContains(outcome, "rbdmap:3: note: pool/two -> volume 'two'"));
}

TEST(RbdmapImport, SecondFstabMountOfTheSameDevice)
{
	const ImportOutcome outcome =
		importText("pool/data\n", "/dev/rbd/pool/data /srv/a ext4 noatime,noauto 0 0\n"
					  "/dev/rbd/pool/data /srv/b ext4 noatime 0 0\n"
					  "/dev/rbd/pool/data /srv/c ext4 relatime 0 0\n");
	ASSERT_EQ(outcome.volumes.size(), 1U);
	const VolumeSpec &spec = outcome.volumes[0].spec;
	ASSERT_EQ(spec.publish.size(), 2U);
	EXPECT_EQ(spec.publish[0].path, "/srv/a");
	EXPECT_EQ(spec.publish[1].path, "/srv/b");
	EXPECT_TRUE(anyMessageContains(outcome, "fstab:3: warning: '/dev/rbd/pool/data' is mounted "
						"again with another type or options"));
	EXPECT_TRUE(outcome.complete());
}

TEST(RbdmapImport, DeviceTypes)
{
	const ImportOutcome outcome =
		importText("pool/n device-type=nbd,options='io-timeout=30',quiesce\n"
			   "pool/g device-type=ggate\n");
	ASSERT_EQ(outcome.volumes.size(), 1U);
	const MapSpec &map = outcome.volumes[0].spec.map;
	EXPECT_EQ(map.driver, Driver::Nbd);
	const std::vector<std::string> nbd = { "quiesce", "io-timeout=30" };
	EXPECT_EQ(map.nbdOptions, nbd);
	EXPECT_TRUE(anyMessageContains(outcome, "rbdmap:2: warning: 'device-type=ggate' is not "
						"supported"));
	EXPECT_EQ(outcome.failedLines, 1U);
}

TEST(RbdmapImport, MapOptionsSortedOut)
{
	const ImportOutcome outcome =
		importText("pool/d options='ro,rw,queue_depth=x,bogus,notrim',id=a,keyfile=/k,"
			   "keyring=/r,name=osd.1,user=b\n");
	ASSERT_EQ(outcome.volumes.size(), 1U);
	const VolumeSpec &spec = outcome.volumes[0].spec;
	EXPECT_TRUE(spec.map.readOnly);
	EXPECT_EQ(spec.map.krbdOptions, std::vector<std::string>{ "notrim" });
	EXPECT_EQ(spec.cluster.clientId, "b");
	EXPECT_EQ(spec.cluster.keyring, "/r");
	EXPECT_TRUE(spec.cluster.keyfile.empty());
	EXPECT_TRUE(anyMessageContains(outcome, "map option 'queue_depth=x' is not carried over"));
	EXPECT_TRUE(anyMessageContains(outcome, "map option 'bogus' is not carried over"));
	EXPECT_TRUE(anyMessageContains(outcome, "'keyfile' dropped"));
	EXPECT_TRUE(anyMessageContains(outcome, "'name=osd.1' is not a client name"));
}

TEST(RbdmapImport, ASpecThatWouldBeInvalidIsAnError)
{
	const ImportOutcome outcome = importText("pool/data id=admin\npool/ok\n",
						 "/dev/rbd/pool/data srv/data ext4 defaults 0 0\n");
	EXPECT_EQ(names(outcome), std::vector<std::string>{ "ok" });
	EXPECT_EQ(outcome.failedLines, 1U);
	EXPECT_TRUE(anyMessageContains(outcome, "rbdmap:1: error: the spec for pool/data would be "
						"invalid: data.toml:"));
}

TEST(RbdmapImport, FstabEntriesWithoutATypeOrAMountPoint)
{
	/* mount(8) guesses a missing type: rbdmap mounted it, but which type is unknown here. */
	const ImportOutcome guessed = importText("pool/data\n", "/dev/rbd/pool/data /srv/data\n");
	EXPECT_TRUE(guessed.volumes.empty());
	EXPECT_EQ(guessed.failedLines, 1U);
	EXPECT_TRUE(anyMessageContains(guessed, "fstab:1: warning: filesystem type 'auto' is not "
						"supported"));

	/* Without a mount point nothing was mounted: the image is mapped only. */
	const ImportOutcome mapped = importText("pool/data\n", "/dev/rbd/pool/data\n");
	ASSERT_EQ(mapped.volumes.size(), 1U);
	EXPECT_EQ(mapped.volumes[0].spec.mode, VolumeMode::Block);
	EXPECT_TRUE(anyMessageContains(mapped, "fstab:1: warning: expected DEVICE MOUNTPOINT"));
	EXPECT_TRUE(mapped.complete());
}

TEST(RbdmapImport, AnFstabLineLibmountRefusesMountsNothing)
{
	/* mount(8) skipped the line, so rbdmap only mapped the image. */
	const ImportOutcome outcome =
		importText("pool/data\n", "/dev/rbd/pool/data /srv/data ext4 defaults 0 x\n");
	ASSERT_EQ(outcome.volumes.size(), 1U);
	EXPECT_EQ(outcome.volumes[0].spec.mode, VolumeMode::Block);
	EXPECT_TRUE(
		anyMessageContains(outcome, "fstab:1: warning: libmount cannot parse this line"));
	EXPECT_TRUE(outcome.complete());
}

TEST(RbdmapImport, NothingListed)
{
	const ImportOutcome outcome = importText("# only comments\n\n");
	EXPECT_TRUE(outcome.volumes.empty());
	EXPECT_EQ(outcome.lines, 0U);
	EXPECT_TRUE(outcome.complete());
}

} /* namespace */

} /* namespace rbdvolume::importer */
