/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* `rbd-volumectl check`, run as the built binary: output and exit codes. */
#include <algorithm>
#include <fcntl.h>
#include <filesystem>
#include <string>
#include <unistd.h>
#include <vector>

#include <sys/stat.h>
#include <sys/wait.h>

#include <gtest/gtest.h>

#include "spec_test_support.hpp"

namespace rbdvolume {

namespace {

struct CommandResult {
	int exitCode = -1;
	std::string out;
	std::string err;
};

std::string drain(int fd)
{
	std::string text;
	char buffer[4096];
	for (;;) {
		const ssize_t got = ::read(fd, buffer, sizeof(buffer));
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		text.append(buffer, static_cast<size_t>(got));
	}
	::close(fd);
	return text;
}

/* Runs rbd-volumectl with `args` (no shell); stderr goes to a file so neither pipe can fill. */
CommandResult runVolumectl(const std::vector<std::string> &args)
{
	const std::string binary = test::volumectlPath();
	std::vector<std::string> argv = { binary };
	argv.insert(argv.end(), args.begin(), args.end());
	std::vector<char *> cargv;
	cargv.reserve(argv.size() + 1);
	for (std::string &arg : argv)
		cargv.push_back(arg.data());
	cargv.push_back(nullptr);

	int out[2];
	if (::pipe2(out, O_CLOEXEC) < 0)
		return {};
	char errPath[] = "/tmp/rbdv-cli-test-XXXXXX";
	const int errFd = ::mkstemp(errPath);
	if (errFd < 0)
		return {};
	::unlink(errPath);

	const pid_t pid = ::fork();
	if (pid == 0) {
		::dup2(out[1], STDOUT_FILENO);
		::dup2(errFd, STDERR_FILENO);
		::execv(binary.c_str(), cargv.data());
		::_exit(127);
	}
	::close(out[1]);
	CommandResult result;
	result.out = drain(out[0]);
	int status = 0;
	while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
	}
	result.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	::lseek(errFd, 0, SEEK_SET);
	result.err = drain(errFd);
	return result;
}

class CliCheck : public ::testing::Test
{
protected:
	void SetUp() override
	{
		if (test::volumectlPath().empty())
			GTEST_SKIP() << "RBDV_VOLUMECTL is not set";
	}

	static std::string specs(const char *kind)
	{
		return test::testDataDir() + "/specs/" + kind;
	}
	/* Mount roots wide enough for every valid spec. */
	static std::string wideRoots() { return test::testDataDir() + "/daemon/wide-roots.toml"; }
	/* A settings file that does not exist: the daemon's defaults, whatever this host has. */
	static std::string defaults() { return "/nonexistent/rbd-volumed.toml"; }
};

} /* namespace */

TEST_F(CliCheck, ValidDirectoryExitsZero)
{
	const size_t count = test::filesIn(specs("valid"), ".toml").size();
	const CommandResult result =
		runVolumectl({ "check", "--config", wideRoots(), specs("valid") });
	EXPECT_EQ(result.exitCode, 0) << result.out << result.err;
	EXPECT_EQ(result.out, "checked " + std::to_string(count) +
				      " spec(s): " + std::to_string(count) + " valid, 0 invalid\n");
}

/* What check passes the daemon accepts: its allowed-mount-roots apply too. */
TEST_F(CliCheck, TheDaemonsMountRootsApply)
{
	const std::string block = specs("valid") + "/block.toml";
	const CommandResult refused = runVolumectl({ "check", "--config", defaults(), block });
	EXPECT_EQ(refused.exitCode, 1) << refused.out << refused.err;
	EXPECT_EQ(refused.out,
		  block + ": publish[0].path: '/var/lib/cluster/disk0' is not below an allowed "
			  "mount root (/run/rbd-volume, /mnt, /media, /srv, /var/lib/rbd-volume, "
			  "/var/lib/kubelet; allowed-mount-roots in rbd-volumed.toml)\n"
			  "checked 1 spec(s): 0 valid, 1 invalid\n");

	const CommandResult allowed = runVolumectl({ "check", "--config", wideRoots(), block });
	EXPECT_EQ(allowed.exitCode, 0) << allowed.out << allowed.err;
}

TEST_F(CliCheck, InvalidDaemonSettingsStopTheCheck)
{
	char pattern[] = "/tmp/rbdv-cli-config-XXXXXX";
	ASSERT_NE(::mkdtemp(pattern), nullptr);
	const std::string config = std::string(pattern) + "/rbd-volumed.toml";
	test::writeFile(config, "[daemon]\nworkers = 0\n");
	const CommandResult result =
		runVolumectl({ "check", "--config", config, specs("valid") + "/minimal.toml" });
	EXPECT_EQ(result.exitCode, 1);
	EXPECT_NE(result.out.find(config + ":2:11: daemon.workers: "), std::string::npos)
		<< result.out;
	EXPECT_TRUE(result.out.ends_with(
		config + ": invalid: rbd-volumed would not start; no spec checked\n"))
		<< result.out;

	/* The settings alone, and a settings file given as a spec. */
	const CommandResult alone = runVolumectl({ "check", "--config", wideRoots() });
	EXPECT_EQ(alone.exitCode, 0) << alone.out << alone.err;
	EXPECT_EQ(alone.out, wideRoots() + ": valid\n");
	const CommandResult asSpec = runVolumectl({ "check", config });
	EXPECT_EQ(asSpec.exitCode, 1);
	EXPECT_EQ(asSpec.out, config +
				      ": the daemon's settings, not a volume spec: check them with "
				      "'rbd-volumectl check --config " +
				      config + "' or 'rbd-volumed --check-config " + config +
				      "'\nchecked 1 spec(s): 0 valid, 1 invalid\n");
	EXPECT_EQ(runVolumectl({ "check", "--config" }).exitCode, 2);
	std::filesystem::remove_all(pattern);
}

TEST_F(CliCheck, ExampleSpecIsValid)
{
	const CommandResult result = runVolumectl({ "check", test::exampleSpecPath() });
	EXPECT_EQ(result.exitCode, 0) << result.out << result.err;
	EXPECT_EQ(result.out, "checked 1 spec(s): 1 valid, 0 invalid\n");
}

TEST_F(CliCheck, InvalidFileExitsOneWithItsDiagnostics)
{
	const std::string file = specs("invalid") + "/bad_enums.toml";
	const CommandResult result = runVolumectl({ "check", file });
	EXPECT_EQ(result.exitCode, 1);
	EXPECT_NE(result.out.find(file + ":15:10: map.driver: expected one of 'krbd', 'nbd', "
					 "'fuse', 'auto', found 'rbd'; did you mean 'krbd'?\n"),
		  std::string::npos)
		<< result.out;
	EXPECT_TRUE(result.out.ends_with("checked 1 spec(s): 0 valid, 1 invalid\n")) << result.out;
}

TEST_F(CliCheck, InvalidDirectoryChecksOnlyTomlFiles)
{
	const size_t count = test::filesIn(specs("invalid"), ".toml").size();
	const CommandResult result = runVolumectl({ "check", specs("invalid") });
	EXPECT_EQ(result.exitCode, 1);
	EXPECT_TRUE(result.out.ends_with("checked " + std::to_string(count) +
					 " spec(s): 0 valid, " + std::to_string(count) +
					 " invalid\n"))
		<< result.out;
	EXPECT_EQ(result.out.find("volume.yaml"), std::string::npos);
}

TEST_F(CliCheck, MixedArgumentsCountEach)
{
	const CommandResult result = runVolumectl({ "check", specs("valid") + "/minimal.toml",
						    specs("invalid") + "/missing_pool.toml" });
	EXPECT_EQ(result.exitCode, 1);
	EXPECT_TRUE(result.out.ends_with("checked 2 spec(s): 1 valid, 1 invalid\n")) << result.out;
}

TEST_F(CliCheck, UnreadableFileExitsOne)
{
	const CommandResult result = runVolumectl({ "check", "/nonexistent/vol.toml" });
	EXPECT_EQ(result.exitCode, 1);
	EXPECT_EQ(result.out,
		  "/nonexistent/vol.toml: cannot read the file: No such file or directory\n"
		  "checked 1 spec(s): 0 valid, 1 invalid\n");
}

TEST_F(CliCheck, UsageErrorsExitTwo)
{
	EXPECT_EQ(runVolumectl({}).exitCode, 2);
	EXPECT_EQ(runVolumectl({ "check" }).exitCode, 2);
	EXPECT_EQ(runVolumectl({ "check", "--bogus", specs("valid") }).exitCode, 2);
	const CommandResult unknown = runVolumectl({ "frobnicate" });
	EXPECT_EQ(unknown.exitCode, 2);
	EXPECT_NE(unknown.err.find("unknown verb 'frobnicate'"), std::string::npos) << unknown.err;
	EXPECT_EQ(unknown.out, "");
}

TEST_F(CliCheck, HelpExitsZeroAndDocumentsExitCodes)
{
	for (const std::vector<std::string> &args :
	     { std::vector<std::string>{ "--help" },
	       std::vector<std::string>{ "check", "--help" } }) {
		const CommandResult result = runVolumectl(args);
		EXPECT_EQ(result.exitCode, 0);
		EXPECT_NE(result.out.find("Usage: rbd-volumectl"), std::string::npos);
		EXPECT_NE(result.out.find("check FILE|DIR..."), std::string::npos);
		EXPECT_NE(result.out.find("2  usage error"), std::string::npos);
	}
}

/* The offline verbs speak as the bus verbs do: "rbd-volumectl: VERB [NAME]: MESSAGE". */
TEST_F(CliCheck, MessagesHaveTheDocumentedForm)
{
	const CommandResult bogus = runVolumectl({ "check", "--bogus", specs("valid") });
	EXPECT_EQ(bogus.exitCode, 2);
	EXPECT_EQ(bogus.err, "rbd-volumectl: check: unknown option '--bogus'\n"
			     "Usage: rbd-volumectl check [--config FILE] [--json] FILE|DIR...\n");

	char pattern[] = "/tmp/rbdv-cli-empty-XXXXXX";
	ASSERT_NE(::mkdtemp(pattern), nullptr);
	const CommandResult empty = runVolumectl({ "check", pattern });
	EXPECT_EQ(empty.err,
		  "rbd-volumectl: check: " + std::string(pattern) + ": no *.toml files here\n");
	::rmdir(pattern);

	/* rotate-key never asks the daemon: no spec of that name is exit 5 all the same. */
	const CommandResult rotate =
		runVolumectl({ "rotate-key", "nope", "--new-keyfile", "/nonexistent" });
	if (::geteuid() == 0) {
		EXPECT_EQ(rotate.exitCode, 5) << rotate.err;
		EXPECT_TRUE(
			rotate.err.starts_with("rbd-volumectl: rotate-key nope: no spec for volume "
					       "'nope'"))
			<< rotate.err;
	} else {
		EXPECT_EQ(rotate.exitCode, 4) << rotate.err;
	}
}

/* check --json: one object, each diagnostic with its file, place, key and message. */
TEST_F(CliCheck, JsonForScripts)
{
	const std::string file = specs("invalid") + "/missing_pool.toml";
	const CommandResult result = runVolumectl({ "check", "--json", "--config", wideRoots(),
						    specs("valid") + "/minimal.toml", file });
	EXPECT_EQ(result.exitCode, 1);
	EXPECT_TRUE(result.out.starts_with("{\"checked\":2,\"valid\":1,\"invalid\":1,"
					   "\"diagnostics\":[{\"file\":\"" +
					   file + "\",\"line\":"))
		<< result.out;
	EXPECT_NE(result.out.find(",\"key\":\"image.pool\",\"message\":\"missing required key "
				  "'pool' in [image]\"}"),
		  std::string::npos)
		<< result.out;
	EXPECT_TRUE(result.out.ends_with("}]}\n")) << result.out;
	EXPECT_EQ(std::count(result.out.begin(), result.out.end(), '\n'), 1) << "one line";

	/* A problem without a place has null for it. */
	const CommandResult missing = runVolumectl({ "check", "--json", "/nonexistent/vol.toml" });
	EXPECT_EQ(missing.out, "{\"checked\":1,\"valid\":0,\"invalid\":1,\"diagnostics\":[{"
			       "\"file\":\"/nonexistent/vol.toml\",\"line\":null,\"column\":null,"
			       "\"key\":null,\"message\":\"cannot read the file: No such file or "
			       "directory\"}]}\n");
}

/* VERB --help: that verb's synopsis, its options and no other's, an example. */
TEST_F(CliCheck, EachVerbHasItsOwnHelp)
{
	const CommandResult up = runVolumectl({ "up", "--help" });
	EXPECT_EQ(up.exitCode, 0);
	EXPECT_TRUE(up.out.starts_with("Usage: rbd-volumectl up NAME...\n")) << up.out;
	EXPECT_NE(up.out.find("  --no-wait           return once"), std::string::npos) << up.out;
	EXPECT_EQ(up.out.find("--json"), std::string::npos) << "list's option in up's help";
	EXPECT_NE(up.out.find("Example:\n  rbd-volumectl up "), std::string::npos) << up.out;

	/* A verb without arguments: no space after its name. */
	EXPECT_TRUE(runVolumectl({ "metrics", "--help" })
			    .out.starts_with("Usage: rbd-volumectl metrics\n\n"));

	const CommandResult plan = runVolumectl({ "plan", "-h" });
	EXPECT_NE(plan.out.find("  --intent up|down "), std::string::npos) << plan.out;
	EXPECT_NE(plan.out.find("  --config FILE "), std::string::npos) << plan.out;
	EXPECT_EQ(plan.out.find("--no-wait"), std::string::npos) << plan.out;
}

/* Options before the verb are the verb's, values and all. */
TEST_F(CliCheck, OptionsMayComeBeforeTheVerb)
{
	const std::string block = specs("valid") + "/block.toml";
	const CommandResult before = runVolumectl({ "--config", wideRoots(), "check", block });
	EXPECT_EQ(before.exitCode, 0) << before.out << before.err;
	EXPECT_EQ(before.out, "checked 1 spec(s): 1 valid, 0 invalid\n");

	const CommandResult noVerb = runVolumectl({ "--config", wideRoots() });
	EXPECT_EQ(noVerb.exitCode, 2);
	EXPECT_TRUE(noVerb.err.starts_with(
		"rbd-volumectl: expected a verb, found the option '--config'\n"))
		<< noVerb.err;
}

TEST_F(CliCheck, DoubleDashEndsOptions)
{
	const CommandResult result =
		runVolumectl({ "check", "--", specs("valid") + "/minimal.toml" });
	EXPECT_EQ(result.exitCode, 0) << result.out << result.err;
}

/* Each of these once crashed or hung `check`, and the daemon with it. */
TEST_F(CliCheck, HostileFilesAreInvalidSpecsNeverACrashOrAHang)
{
	char pattern[] = "/tmp/rbdv-cli-hostile-XXXXXX";
	ASSERT_NE(::mkdtemp(pattern), nullptr);
	const std::string dir = pattern;
	std::string deep = "x.";
	for (int i = 0; i < 100000; i++)
		deep += "y.";
	test::writeFile(dir + "/deep.toml", deep + "z = 1\n");
	ASSERT_EQ(::mkfifo((dir + "/fifo.toml").c_str(), 0600), 0);
	ASSERT_EQ(::symlink("/dev/zero", (dir + "/zero.toml").c_str()), 0);
	test::writeFile(dir + "/huge.toml", std::string(std::size_t{ 1100 } * 1024, '#'));

	const CommandResult result = runVolumectl({ "check", dir });
	EXPECT_EQ(result.exitCode, 1) << result.out << result.err;
	for (const std::string &line :
	     { dir + "/deep.toml:1:32: invalid spec: a key of more than 16 dotted parts",
	       dir + "/fifo.toml: expected a file, found a FIFO",
	       dir + "/zero.toml: expected a file, found a character device",
	       dir + "/huge.toml: expected a spec of at most 1 MiB, found a larger file" })
		EXPECT_NE(result.out.find(line), std::string::npos) << line << "\n" << result.out;
	EXPECT_TRUE(result.out.ends_with("checked 4 spec(s): 0 valid, 4 invalid\n")) << result.out;
	for (const char *name : { "deep.toml", "fifo.toml", "zero.toml", "huge.toml" })
		(void)::unlink((dir + "/" + name).c_str());
	(void)::rmdir(dir.c_str());
}

} /* namespace rbdvolume */
