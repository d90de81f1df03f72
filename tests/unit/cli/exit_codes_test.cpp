/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Bus errors to messages and exit codes, and the options of the bus verbs. */
#include "cli/exit_codes.hpp"

#include <cerrno>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "bus/errors.hpp"
#include "cli/verb_options.hpp"
#include "cli/verbs.hpp"

namespace rbdvolume::cli {

namespace {

using bus::errorFromBus;
using bus::errorFromErrno;
using bus::isDaemonGone;
using bus::noReplyWithin;

bool isDaemonUnreachable(const Error &error)
{
	return error.code == Errc::Unreachable;
}

constexpr std::string_view Hint = "is rbd-volumed running? (systemctl status rbd-volumed)";

TEST(BusErrors, DaemonErrorsKeepTheirMessage)
{
	const Error conflict = errorFromBus("org.rbdvolume1.Error.Conflict",
					    "/srv/db is mounted by another process");
	EXPECT_EQ(conflict.code, Errc::Conflict);
	EXPECT_EQ(conflict.message, "/srv/db is mounted by another process");
	EXPECT_EQ(exitCodeFor(conflict), ExitFailure);

	for (const char *name :
	     { "org.rbdvolume1.Error.SpecInvalid", "org.rbdvolume1.Error.Failed",
	       "org.rbdvolume1.Error.ShuttingDown", "org.freedesktop.DBus.Error.InvalidArgs" })
		EXPECT_EQ(exitCodeFor(errorFromBus(name, "why")), ExitFailure) << name;
}

/* No answer in time (the cluster at boot, a device): the unit starts again on 75. */
TEST(BusErrors, ATimeoutIsExitTryAgain)
{
	const Error timeout =
		errorFromBus("org.rbdvolume1.Error.Timeout",
			     "cannot reach the cluster at [v2:10.0.0.1:3300] within 10 s");
	EXPECT_EQ(timeout.code, Errc::Timeout);
	EXPECT_EQ(exitCodeFor(timeout), ExitTryAgain);
	EXPECT_EQ(ExitTryAgain, 75);
}

TEST(BusErrors, AnEmptyMessageHasAFallback)
{
	EXPECT_EQ(errorFromBus("org.rbdvolume1.Error.ShuttingDown", "").message,
		  "rbd-volumed is shutting down");
	EXPECT_EQ(errorFromBus("org.rbdvolume1.Error.SomethingNew", "").message,
		  "org.rbdvolume1.Error.SomethingNew");
	EXPECT_EQ(errorFromBus("org.example.Odd", "").message, "org.example.Odd");
	EXPECT_EQ(errorFromBus("org.example.Odd", "it broke").message, "org.example.Odd: it broke");
}

TEST(BusErrors, NoSuchVolumeIsExitFive)
{
	const Error error = errorFromBus("org.rbdvolume1.Error.NoSuchVolume", "no volume 'x'");
	EXPECT_EQ(error.message, "no volume 'x'");
	EXPECT_EQ(exitCodeFor(error), ExitNoVolume);
	EXPECT_EQ(ExitNoVolume, 5);
}

TEST(BusErrors, AccessDeniedIsExitFour)
{
	const Error error = errorFromBus("org.freedesktop.DBus.Error.AccessDenied",
					 "Rejected send message, 2 matched rules; ...");
	EXPECT_EQ(error.message, "permission denied: must be root");
	EXPECT_EQ(exitCodeFor(error), ExitDenied);
	EXPECT_EQ(ExitDenied, 4);
	EXPECT_EQ(exitCodeFor(errorFromErrno(-EACCES, "x")), ExitDenied);
}

TEST(BusErrors, NoDaemonIsExitThreeWithTheHint)
{
	for (const char *name :
	     { "org.freedesktop.DBus.Error.ServiceUnknown",
	       "org.freedesktop.DBus.Error.NameHasNoOwner",
	       "org.freedesktop.DBus.Error.Disconnected", "org.freedesktop.DBus.Error.NoServer" }) {
		const Error error = errorFromBus(name, "The name is not activatable");
		EXPECT_TRUE(isDaemonUnreachable(error)) << name;
		EXPECT_EQ(exitCodeFor(error), ExitNoDaemon) << name;
		EXPECT_NE(error.message.find(Hint), std::string::npos) << error.message;
	}
	for (const int err : { ECONNREFUSED, ENOENT, ECONNRESET, ENOTCONN })
		EXPECT_EQ(exitCodeFor(errorFromErrno(-err, "connect")), ExitNoDaemon) << err;
	EXPECT_EQ(ExitNoDaemon, 3);
}

TEST(BusErrors, OtherErrnosAreFailures)
{
	const Error error = errorFromErrno(-ENOMEM, "cannot build the call");
	EXPECT_FALSE(isDaemonUnreachable(error));
	EXPECT_EQ(exitCodeFor(error), ExitFailure);
	EXPECT_EQ(error.message.rfind("cannot build the call: ", 0), 0U) << error.message;
}

TEST(BusErrors, NoReplyIsADaemonThatLeftMidCall)
{
	const Error error =
		errorFromBus("org.freedesktop.DBus.Error.NoReply",
			     "Message recipient disconnected from message bus without replying");
	EXPECT_EQ(error.code, Errc::Disconnected);
	EXPECT_TRUE(error.uncertain());
	EXPECT_TRUE(isDaemonGone(error));
	EXPECT_EQ(exitCodeFor(error), ExitFailure);
	/* Only a peer that left makes a call worth asking again, not a timeout of its own. */
	EXPECT_FALSE(isDaemonGone(noReplyWithin(5, "db")));
}

Result<VerbOptions> parse(const std::vector<std::string_view> &args, unsigned allowed)
{
	return parseVerbOptions(args, allowed);
}

TEST(VerbOptions, FlagsAndOperands)
{
	const auto options = parse({ "db", "--no-wait", "-v", "--progress" },
				   OptionNoWait | OptionProgress | OptionVerbose);
	ASSERT_TRUE(options) << options.error().message;
	EXPECT_EQ(options->operands, std::vector<std::string>{ "db" });
	EXPECT_FALSE(options->wait);
	EXPECT_TRUE(options->progress);
	EXPECT_TRUE(options->verbose);
	EXPECT_FALSE(options->json);
	EXPECT_EQ(options->timeoutSeconds, 0U);
}

TEST(VerbOptions, Timeout)
{
	EXPECT_EQ(parse({ "--timeout", "30" }, OptionTimeout)->timeoutSeconds, 30U);
	EXPECT_EQ(parse({ "--timeout=0" }, OptionTimeout)->timeoutSeconds, 0U);
	for (const char *bad : { "-1", "1.5", "", "1s", "99999999999999999999" })
		EXPECT_FALSE(parse({ "--timeout", bad }, OptionTimeout)) << bad;
	EXPECT_FALSE(parse({ "--timeout" }, OptionTimeout));
}

TEST(VerbOptions, OptionsAVerbDoesNotTakeAreRefused)
{
	const auto options = parse({ "--json" }, OptionTimeout);
	ASSERT_FALSE(options);
	EXPECT_EQ(options.error().message, "unknown option '--json'");
	EXPECT_FALSE(parse({ "--timeout", "3" }, OptionJson));
	EXPECT_FALSE(parse({ "--bogus" }, ~0U));
}

TEST(VerbOptions, DoubleDashEndsOptions)
{
	const auto options = parse({ "--", "--json" }, OptionJson);
	ASSERT_TRUE(options);
	EXPECT_FALSE(options->json);
	EXPECT_EQ(options->operands, std::vector<std::string>{ "--json" });
}

TEST(VerbOptions, VolumeNames)
{
	VerbOptions options;
	EXPECT_EQ(*volumeNames(options, false), std::vector<std::string>{});
	EXPECT_FALSE(volumeNames(options, true));
	options.operands = { "db.1" };
	EXPECT_EQ(*volumeNames(options, true), std::vector<std::string>{ "db.1" });
	options.operands = { "a", "b" };
	EXPECT_EQ(*volumeNames(options, true), (std::vector<std::string>{ "a", "b" }));
	options.operands = { "a", "no-dash" };
	const auto invalid = volumeNames(options, true);
	ASSERT_FALSE(invalid);
	EXPECT_NE(invalid.error().message.find("'no-dash' is not a volume name"),
		  std::string::npos);
}

} /* namespace */

} /* namespace rbdvolume::cli */
