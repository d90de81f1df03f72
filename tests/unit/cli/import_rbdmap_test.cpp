/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* `rbd-volumectl import-rbdmap`: the built binary on tests/data/rbdmap, end to end. */
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "read_text.hpp"
#include "run_ctl.hpp"

namespace rbdvolume::cli {

namespace {

using rbdvolume::testing::readText;

using testing::CtlResult;
using testing::runCtl;

std::string dataPath(const std::string &name)
{
	const char *dir = std::getenv("RBDV_TEST_DATA"); /* NOLINT(concurrency-mt-unsafe) */
	return std::string(dir != nullptr ? dir : "tests/data") + "/rbdmap/" + name;
}

constexpr std::string_view NoBus = "unix:path=/nonexistent/rbdv-no-bus";

class ImportCommand : public ::testing::Test
{
protected:
	void SetUp() override
	{
		ASSERT_FALSE(testing::ctlPath().empty()) << "RBDV_CTL is not set";
		char dir[] = "/tmp/rbdv-import-test-XXXXXX";
		ASSERT_NE(::mkdtemp(dir), nullptr);
		dir_ = dir;
	}

	void TearDown() override
	{
		std::error_code error;
		std::filesystem::remove_all(dir_, error);
	}

	static CtlResult run(const std::vector<std::string> &args)
	{
		std::vector<std::string> all = { "import-rbdmap" };
		all.insert(all.end(), args.begin(), args.end());
		return runCtl(std::string(NoBus), all);
	}

	static CtlResult check(const std::string &target)
	{
		return runCtl(std::string(NoBus), { "check", target });
	}

	std::string dir_;
};

/* Stdout split at its "# --- NAME.toml" lines into NAME -> text. */
std::vector<std::pair<std::string, std::string>> splitPrinted(const std::string &out)
{
	std::vector<std::pair<std::string, std::string>> specs;
	std::istringstream in(out);
	std::string line;
	while (std::getline(in, line)) {
		constexpr std::string_view Separator = "# --- ";
		if (line.starts_with(Separator) && line.ends_with(".toml")) {
			specs.emplace_back(line.substr(Separator.size()), "");
			continue;
		}
		if (!specs.empty())
			specs.back().second += line + '\n';
		else
			ADD_FAILURE() << "output before the first separator: " << line;
	}
	return specs;
}

TEST_F(ImportCommand, PrintedSpecsPassCheck)
{
	const CtlResult result =
		run({ dataPath("clean.rbdmap"), "--fstab", dataPath("clean.fstab") });
	EXPECT_EQ(result.exitCode, 0) << result.err;
	const auto specs = splitPrinted(result.out);
	ASSERT_EQ(specs.size(), 4U) << result.out;
	EXPECT_EQ(specs[0].first, "bar1.toml");
	EXPECT_EQ(specs[3].first, "raw_disk.toml");
	for (const auto &[name, text] : specs) {
		std::ofstream(dir_ + '/' + name) << text;
	}
	const CtlResult checked = check(dir_);
	EXPECT_EQ(checked.exitCode, 0) << checked.out;
	EXPECT_NE(checked.out.find("checked 4 spec(s): 4 valid, 0 invalid"), std::string::npos)
		<< checked.out;
	EXPECT_NE(result.err.find("clean.rbdmap:2: note: foopool/bar1 -> volume 'bar1'"),
		  std::string::npos)
		<< result.err;
	EXPECT_NE(result.err.find("4 spec(s) from 4 rbdmap line(s)\n"), std::string::npos)
		<< result.err;
}

TEST_F(ImportCommand, WriteRefusesToOverwrite)
{
	const std::string volumes = dir_ + "/volumes";
	std::filesystem::create_directory(volumes);
	std::ofstream(volumes + "/bar2.toml") << "# mine\n";

	const std::vector<std::string> args = {
		dataPath("clean.rbdmap"),
		"--fstab",
		dataPath("clean.fstab"),
		"--write",
		"--dir",
		volumes,
	};
	const CtlResult first = run(args);
	EXPECT_EQ(first.exitCode, 1) << first.err;
	EXPECT_TRUE(first.out.empty()) << first.out;
	EXPECT_NE(first.err.find(volumes + "/bar2.toml: error: exists already; refusing to "
					   "overwrite it; foopool/bar2 not written"),
		  std::string::npos)
		<< first.err;
	EXPECT_EQ(readText(volumes + "/bar2.toml"), "# mine\n");
	for (const char *name : { "bar1", "logs", "raw_disk" })
		EXPECT_TRUE(std::filesystem::is_regular_file(volumes + '/' + name + ".toml"))
			<< name;
	EXPECT_NE(first.err.find("3 spec(s) written to " + volumes), std::string::npos)
		<< first.err;

	std::filesystem::remove(volumes + "/bar2.toml");
	const CtlResult checked = check(volumes);
	EXPECT_EQ(checked.exitCode, 0) << checked.out;
	EXPECT_NE(checked.out.find("3 valid, 0 invalid"), std::string::npos) << checked.out;

	/* Again: every file is there now but bar2; it alone is written. */
	const std::string before = readText(volumes + "/bar1.toml");
	const CtlResult second = run(args);
	EXPECT_EQ(second.exitCode, 1) << second.err;
	EXPECT_EQ(readText(volumes + "/bar1.toml"), before);
	EXPECT_NE(second.err.find("1 spec(s) written"), std::string::npos) << second.err;
	EXPECT_TRUE(std::filesystem::is_regular_file(volumes + "/bar2.toml"));

	/* No temporary file is left behind. */
	for (const auto &entry : std::filesystem::directory_iterator(volumes))
		EXPECT_TRUE(entry.path().extension() == ".toml") << entry.path();
}

TEST_F(ImportCommand, BadLinesFailButTheRestIsPrinted)
{
	const CtlResult result = run({ dataPath("rbdmap"), "--fstab", dataPath("fstab") });
	EXPECT_EQ(result.exitCode, 1);
	EXPECT_EQ(splitPrinted(result.out).size(), 10U);
	EXPECT_NE(result.err.find("rbdmap:16: error: "), std::string::npos) << result.err;
	EXPECT_NE(result.err.find("5 line(s) gave none"), std::string::npos) << result.err;
	EXPECT_EQ(result.out.find("AQBS"), std::string::npos);
	EXPECT_EQ(result.err.find("AQBS"), std::string::npos);
}

TEST_F(ImportCommand, UsageAndMissingFiles)
{
	EXPECT_EQ(run({ "--bogus" }).exitCode, 2);
	EXPECT_EQ(run({ "a", "b" }).exitCode, 2);
	EXPECT_EQ(run({ "--dir", dir_ }).exitCode, 2); /* --dir without --write */
	EXPECT_EQ(run({ "--fstab" }).exitCode, 2);

	const CtlResult missing = run({ dir_ + "/no-rbdmap" });
	EXPECT_EQ(missing.exitCode, 1);
	EXPECT_NE(missing.err.find("no-rbdmap: error: no such file"), std::string::npos)
		<< missing.err;

	const CtlResult noFstab = run({ dataPath("clean.rbdmap"), "--fstab", dir_ + "/no-fstab" });
	EXPECT_EQ(noFstab.exitCode, 1) << noFstab.err;

	const CtlResult help = runCtl(std::string(NoBus), { "--help" });
	EXPECT_EQ(help.exitCode, 0);
	EXPECT_NE(help.out.find("import-rbdmap [FILE]"), std::string::npos) << help.out;
	EXPECT_NE(help.out.find("--write"), std::string::npos) << help.out;
}

} /* namespace */

} /* namespace rbdvolume::cli */
