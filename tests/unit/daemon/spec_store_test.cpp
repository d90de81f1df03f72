/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SpecStore on temporary directories: loading, priority, change detection, leftovers. */
#include "daemon/spec_store.hpp"

#include <filesystem>
#include <string>
#include <unistd.h>
#include <vector>

#include <sys/stat.h>

#include <gtest/gtest.h>

#include "daemon_rig.hpp"
#include "temp_dir.hpp"

namespace rbdvolume::testing {

namespace {

using daemon::SpecEntry;
using daemon::SpecStore;
using Names = std::vector<std::string>;

std::string dataDir()
{
	return environmentOr("RBDV_TEST_DATA", "tests/data");
}

/* A spec of tests/data/specs (valid/ or invalid/) copied into `dir` under the same name. */
void copySpec(const TempDir &dir, const std::string &relative, const std::string &as = "")
{
	const std::string source = dataDir() + "/specs/" + relative;
	const std::string text = readText(source);
	ASSERT_FALSE(text.empty()) << "cannot read " << source;
	const std::string name =
		as.empty() ? std::filesystem::path(relative).filename().string() : as + ".toml";
	dir.write(name, text);
}

std::vector<std::string> roots()
{
	return { "/run/rbd-volume/staging", "/srv", "/var/lib/rbd-volume" };
}

std::string specOf(const std::string &image, const std::string &extra = "")
{
	return "[image]\npool = \"rbd\"\nname = \"" + image + "\"\n" + extra;
}

const SpecEntry &entry(const SpecStore &store, const std::string &name)
{
	static const SpecEntry none;
	const SpecEntry *found = store.find(name);
	EXPECT_NE(found, nullptr) << "no entry '" << name << "'";
	return found != nullptr ? *found : none;
}

std::string problemsText(const SpecEntry &entry)
{
	std::string text;
	for (const Diagnostic &problem : entry.problems)
		text += problem.format() + "\n";
	return text;
}

TEST(SpecStore, LoadsValidAndInvalidSpecs)
{
	TempDir dir;
	copySpec(dir, "valid/minimal.toml");
	copySpec(dir, "valid/full_fs.toml");
	copySpec(dir, "valid/snapshot.toml");
	copySpec(dir, "invalid/unknown_keys.toml");
	copySpec(dir, "invalid/missing_pool.toml");
	SpecStore store({ dir.path() }, roots());

	EXPECT_EQ(store.rescan(),
		  (Names{ "full_fs", "minimal", "missing_pool", "snapshot", "unknown_keys" }));
	EXPECT_EQ(store.entries().size(), 5U);

	for (const char *name : { "minimal", "full_fs", "snapshot" }) {
		const SpecEntry &valid = entry(store, name);
		ASSERT_NE(valid.spec, nullptr) << name << ":\n" << problemsText(valid);
		EXPECT_TRUE(valid.problems.empty()) << problemsText(valid);
		EXPECT_FALSE(valid.missing);
		EXPECT_EQ(valid.file, dir.path() + "/" + name + ".toml");
		EXPECT_EQ(valid.spec->name, name);
	}
	EXPECT_EQ(entry(store, "minimal").spec->image.name, "data");
	EXPECT_EQ(entry(store, "full_fs").spec->publish.size(), 2U);
	EXPECT_EQ(entry(store, "snapshot").spec->image.snapshot, "nightly-2024-01-01");

	const SpecEntry &unknown = entry(store, "unknown_keys");
	EXPECT_EQ(unknown.spec, nullptr);
	ASSERT_EQ(unknown.problems.size(), 3U) << problemsText(unknown);
	EXPECT_EQ(unknown.problems[0].file, dir.path() + "/unknown_keys.toml");
	EXPECT_EQ(unknown.problems[0].line, 5U);
	EXPECT_EQ(unknown.problems[0].column, 1U);
	EXPECT_EQ(unknown.problems[0].field, "colour");

	const SpecEntry &missingPool = entry(store, "missing_pool");
	EXPECT_EQ(missingPool.spec, nullptr);
	ASSERT_EQ(missingPool.problems.size(), 1U) << problemsText(missingPool);
	EXPECT_EQ(missingPool.problems[0].field, "image.pool");
	EXPECT_EQ(missingPool.problems[0].line, 3U);
}

TEST(SpecStore, FirstDirectoryWins)
{
	TempDir admin;
	TempDir runtime;
	admin.write("shared.toml", specOf("from_admin"));
	runtime.write("shared.toml", specOf("from_runtime"));
	runtime.write("own.toml", specOf("own"));
	SpecStore store({ admin.path(), runtime.path() }, roots());

	EXPECT_EQ(store.rescan(), (Names{ "own", "shared" }));
	ASSERT_NE(entry(store, "shared").spec, nullptr);
	EXPECT_EQ(entry(store, "shared").file, admin.path() + "/shared.toml");
	EXPECT_EQ(entry(store, "shared").spec->image.name, "from_admin");
	EXPECT_EQ(entry(store, "own").file, runtime.path() + "/own.toml");

	/* The hidden one takes over when the first goes. */
	std::filesystem::remove(admin.path() + "/shared.toml");
	EXPECT_EQ(store.rescan(), Names{ "shared" });
	EXPECT_FALSE(entry(store, "shared").missing);
	EXPECT_EQ(entry(store, "shared").file, runtime.path() + "/shared.toml");
	ASSERT_NE(entry(store, "shared").spec, nullptr);
	EXPECT_EQ(entry(store, "shared").spec->image.name, "from_runtime");
}

TEST(SpecStore, RescanReportsOnlyChangedNames)
{
	TempDir dir;
	dir.write("a.toml", specOf("a"));
	dir.write("b.toml", specOf("b"));
	dir.write("c.toml", specOf("c"));
	SpecStore store({ dir.path() }, roots());
	EXPECT_EQ(store.rescan(), (Names{ "a", "b", "c" }));
	const auto a = entry(store, "a").spec;
	const auto b = entry(store, "b").spec;

	EXPECT_EQ(store.rescan(), Names{});
	/* Written again with the same text: nothing changed. */
	dir.write("a.toml", specOf("a"));
	EXPECT_EQ(store.rescan(), Names{});
	EXPECT_EQ(entry(store, "a").spec, a);

	dir.write("b.toml", specOf("b", "[[publish]]\npath = \"/srv/b\"\n"));
	EXPECT_EQ(store.rescan(), Names{ "b" });
	EXPECT_EQ(entry(store, "a").spec, a) << "an unchanged spec keeps its object";
	ASSERT_NE(entry(store, "b").spec, nullptr);
	EXPECT_NE(entry(store, "b").spec, b);
	EXPECT_EQ(entry(store, "b").spec->publish.size(), 1U);

	dir.write("d.toml", specOf("d"));
	EXPECT_EQ(store.rescan(), Names{ "d" });
}

TEST(SpecStore, RescanOneReadsOnlyThatName)
{
	TempDir first;
	TempDir second;
	second.write("a.toml", specOf("a"));
	second.write("b.toml", specOf("b"));
	SpecStore store({ first.path(), second.path() }, roots());
	EXPECT_EQ(store.rescanOne("a"), Names{ "a" }) << "a name never read is new";
	EXPECT_EQ(store.find("b"), nullptr) << "other files are not read";
	EXPECT_EQ(store.rescanOne("a"), Names{});

	/* Rewritten a moment ago: seen at once, no directory listing needed. */
	second.write("a.toml", specOf("a", "[[publish]]\npath = \"/srv/a\"\n"));
	EXPECT_EQ(store.rescanOne("a"), Names{ "a" });
	ASSERT_NE(entry(store, "a").spec, nullptr);
	EXPECT_EQ(entry(store, "a").spec->publish.size(), 1U);

	/* The first directory still wins. */
	first.write("a.toml", specOf("a_admin"));
	EXPECT_EQ(store.rescanOne("a"), Names{ "a" });
	EXPECT_EQ(entry(store, "a").file, first.path() + "/a.toml");
	EXPECT_EQ(entry(store, "a").spec->image.name, "a_admin");

	std::filesystem::remove(first.path() + "/a.toml");
	std::filesystem::remove(second.path() + "/a.toml");
	EXPECT_EQ(store.rescanOne("a"), Names{ "a" });
	EXPECT_TRUE(entry(store, "a").missing);
	EXPECT_EQ(store.rescanOne("a"), Names{}) << "still missing is no change";
	EXPECT_EQ(store.rescanOne("nobody"), Names{});
	EXPECT_EQ(store.find("nobody"), nullptr);
}

TEST(SpecStore, InvalidEditKeepsTheLastValidSpec)
{
	TempDir dir;
	dir.write("a.toml", specOf("a"));
	SpecStore store({ dir.path() }, roots());
	(void)store.rescan();
	const auto valid = entry(store, "a").spec;
	ASSERT_NE(valid, nullptr);

	dir.write("a.toml", specOf("a", "[map]\ndriver = \"rbd\"\n"));
	EXPECT_EQ(store.rescan(), Names{ "a" });
	EXPECT_EQ(entry(store, "a").spec, valid);
	ASSERT_EQ(entry(store, "a").problems.size(), 1U);
	EXPECT_EQ(entry(store, "a").problems[0].field, "map.driver");
	EXPECT_EQ(entry(store, "a").problems[0].line, 5U);
	EXPECT_EQ(store.rescan(), Names{}) << "the same invalid text is no change";

	/* Another invalid text is a change; the valid spec stays. */
	dir.write("a.toml", specOf("a", "colour = 1\n"));
	EXPECT_EQ(store.rescan(), Names{ "a" });
	EXPECT_EQ(entry(store, "a").spec, valid);
	EXPECT_FALSE(entry(store, "a").problems.empty());

	dir.write("a.toml", specOf("a", "[[publish]]\npath = \"/srv/a\"\n"));
	EXPECT_EQ(store.rescan(), Names{ "a" });
	EXPECT_TRUE(entry(store, "a").problems.empty()) << problemsText(entry(store, "a"));
	ASSERT_NE(entry(store, "a").spec, nullptr);
	EXPECT_NE(entry(store, "a").spec, valid);
	EXPECT_EQ(entry(store, "a").spec->publish.size(), 1U);
}

TEST(SpecStore, RemovedFileIsMissingAndKeepsItsSpec)
{
	TempDir dir;
	dir.write("a.toml", specOf("a"));
	dir.write("b.toml", specOf("b"));
	SpecStore store({ dir.path() }, roots());
	(void)store.rescan();
	const auto spec = entry(store, "a").spec;

	std::filesystem::remove(dir.path() + "/a.toml");
	EXPECT_EQ(store.rescan(), Names{ "a" });
	EXPECT_TRUE(entry(store, "a").missing);
	EXPECT_EQ(entry(store, "a").spec, spec);
	EXPECT_EQ(entry(store, "a").file, dir.path() + "/a.toml");
	EXPECT_FALSE(entry(store, "b").missing);
	EXPECT_EQ(store.rescan(), Names{}) << "still missing is no change";

	dir.write("a.toml", specOf("a"));
	EXPECT_EQ(store.rescan(), Names{ "a" });
	EXPECT_FALSE(entry(store, "a").missing);
	EXPECT_NE(entry(store, "a").spec, nullptr);

	std::filesystem::remove(dir.path() + "/a.toml");
	(void)store.rescan();
	store.forget("a");
	EXPECT_EQ(store.find("a"), nullptr);
	EXPECT_EQ(store.rescan(), Names{});
}

TEST(SpecStore, RemovedInvalidFileDropsItsProblems)
{
	TempDir dir;
	dir.write("a.toml", specOf("a"));
	SpecStore store({ dir.path() }, roots());
	(void)store.rescan();
	dir.write("a.toml", "[image\n");
	(void)store.rescan();
	EXPECT_FALSE(entry(store, "a").problems.empty());
	std::filesystem::remove(dir.path() + "/a.toml");
	EXPECT_EQ(store.rescan(), Names{ "a" });
	EXPECT_TRUE(entry(store, "a").missing);
	EXPECT_TRUE(entry(store, "a").problems.empty()) << "the problems were of a file now gone";
	EXPECT_NE(entry(store, "a").spec, nullptr);
}

TEST(SpecStore, IgnoresWhatIsNotASpec)
{
	TempDir dir;
	for (const char *name : { ".x.toml", "x.toml~", "x.txt", ".toml", "x.toml.swp", "x.TOML" })
		dir.write(name, specOf("x"));
	std::filesystem::create_directories(dir.path() + "/d.toml");
	SpecStore store({ dir.path(), dir.path() + "/does-not-exist" }, roots());
	EXPECT_EQ(store.rescan(), Names{});
	EXPECT_TRUE(store.entries().empty());

	dir.write("x.toml", specOf("x"));
	EXPECT_EQ(store.rescan(), Names{ "x" });
}

TEST(SpecStore, MountPathOutsideTheAllowedRoots)
{
	TempDir dir;
	dir.write("a.toml", specOf("a", "[staging]\npath = \"/mnt/a\"\n\n"
					"[[publish]]\npath = \"/srv/a\"\n\n"
					"[[publish]]\npath = \"/home/a\"\n"));
	copySpec(dir, "valid/block.toml");
	SpecStore store({ dir.path() }, roots());
	(void)store.rescan();

	const SpecEntry &a = entry(store, "a");
	EXPECT_EQ(a.spec, nullptr);
	ASSERT_EQ(a.problems.size(), 2U) << problemsText(a);
	EXPECT_EQ(a.problems[0].field, "staging.path");
	EXPECT_EQ(a.problems[0].file, dir.path() + "/a.toml");
	EXPECT_NE(a.problems[0].message.find("'/mnt/a'"), std::string::npos)
		<< a.problems[0].message;
	EXPECT_NE(a.problems[0].message.find("/srv"), std::string::npos)
		<< "names the allowed roots: " << a.problems[0].message;
	EXPECT_EQ(a.problems[1].field, "publish[1].path");

	const SpecEntry &block = entry(store, "block");
	EXPECT_EQ(block.spec, nullptr);
	ASSERT_EQ(block.problems.size(), 1U) << problemsText(block);
	EXPECT_EQ(block.problems[0].field, "publish[0].path");
	EXPECT_NE(block.problems[0].format().find("/var/lib/cluster/disk0"), std::string::npos);
}

TEST(SpecStore, AMountRootItselfIsNotAMountPath)
{
	TempDir dir;
	dir.write("a.toml", specOf("a", "[[publish]]\npath = \"/srv\"\n"));
	dir.write("b.toml", specOf("b", "[[publish]]\npath = \"/srvx/b\"\n"));
	SpecStore store({ dir.path() }, roots());
	(void)store.rescan();
	ASSERT_EQ(entry(store, "a").problems.size(), 1U) << problemsText(entry(store, "a"));
	EXPECT_EQ(entry(store, "a").problems[0].field, "publish[0].path");
	ASSERT_EQ(entry(store, "b").problems.size(), 1U) << "a prefix is not a parent";
}

TEST(SpecStore, AValidSpecTurnedOutOfBoundsKeepsTheLastValidOne)
{
	TempDir dir;
	dir.write("a.toml", specOf("a"));
	SpecStore store({ dir.path() }, roots());
	(void)store.rescan();
	const auto valid = entry(store, "a").spec;
	dir.write("a.toml", specOf("a", "[staging]\npath = \"/mnt/a\"\n"));
	EXPECT_EQ(store.rescan(), Names{ "a" });
	EXPECT_EQ(entry(store, "a").spec, valid);
	ASSERT_EQ(entry(store, "a").problems.size(), 1U);
	EXPECT_EQ(entry(store, "a").problems[0].field, "staging.path");
}

/* Hostile files in a spec directory: each is one bad spec, and nothing blocks or reads on. */
TEST(SpecStore, AFifoADeviceLinkAndAHugeFileAreBadSpecsThatNeverBlock)
{
	TempDir dir;
	dir.write("good.toml", specOf("good"));
	ASSERT_EQ(mkfifo((dir.path() + "/fifo.toml").c_str(), 0600), 0);
	ASSERT_EQ(symlink("/dev/zero", (dir.path() + "/zero.toml").c_str()), 0);
	dir.write("huge.toml",
		  specOf("huge") + "# " + std::string(std::size_t{ 1100 } * 1024, 'x') + "\n");
	SpecStore store({ dir.path() }, roots());

	EXPECT_EQ(store.rescan(), (Names{ "fifo", "good", "huge", "zero" }));
	EXPECT_NE(entry(store, "good").spec, nullptr) << problemsText(entry(store, "good"));
	const auto only = [&](const std::string &name) {
		const SpecEntry &bad = entry(store, name);
		EXPECT_EQ(bad.spec, nullptr);
		return bad.problems.size() == 1 ? bad.problems[0].message : problemsText(bad);
	};
	EXPECT_EQ(only("fifo"), "expected a file, found a FIFO");
	EXPECT_EQ(only("zero"), "expected a file, found a character device");
	EXPECT_EQ(only("huge"), "expected a spec of at most 1 MiB, found a larger file");
	EXPECT_EQ(store.rescan(), Names{}) << "an unchanged bad file is no change";
}

} /* namespace */

} /* namespace rbdvolume::testing */
