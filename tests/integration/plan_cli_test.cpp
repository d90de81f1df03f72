/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* `rbd-volumectl plan` against the real host: it observes for real and changes nothing. */
#include <cstdlib>
#include <fstream>

#include "common/fs_util.hpp"
#include "engine_fixture.hpp"
#include "host/command_runner.hpp"
#include "shell.hpp"

namespace rbdvolume::testing {
namespace {

struct Ran {
	int status = -1;
	std::string out;
	std::string err;
};

Ran volumectl(const std::vector<std::string> &args)
{
	const char *binary = std::getenv("RBDV_VOLUMECTL");
	EXPECT_NE(binary, nullptr) << "meson sets RBDV_VOLUMECTL";
	std::vector<std::string> argv = { binary ? binary : "rbd-volumectl" };
	argv.insert(argv.end(), args.begin(), args.end());
	Command command{ argv,
			 std::chrono::seconds(30),
			 { std::string("LIBMOUNT_UTAB=") + std::getenv("LIBMOUNT_UTAB") } };
	auto output = PosixCommandRunner().run(command);
	EXPECT_TRUE(output) << output.error().message;
	return output ? Ran{ output->exitStatus, output->out, output->err } : Ran{};
}

std::string mountTable()
{
	return shellOk("findmnt -rn -o TARGET,SOURCE,FSTYPE,OPTIONS");
}

class PlanCli : public EngineOnLoop
{
protected:
	std::string writeSpec(const std::string &name, const std::string &extra = {})
	{
		std::string file = dir_ + "/" + name + ".toml";
		std::ofstream(file) << "[image]\npool = \"rbd\"\nname = \"" << name
				    << "\"\n[image.create]\nsize = \"256M\"\n"
				    << extra << "[staging]\npath = \"" << dir_ << "/staging/"
				    << name << "\"\n[[publish]]\npath = \"" << dir_ << "/a\"\n";
		return file;
	}
	/* The daemon's settings with this test's directory as its one mount root. */
	std::string settings()
	{
		std::string file = dir_ + "/rbd-volumed.toml";
		std::ofstream(file) << "[daemon]\nallowed-mount-roots = [\"" << dir_ << "\"]\n";
		return file;
	}
};

TEST_F(PlanCli, FreshVolumeIsPlannedAndNothingHappens)
{
	const std::string file = writeSpec("fresh");
	const std::string before = mountTable();
	const Ran ran = volumectl({ "plan", "--spec", file, "--config", settings() });
	EXPECT_EQ(ran.status, 0) << ran.err;
	EXPECT_NE(ran.out.find("volume 'fresh' (up): "), std::string::npos) << ran.out;
	EXPECT_NE(ran.out.find("ensure-image rbd/fresh (create 256 MiB if missing)"),
		  std::string::npos)
		<< ran.out;
	EXPECT_NE(ran.out.find("publish " + dir_ + "/staging/fresh on " + dir_ + "/a (rw)"),
		  std::string::npos)
		<< ran.out;
	EXPECT_EQ(mountTable(), before);
	EXPECT_FALSE(isDirectory(dir_ + "/staging/fresh")) << "a dry run created a directory";
}

TEST_F(PlanCli, SeesForeignMountsAndOurMountsOnTheRealHost)
{
	const std::string file = writeSpec("seen");
	ASSERT_TRUE(makeDirectories(dir_ + "/a"));
	shellOk("mount -t tmpfs someone " + dir_ + "/a");
	Ran ran = volumectl({ "plan", "--spec", file, "--config", settings() });
	EXPECT_EQ(ran.status, 0) << ran.err;
	EXPECT_NE(
		ran.out.find("! foreign-mount " + dir_ + "/a: mounted (tmpfs), not by rbd-volume"),
		std::string::npos)
		<< ran.out;
	shellOk("umount " + dir_ + "/a");

	/* Staged by the engine: the plan of a down unmounts our two mounts, found by their marker. */
	const VolumeSpec volume = spec("seen", *readFile(file).value());
	ASSERT_GE(converge(volume, Intent::Up), 1);
	const std::string before = mountTable();
	ran = volumectl({ "plan", "--spec", file, "--intent", "down", "--config", settings() });
	EXPECT_EQ(ran.status, 0) << ran.err;
	EXPECT_NE(ran.out.find("1. unmount " + dir_ + "/a"), std::string::npos) << ran.out;
	EXPECT_NE(ran.out.find("2. unmount-staging " + dir_ + "/staging/seen"), std::string::npos)
		<< ran.out;
	EXPECT_EQ(mountTable(), before);
	ASSERT_GE(converge(volume, Intent::Down), 1);
}

TEST_F(PlanCli, JsonHasEachStepByNameAndEachFailure)
{
	const std::string file = writeSpec("js");
	Ran ran = volumectl({ "plan", "--spec", file, "--config", settings(), "--json" });
	EXPECT_EQ(ran.status, 0) << ran.err;
	EXPECT_TRUE(
		ran.out.starts_with("{\"volume\":\"js\",\"intent\":\"up\",\"steps\":["
				    "{\"step\":\"ensure-image\",\"text\":\"ensure-image rbd/js"))
		<< ran.out;
	EXPECT_NE(ran.out.find("{\"step\":\"publish\",\"text\":\"publish " + dir_ +
			       "/staging/js on " + dir_ + "/a (rw)\"}],\"conflicts\":[]}\n"),
		  std::string::npos)
		<< ran.out;

	/* A failure: the message-form line on stderr, its JSON on stdout. */
	ran = volumectl({ "--json", "plan", "no_such_volume" });
	EXPECT_EQ(ran.status, 5);
	EXPECT_TRUE(ran.out.starts_with("{\"error\":{\"class\":\"not-found\",\"message\":"
					"\"no spec for volume 'no_such_volume'"))
		<< ran.out;
	EXPECT_TRUE(ran.out.ends_with(",\"exit\":5}}\n")) << ran.out;
	EXPECT_TRUE(ran.err.starts_with("rbd-volumectl: plan no_such_volume: ")) << ran.err;

	const std::string bad = dir_ + "/bad.toml";
	std::ofstream(bad) << "[image]\npool = \"rbd\"\n";
	ran = volumectl({ "plan", "--spec", bad, "--json" });
	EXPECT_EQ(ran.status, 1);
	EXPECT_EQ(ran.out, "{\"error\":{\"class\":\"invalid-argument\",\"message\":\"" + bad +
				   " is invalid: the problems are above\",\"exit\":1}}\n");
	EXPECT_NE(ran.err.find(bad + ":1:1: image.name: missing required key"), std::string::npos)
		<< ran.err;
}

/* What the daemon would refuse has no plan: its allowed-mount-roots apply. */
TEST_F(PlanCli, TheDaemonsMountRootsApply)
{
	const std::string file = writeSpec("outside");
	const Ran ran =
		volumectl({ "plan", "--spec", file, "--config", "/nonexistent/rbd-volumed.toml" });
	EXPECT_EQ(ran.status, 1);
	EXPECT_NE(ran.err.find(file + ": staging.path: '" + dir_ +
			       "/staging/outside' is not below an allowed mount root"),
		  std::string::npos)
		<< ran.err;
	EXPECT_EQ(ran.out, "");
}

TEST_F(PlanCli, ReportsBadInputClearly)
{
	const std::string bad = dir_ + "/bad.toml";
	std::ofstream(bad) << "[image]\npool = \"rbd\"\n";
	Ran ran = volumectl({ "plan", "--spec", bad });
	EXPECT_EQ(ran.status, 1);
	EXPECT_NE(ran.err.find(bad + ":1:1: image.name: missing required key 'name' in [image]"),
		  std::string::npos)
		<< ran.err;
	/* No spec of that name: exit 5 and the documented form, as the bus verbs. */
	ran = volumectl({ "plan", "no_such_volume" });
	EXPECT_EQ(ran.status, 5);
	EXPECT_TRUE(ran.err.starts_with(
		"rbd-volumectl: plan no_such_volume: no spec for volume 'no_such_volume'"))
		<< ran.err;
	ran = volumectl({ "plan", "--intent", "sideways", "x" });
	EXPECT_EQ(ran.status, 2);
	EXPECT_NE(ran.err.find("--intent is 'up' or 'down', not 'sideways'"), std::string::npos);
}

} /* namespace */
} /* namespace rbdvolume::testing */
