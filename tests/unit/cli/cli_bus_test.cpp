/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The bus verbs of the real rbd-volumectl against a fake rbd-volumed: a private
 * dbus-daemon stands in for the system bus (DBUS_SYSTEM_BUS_ADDRESS), and an
 * in-test sd-bus server owns org.rbdvolume1 with canned volumes.
 */
#include <array>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <unistd.h>
#include <vector>

#include <sys/socket.h>
#include <sys/un.h>

#include <gtest/gtest.h>

#include "cli/status_format.hpp"
#include "fake_manager.hpp"
#include "private_bus.hpp"
#include "read_text.hpp"
#include "run_ctl.hpp"
#include "sample_volumes.hpp"
#include "temp_dir.hpp"

namespace rbdvolume::testing {

namespace {

constexpr std::string_view Hint = "is rbd-volumed running? (systemctl status rbd-volumed)";

/* The volumes as the CLI shows them: sorted by name. */
std::vector<bus::VolumeProperties> sortedVolumes()
{
	return { invalidVolume(), upVolume(), failedVolume() };
}

struct Rig {
	std::unique_ptr<PrivateBus> bus;
	std::unique_ptr<FakeManager> daemon;
	std::string problem;
};

class CliBus : public ::testing::Test
{
protected:
	/* One bus and one fake daemon for the suite; the calls are cleared before each test. */
	static Rig &rig()
	{
		static Rig suiteRig;
		return suiteRig;
	}

	static void SetUpTestSuite()
	{
		Rig &shared = rig();
		shared.bus = PrivateBus::start(shared.problem);
		if (!shared.bus)
			return;
		shared.daemon = std::make_unique<FakeManager>(sampleVolumes());
		shared.problem = shared.daemon->start(shared.bus->address());
		if (!shared.problem.empty())
			shared.daemon.reset();
	}

	static void TearDownTestSuite()
	{
		rig().daemon.reset();
		rig().bus.reset();
	}

	void SetUp() override
	{
		ASSERT_FALSE(ctlPath().empty()) << "RBDV_CTL is not set (meson sets it)";
		if (!rig().problem.empty()) {
			if (integrationRequired())
				FAIL() << "RBDV_REQUIRE_INTEGRATION=1 but " << rig().problem;
			GTEST_SKIP() << rig().problem;
		}
		rig().daemon->clearCalls();
	}

	static CtlResult ctl(const std::vector<std::string> &args,
			     const std::vector<std::string> &extraEnv = {},
			     bool stderrTerminal = false)
	{
		return runCtl(rig().bus->address(), args, extraEnv, stderrTerminal);
	}

	static FakeManager &daemon() { return *rig().daemon; }
};

/* ---- list ---- */

TEST_F(CliBus, ListIsATableSortedByName)
{
	const CtlResult result = ctl({ "list" });
	EXPECT_EQ(result.exitCode, 0) << result.err;
	EXPECT_EQ(result.out, "NAME          INTENT  PHASE    DEVICE\n"
			      "archive.2020  -       invalid  -\n"
			      "db            up      up       /dev/rbd0\n"
			      "logs          down    failed   /dev/nbd1\n");
	EXPECT_EQ(result.err, "");
}

TEST_F(CliBus, ListNoLegendPrintsTheRowsOnly)
{
	for (const auto &args : { std::vector<std::string>{ "list", "--no-legend" },
				  std::vector<std::string>{ "--no-legend", "list" } }) {
		const CtlResult result = ctl(args);
		EXPECT_EQ(result.exitCode, 0) << result.err;
		EXPECT_EQ(result.out, "archive.2020  -       invalid  -\n"
				      "db            up      up       /dev/rbd0\n"
				      "logs          down    failed   /dev/nbd1\n")
			<< args.front();
	}
	/* Only list has a legend to drop. */
	EXPECT_EQ(ctl({ "status", "--no-legend" }).exitCode, 2);
}

TEST_F(CliBus, ListJson)
{
	const CtlResult result = ctl({ "list", "--json" });
	EXPECT_EQ(result.exitCode, 0) << result.err;
	EXPECT_EQ(result.out,
		  "{\"volumes\":[{\"name\":\"archive.2020\",\"intent\":\"\",\"phase\":\"invalid\","
		  "\"device\":\"\"},"
		  "{\"name\":\"db\",\"intent\":\"up\",\"phase\":\"up\",\"device\":\"/dev/rbd0\"},"
		  "{\"name\":\"logs\",\"intent\":\"down\",\"phase\":\"failed\",\"device\":\"/dev/"
		  "nbd1\"}]}\n");
}

/* ---- metrics ---- */

TEST_F(CliBus, MetricsOfEveryVolumeOnStdoutOrInAFile)
{
	const CtlResult result = ctl({ "metrics" });
	EXPECT_EQ(result.exitCode, 0) << result.err;
	EXPECT_NE(result.out.find("rbdvolume_up 1\n"), std::string::npos) << result.out;
	for (const char *volume : { "archive.2020", "db", "logs" })
		EXPECT_NE(result.out.find(std::string("rbdvolume_volume_busy{volume=\"") + volume),
			  std::string::npos)
			<< volume;
	const TempDir dir;
	const std::string file = dir.path() + "/rbd-volume.prom";
	const CtlResult written = ctl({ "metrics", "--output", file });
	EXPECT_EQ(written.exitCode, 0) << written.err;
	EXPECT_EQ(written.out, "");
	EXPECT_EQ(readText(file), result.out);
	EXPECT_EQ(ctl({ "metrics", "db" }).exitCode, 2) << "metrics takes no names";
}

/* ---- status ---- */

TEST_F(CliBus, StatusShowsEveryVolumeWithEveryProperty)
{
	const CtlResult result = ctl({ "status" });
	EXPECT_EQ(result.exitCode, 0) << result.err;
	EXPECT_EQ(result.out, cli::formatStatusText(sortedVolumes()));
	EXPECT_NE(result.out.find(
			  "  conditions:   Failed: unmap: device or resource busy\n"
			  "                Conflict: /srv/logs is mounted by another process\n"),
		  std::string::npos)
		<< result.out;
}

TEST_F(CliBus, StatusOfOneFailedVolumeStillExitsZero)
{
	const CtlResult result = ctl({ "status", "logs" });
	EXPECT_EQ(result.exitCode, 0) << result.err;
	const std::vector<bus::VolumeProperties> expected = { failedVolume() };
	EXPECT_EQ(result.out, cli::formatStatusText(expected));
	EXPECT_EQ(result.out.rfind("logs\n  spec file:    /etc/rbd-volume/volumes/logs.toml\n", 0),
		  0U)
		<< result.out;
}

TEST_F(CliBus, StatusOfANameWithADot)
{
	const CtlResult result = ctl({ "status", "archive.2020" });
	EXPECT_EQ(result.exitCode, 0) << result.err;
	const std::vector<bus::VolumeProperties> expected = { invalidVolume() };
	EXPECT_EQ(result.out, cli::formatStatusText(expected));
}

TEST_F(CliBus, StatusJson)
{
	const CtlResult result = ctl({ "status", "--json" });
	EXPECT_EQ(result.exitCode, 0) << result.err;
	EXPECT_EQ(result.out, cli::formatStatusJson(sortedVolumes()));
	EXPECT_EQ(result.out.rfind("{\"volumes\":[{\"name\":\"archive.2020\",\"spec_file\":\"\","
				   "\"intent\":\"\",\"phase\":\"invalid\"",
				   0),
		  0U)
		<< result.out;
}

TEST_F(CliBus, StatusJsonOfOne)
{
	const CtlResult result = ctl({ "status", "db", "--json" });
	EXPECT_EQ(result.exitCode, 0) << result.err;
	const std::vector<bus::VolumeProperties> expected = { upVolume() };
	EXPECT_EQ(result.out, cli::formatStatusJson(expected));
}

/* ---- up, down ---- */

TEST_F(CliBus, UpWaitsAndPrintsNothing)
{
	const CtlResult result = ctl({ "up", "db" });
	EXPECT_EQ(result.exitCode, 0) << result.err;
	EXPECT_EQ(result.out, "");
	EXPECT_EQ(result.err, "");
	EXPECT_EQ(daemon().calls(), std::vector<std::string>{ "Up db wait" });
}

TEST_F(CliBus, UpVerbose)
{
	const CtlResult result = ctl({ "up", "--verbose", "db" });
	EXPECT_EQ(result.exitCode, 0) << result.err;
	EXPECT_EQ(result.out, "db: up\n");
}

TEST_F(CliBus, UpFailureIsTheDaemonsMessage)
{
	daemon().plan("Up", "db",
		      ReplyPlan{ {},
				 "org.rbdvolume1.Error.Conflict",
				 "/srv/db is mounted by another process",
				 false,
				 0 });
	const CtlResult result = ctl({ "up", "db" });
	EXPECT_EQ(result.exitCode, 1);
	EXPECT_EQ(result.out, "");
	EXPECT_EQ(result.err, "rbd-volumectl: up db: /srv/db is mounted by another process\n");
}

/* ShuttingDown is not among them: a restarting daemon is asked again (UpIsAskedAgain...). */
TEST_F(CliBus, EveryDaemonErrorButTimeoutIsExitOne)
{
	for (const char *name :
	     { "org.rbdvolume1.Error.SpecInvalid", "org.rbdvolume1.Error.Failed" }) {
		daemon().plan("Up", "logs", ReplyPlan{ {}, name, "it went wrong", false, 0 });
		const CtlResult result = ctl({ "up", "logs" });
		EXPECT_EQ(result.exitCode, 1) << name;
		EXPECT_EQ(result.err, "rbd-volumectl: up logs: it went wrong\n") << name;
	}
}

/* The daemon killed while `up` waited: asked again once it is back, the exit status is the volume's. */
TEST_F(CliBus, UpIsAskedAgainWhenTheDaemonLeftMidCall)
{
	for (const char *gone :
	     { "org.freedesktop.DBus.Error.NoReply", "org.rbdvolume1.Error.ShuttingDown" }) {
		daemon().clearCalls();
		ReplyPlan left{ {}, gone, "Message recipient disconnected", false, 0 };
		left.once = true;
		daemon().plan("Up", "db", left);
		const CtlResult result = ctl({ "up", "db" });
		EXPECT_EQ(result.exitCode, 0) << gone << ": " << result.err;
		EXPECT_EQ(daemon().calls(),
			  (std::vector<std::string>{ "Up db wait", "Up db wait" }))
			<< gone;
	}
}

/* Any other failure is final: never asked twice. */
TEST_F(CliBus, AFailureOfTheVolumeIsNotRetried)
{
	daemon().clearCalls();
	daemon().plan("Up", "db",
		      ReplyPlan{ {}, "org.rbdvolume1.Error.Conflict", "refused", false, 0 });
	EXPECT_EQ(ctl({ "up", "db" }).exitCode, 1);
	EXPECT_EQ(daemon().calls(), std::vector<std::string>{ "Up db wait" });
}

TEST_F(CliBus, AMessageOfSeveralLinesKeepsThemButNoOtherControls)
{
	daemon().plan("Up", "db",
		      ReplyPlan{ {},
				 "org.rbdvolume1.Error.SpecInvalid",
				 "/etc/rbd-volume/volumes/db.toml:3:8: pool: required\n"
				 "/etc/rbd-volume/volumes/db.toml:5:1: fs: \x1b[1mbold\x1b[0m?\n",
				 false,
				 0 });
	const CtlResult result = ctl({ "up", "db" });
	EXPECT_EQ(result.exitCode, 1);
	EXPECT_EQ(result.err, "rbd-volumectl: up db: /etc/rbd-volume/volumes/db.toml:3:8: pool: "
			      "required\n/etc/rbd-volume/volumes/db.toml:5:1: fs: "
			      "\\x1b[1mbold\\x1b[0m?\n");
}

TEST_F(CliBus, UpWithProgressPrintsEachActivity)
{
	const ReplyPlan plan{ { { "logs", "map rbd/logs" },
				{ "logs", "format ext4 /dev/rbd1" },
				{ "db", "not this volume" },
				{ "logs", "" } },
			      "",
			      "",
			      false,
			      0 };
	daemon().plan("Up", "logs", plan);
	const CtlResult result = ctl({ "up", "logs", "--progress" });
	EXPECT_EQ(result.exitCode, 0) << result.err;
	EXPECT_EQ(result.out, "");
	EXPECT_EQ(result.err, "logs: map rbd/logs\nlogs: format ext4 /dev/rbd1\n");

	/* Without --progress, and stderr no terminal: quiet. */
	const CtlResult quiet = ctl({ "up", "logs" });
	EXPECT_EQ(quiet.exitCode, 0) << quiet.err;
	EXPECT_EQ(quiet.err, "");
}

/* A datagram socket standing in for systemd's notify socket: what was sent to it. */
class NotifySocket
{
public:
	NotifySocket()
		: path_(dir_.path() + "/notify"),
		  fd_(::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0))
	{
		sockaddr_un address{};
		address.sun_family = AF_UNIX;
		path_.copy(address.sun_path, sizeof address.sun_path - 1);
		if (fd_ < 0 ||
		    ::bind(fd_, reinterpret_cast<const sockaddr *>(&address), sizeof address) != 0)
			problem_ = "cannot make a notify socket";
	}
	~NotifySocket()
	{
		if (fd_ >= 0)
			::close(fd_);
	}
	NotifySocket(const NotifySocket &) = delete;
	NotifySocket &operator=(const NotifySocket &) = delete;
	NotifySocket(NotifySocket &&) = delete;
	NotifySocket &operator=(NotifySocket &&) = delete;

	const std::string &problem() const { return problem_; }
	std::string environment() const { return "NOTIFY_SOCKET=" + path_; }

	/* Every message received so far, in order. */
	std::vector<std::string> messages() const
	{
		std::vector<std::string> received;
		std::array<char, 4096> buffer{};
		for (;;) {
			const ssize_t n = ::recv(fd_, buffer.data(), buffer.size(), 0);
			if (n < 0)
				return received;
			received.emplace_back(buffer.data(), static_cast<size_t>(n));
		}
	}

private:
	TempDir dir_;
	std::string path_;
	int fd_ = -1;
	std::string problem_;
};

/*
 * As rbd-volume@NAME.service's ExecStart=: each step extends the unit's start
 * timeout and shows in its status, so a long first mkfs never outlasts it.
 */
TEST_F(CliBus, UpUnderSystemdExtendsTheUnitsTimeoutAtEachStep)
{
	const NotifySocket systemd;
	ASSERT_EQ(systemd.problem(), "");
	daemon().plan(
		"Up", "logs",
		ReplyPlan{ { { "logs", "map rbd/logs" }, { "logs", "format ext4 /dev/rbd1" } },
			   "",
			   "",
			   false,
			   0 });
	const CtlResult result = ctl({ "up", "logs" }, { systemd.environment() });
	EXPECT_EQ(result.exitCode, 0) << result.err;
	EXPECT_EQ(result.err, "") << "no --progress, no terminal: quiet";

	const std::vector<std::string> sent = systemd.messages();
	ASSERT_GE(sent.size(), 3U) << ::testing::PrintToString(sent);
	EXPECT_EQ(sent[0], "EXTEND_TIMEOUT_USEC=30000000\nSTATUS=map rbd/logs, 0 s");
	EXPECT_EQ(sent[1], "EXTEND_TIMEOUT_USEC=30000000\nSTATUS=format ext4 /dev/rbd1, 0 s");
	/* Then where the volume is, as the (fake) daemon shows it: no more extension. */
	EXPECT_TRUE(sent.back().starts_with("STATUS=failed")) << sent.back();

	/* --no-wait returns at once: nothing to extend. */
	const CtlResult noWait = ctl({ "up", "logs", "--no-wait" }, { systemd.environment() });
	EXPECT_EQ(noWait.exitCode, 0) << noWait.err;
	EXPECT_EQ(systemd.messages(), std::vector<std::string>{});
}

/* A failed start under systemd: the unit's status says why, its first line only. */
TEST_F(CliBus, UpThatFailedUnderSystemdSaysWhyInTheUnitsStatus)
{
	const NotifySocket systemd;
	ASSERT_EQ(systemd.problem(), "");
	daemon().plan("Up", "logs",
		      ReplyPlan{ {},
				 "org.rbdvolume1.Error.Timeout",
				 "cannot reach the cluster at [v2:10.0.0.1:3300] within 10 s\nmore",
				 false,
				 0 });
	const CtlResult result = ctl({ "up", "logs" }, { systemd.environment() });
	EXPECT_EQ(result.exitCode, 75);
	const std::vector<std::string> sent = systemd.messages();
	ASSERT_FALSE(sent.empty());
	EXPECT_EQ(sent.back(),
		  "STATUS=not up: cannot reach the cluster at [v2:10.0.0.1:3300] within 10 s");

	/* Without a unit, nothing is sent. */
	const CtlResult plain = ctl({ "up", "logs" });
	EXPECT_EQ(plain.exitCode, 75);
	EXPECT_EQ(systemd.messages(), std::vector<std::string>{});
}

TEST_F(CliBus, ProgressIsOnByDefaultOnATerminal)
{
	daemon().plan("Down", "logs",
		      ReplyPlan{ { { "logs", "unmount /var/lib/rbd-volume/staging/logs" },
				   { "logs", "unmap /dev/nbd1" } },
				 "",
				 "",
				 false,
				 0 });
	const CtlResult result = ctl({ "down", "logs" }, {}, true);
	EXPECT_EQ(result.exitCode, 0) << result.err;
	EXPECT_EQ(result.err, "logs: unmount /var/lib/rbd-volume/staging/logs\n"
			      "logs: unmap /dev/nbd1\n");

	/* --no-wait has nothing to wait for, so nothing to show. */
	const CtlResult noWait = ctl({ "down", "logs", "--no-wait" }, {}, true);
	EXPECT_EQ(noWait.exitCode, 0) << noWait.err;
	EXPECT_EQ(noWait.err, "");
}

TEST_F(CliBus, UpWaitsLongerThanTheBusDefaultTimeout)
{
	/* sd-bus would give up on a call after $SYSTEMD_BUS_TIMEOUT; a waiting up must not. */
	daemon().plan("Up", "db", ReplyPlan{ {}, "", "", false, 1500000 });
	const CtlResult result = ctl({ "up", "db" }, { "SYSTEMD_BUS_TIMEOUT=500ms" });
	EXPECT_EQ(result.exitCode, 0) << result.err;
	EXPECT_EQ(result.err, "");
}

/* The cluster unreachable (at boot): 75, so rbd-volume@.service starts again. */
TEST_F(CliBus, UpThatRanOutOfTimeIsExitTryAgain)
{
	daemon().plan("Up", "db",
		      ReplyPlan{ {},
				 "org.rbdvolume1.Error.Timeout",
				 "cannot reach the cluster at [v2:10.0.0.1:3300] within 10 s",
				 false,
				 0 });
	const CtlResult result = ctl({ "up", "db" });
	EXPECT_EQ(result.exitCode, 75);
	EXPECT_EQ(result.err, "rbd-volumectl: up db: cannot reach the cluster at "
			      "[v2:10.0.0.1:3300] within 10 s\n");
}

TEST_F(CliBus, UpGivesUpAfterTimeout)
{
	daemon().plan("Up", "db", ReplyPlan{ {}, "", "", true, 0 });
	const CtlResult result = ctl({ "up", "db", "--timeout", "1" });
	EXPECT_EQ(result.exitCode, 75);
	EXPECT_EQ(result.err, "rbd-volumectl: up db: no reply within 1 s; rbd-volumed carries on "
			      "(see 'rbd-volumectl status db')\n");
}

TEST_F(CliBus, DownNoWaitPassesWaitFalse)
{
	const CtlResult result = ctl({ "down", "db", "--no-wait" });
	EXPECT_EQ(result.exitCode, 0) << result.err;
	EXPECT_EQ(result.out, "");
	EXPECT_EQ(daemon().calls(), std::vector<std::string>{ "Down db nowait" });

	const CtlResult verbose = ctl({ "down", "db", "--no-wait", "-v" });
	EXPECT_EQ(verbose.out, "db: down (requested)\n");
}

TEST_F(CliBus, DownWaitsByDefault)
{
	const CtlResult result = ctl({ "down", "logs", "-v" });
	EXPECT_EQ(result.exitCode, 0) << result.err;
	EXPECT_EQ(result.out, "logs: down\n");
	EXPECT_EQ(daemon().calls(), std::vector<std::string>{ "Down logs wait" });
}

/* ---- reconcile, reload ---- */

TEST_F(CliBus, ReconcileOneAndAll)
{
	EXPECT_EQ(ctl({ "reconcile", "db" }).exitCode, 0);
	const CtlResult all = ctl({ "reconcile", "--verbose" });
	EXPECT_EQ(all.exitCode, 0) << all.err;
	EXPECT_EQ(all.out, "every volume: reconciled\n");
	EXPECT_EQ(daemon().calls(),
		  (std::vector<std::string>{ "Reconcile db", "Reconcile (all)" }));
}

TEST_F(CliBus, ReconcileAllShowsProgressOfEveryVolume)
{
	const ReplyPlan plan{ { { "archive.2020", "check the spec" },
				{ "db", "grow ext4 /dev/rbd0" },
				{ "db", "" } },
			      "",
			      "",
			      false,
			      0 };
	daemon().plan("Reconcile", "", plan);
	const CtlResult result = ctl({ "reconcile", "--progress" });
	EXPECT_EQ(result.exitCode, 0) << result.err;
	EXPECT_EQ(result.err, "archive.2020: check the spec\ndb: grow ext4 /dev/rbd0\n");
}

TEST_F(CliBus, Reload)
{
	const CtlResult result = ctl({ "reload" });
	EXPECT_EQ(result.exitCode, 0) << result.err;
	EXPECT_EQ(result.out, "");
	EXPECT_EQ(daemon().calls(), std::vector<std::string>{ "Reload" });
	EXPECT_EQ(ctl({ "reload", "-v" }).out, "reloaded\n");

	daemon().plan("Reload", "",
		      ReplyPlan{ {},
				 "org.rbdvolume1.Error.Failed",
				 "cannot read /etc/rbd-volume/volumes",
				 false,
				 0 });
	const CtlResult failed = ctl({ "reload" });
	EXPECT_EQ(failed.exitCode, 1);
	EXPECT_EQ(failed.err, "rbd-volumectl: reload: cannot read /etc/rbd-volume/volumes\n");
}

/*
 * A spec written a moment ago: the daemon reads it when Up asks, while its
 * volume is not yet known to GetVolume. Watching its progress (a terminal,
 * --progress, or systemd's notify socket) must not look it up first.
 */
TEST_F(CliBus, AFreshSpecComesUpWithItsProgressWatched)
{
	daemon().plan("Up", "fresh", ReplyPlan{ {}, "", "", false, 0, true });
	const CtlResult result = ctl({ "up", "fresh", "--progress" });
	EXPECT_EQ(result.exitCode, 0) << result.err;
	EXPECT_EQ(daemon().calls(), std::vector<std::string>{ "Up fresh wait" });
}

/* Several names: each in turn; the first failure's status, and the rest still done. */
TEST_F(CliBus, SeveralVolumesInOneCall)
{
	const CtlResult up = ctl({ "up", "db", "nope", "logs", "--no-wait" });
	EXPECT_EQ(up.exitCode, 5) << up.err;
	EXPECT_EQ(up.err, "rbd-volumectl: up nope: no volume named 'nope'\n");
	EXPECT_EQ(daemon().calls(),
		  (std::vector<std::string>{ "Up db nowait", "Up nope nowait", "Up logs nowait" }));

	const CtlResult status = ctl({ "status", "logs", "db", "--json" });
	EXPECT_EQ(status.exitCode, 0) << status.err;
	EXPECT_LT(status.out.find("\"name\":\"logs\""), status.out.find("\"name\":\"db\""))
		<< "in the order named: " << status.out;
	EXPECT_EQ(ctl({ "status", "db", "nope" }).out, "") << "nothing half-shown";
}

/* is-up: a script's test, as `systemctl is-active`; the daemon is only asked. */
TEST_F(CliBus, IsUpTellsByItsExitStatus)
{
	const CtlResult up = ctl({ "is-up", "db" });
	EXPECT_EQ(up.exitCode, 0) << up.err;
	EXPECT_EQ(up.out, "up\n");

	const CtlResult both = ctl({ "is-up", "db", "logs" });
	EXPECT_EQ(both.exitCode, 1) << both.err;
	EXPECT_EQ(both.out, "up\nfailed\n");

	const CtlResult quiet = ctl({ "is-up", "-q", "logs" });
	EXPECT_EQ(quiet.exitCode, 1);
	EXPECT_EQ(quiet.out, "");

	const CtlResult unknown = ctl({ "is-up", "nope" });
	EXPECT_EQ(unknown.exitCode, 5) << unknown.err;
	EXPECT_EQ(ctl({ "is-up" }).exitCode, 2);
	EXPECT_TRUE(daemon().calls().empty()) << "is-up changed something";
}

/* ---- the exit codes of refusals ---- */

TEST_F(CliBus, UnknownVolumeIsExitFive)
{
	for (const std::vector<std::string> &args :
	     { std::vector<std::string>{ "up", "nope" },
	       std::vector<std::string>{ "up", "nope", "--progress" },
	       std::vector<std::string>{ "down", "nope", "--no-wait" },
	       std::vector<std::string>{ "status", "nope" },
	       std::vector<std::string>{ "reconcile", "nope" } }) {
		const CtlResult result = ctl(args);
		EXPECT_EQ(result.exitCode, 5) << args[0] << " " << result.err;
		EXPECT_EQ(result.err,
			  "rbd-volumectl: " + args[0] + " nope: no volume named 'nope'\n");
		EXPECT_EQ(result.out, "");
	}
}

/* With --json a failure is one JSON line on stdout too, the message-form line on stderr. */
TEST_F(CliBus, AFailureUnderJsonIsOneJsonLine)
{
	const CtlResult result = ctl({ "status", "db", "nope", "--json" });
	EXPECT_EQ(result.exitCode, 5) << result.err;
	EXPECT_EQ(result.out, "{\"error\":{\"class\":\"not-found\",\"message\":"
			      "\"no volume named 'nope'\",\"exit\":5}}\n");
	EXPECT_EQ(result.err, "rbd-volumectl: status nope: no volume named 'nope'\n");
}

TEST_F(CliBus, AccessDeniedIsExitFour)
{
	daemon().plan("Down", "db",
		      ReplyPlan{ {},
				 "org.freedesktop.DBus.Error.AccessDenied",
				 "Down needs root",
				 false,
				 0 });
	const CtlResult result = ctl({ "down", "db" });
	EXPECT_EQ(result.exitCode, 4);
	EXPECT_EQ(result.err, "rbd-volumectl: down db: permission denied: must be root\n");
}

TEST_F(CliBus, UsageErrorsAreExitTwoWithoutTheBus)
{
	for (const std::vector<std::string> &args :
	     { std::vector<std::string>{ "up" }, std::vector<std::string>{ "up", "a", "no-dash" },
	       std::vector<std::string>{ "up", "not-a-name" },
	       std::vector<std::string>{ "down", "db", "--json" },
	       std::vector<std::string>{ "list", "db" }, std::vector<std::string>{ "reload", "db" },
	       std::vector<std::string>{ "status", "--timeout", "3" },
	       std::vector<std::string>{ "reconcile", "--no-wait" },
	       std::vector<std::string>{ "up", "db", "--timeout", "soon" } }) {
		const CtlResult result = ctl(args);
		EXPECT_EQ(result.exitCode, 2) << args[0] << " " << result.err;
		EXPECT_NE(result.err.find("Usage: rbd-volumectl " + args[0]), std::string::npos)
			<< result.err;
	}
	EXPECT_TRUE(daemon().calls().empty());
}

TEST_F(CliBus, HelpListsTheBusVerbsAndExitCodes)
{
	const CtlResult result = ctl({ "--help" });
	EXPECT_EQ(result.exitCode, 0);
	for (const char *text : { "  list ", "  status [NAME...]", "  up NAME...", "  down NAME...",
				  "  reconcile [NAME...]", "  reload ", "--no-wait",
				  "--timeout SECONDS", "  3  rbd-volumed cannot be reached",
				  "  4  permission denied", "  5  no such volume" })
		EXPECT_NE(result.out.find(text), std::string::npos) << text;
}

/* ---- no daemon ---- */

TEST_F(CliBus, NoOwnerOfTheNameIsExitThreeWithTheHint)
{
	std::string problem;
	const std::unique_ptr<PrivateBus> empty = PrivateBus::start(problem);
	ASSERT_TRUE(empty) << problem;
	for (const std::vector<std::string> &args :
	     { std::vector<std::string>{ "list" }, std::vector<std::string>{ "status", "db" },
	       std::vector<std::string>{ "up", "db" },
	       std::vector<std::string>{ "up", "db", "--progress" },
	       std::vector<std::string>{ "reload" } }) {
		const CtlResult result = runCtl(empty->address(), args);
		EXPECT_EQ(result.exitCode, 3) << args[0] << " " << result.err;
		EXPECT_NE(result.err.find(Hint), std::string::npos) << result.err;
		EXPECT_EQ(result.err.rfind("rbd-volumectl: " + args[0], 0), 0U) << result.err;
	}
}

TEST_F(CliBus, NoBusIsExitThreeWithTheHint)
{
	const CtlResult result = runCtl("unix:path=/nonexistent/rbdv-test/bus", { "list" });
	EXPECT_EQ(result.exitCode, 3) << result.err;
	EXPECT_EQ(result.err,
		  "rbd-volumectl: list: cannot reach rbd-volumed (cannot connect to the "
		  "system bus: No such file or directory); " +
			  std::string(Hint) + "\n");
}

} /* namespace */

} /* namespace rbdvolume::testing */
