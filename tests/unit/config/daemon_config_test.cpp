/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* parseDaemonConfig/loadDaemonConfig and parseDuration: defaults, every key, every refusal. */
#include "config/daemon_config.hpp"

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <sstream>
#include <string>
#include <string_view>
#include <unistd.h>
#include <vector>

#include <gtest/gtest.h>

#include "config/quantities.hpp"
#include "read_text.hpp"
#include "spec_test_support.hpp"

namespace rbdvolume {

namespace {

using std::chrono::milliseconds;

constexpr std::string_view File = "/etc/rbd-volume/rbd-volumed.toml";

std::vector<std::string> messages(const DaemonConfigOutcome &outcome)
{
	std::vector<std::string> lines;
	lines.reserve(outcome.diagnostics.size());
	for (const Diagnostic &diagnostic : outcome.diagnostics)
		lines.push_back(diagnostic.format());
	return lines;
}

DaemonConfig parseValid(std::string_view text)
{
	DaemonConfigOutcome outcome = parseDaemonConfig(text, std::string(File));
	for (const Diagnostic &diagnostic : outcome.diagnostics)
		ADD_FAILURE() << diagnostic.format();
	return std::move(outcome.config);
}

/* conf/rbd-volumed.toml: RBDV_DAEMON_CONFIG (set by meson), else next to the test data. */
std::string shippedConfigPath()
{
	const char *path = std::getenv("RBDV_DAEMON_CONFIG"); /* NOLINT(concurrency-mt-unsafe) */
	if (path != nullptr && *path != '\0')
		return path;
	const std::filesystem::path fallback = std::filesystem::path(test::testDataDir()) / ".." /
					       ".." / "conf" / "rbd-volumed.toml";
	return fallback.lexically_normal().string();
}

/* The shipped file's convention: "#key = value" is a setting, "# text" is prose. */
std::string uncommented(const std::string &text)
{
	std::istringstream in(text);
	std::string out;
	std::string line;
	while (std::getline(in, line)) {
		if (line.size() > 1 && line[0] == '#' && line[1] != ' ')
			line.erase(0, 1);
		out += line + '\n';
	}
	return out;
}

/* A file removed when the test ends. */
class TempFile
{
public:
	explicit TempFile(const std::string &text)
	{
		std::string pattern =
			(std::filesystem::temp_directory_path() / "rbdv-config-XXXXXX").string();
		const int fd = ::mkstemp(pattern.data());
		EXPECT_GE(fd, 0);
		if (fd >= 0)
			::close(fd);
		path_ = pattern;
		std::ofstream(path_, std::ios::binary) << text;
	}
	~TempFile() { std::filesystem::remove(path_); }
	TempFile(const TempFile &) = delete;
	TempFile &operator=(const TempFile &) = delete;
	TempFile(TempFile &&) = delete;
	TempFile &operator=(TempFile &&) = delete;

	const std::string &path() const { return path_; }

private:
	std::string path_;
};

/* One invalid file and exactly what is reported about it. */
struct InvalidCase {
	const char *name;
	const char *text;
	std::vector<std::string> expected; /* without the "FILE:" prefix */
};

/* How gtest names a case in its output. */
std::ostream &operator<<(std::ostream &out, const InvalidCase &invalid)
{
	return out << invalid.name;
}

class DaemonConfigInvalid : public ::testing::TestWithParam<InvalidCase>
{
};

} /* namespace */

TEST(DaemonConfig, DefaultsAreTheDocumentedOnes)
{
	const DaemonConfig config;
	EXPECT_EQ(config.workers, 16U);
	EXPECT_EQ(config.resyncInterval, milliseconds(60000));
	EXPECT_EQ(config.backoffInitial, milliseconds(500));
	EXPECT_EQ(config.backoffMax, milliseconds(120000));
	EXPECT_EQ(config.maxPassesPerTrigger, 3U);
	EXPECT_EQ(config.allowedMountRoots,
		  (std::vector<std::string>{ "/run/rbd-volume", "/mnt", "/media", "/srv",
					     "/var/lib/rbd-volume", "/var/lib/kubelet" }));
	EXPECT_EQ(config.tools.mkfsExt4, "/usr/sbin/mkfs.ext4");
	EXPECT_EQ(config.tools.mkfsXfs, "/usr/sbin/mkfs.xfs");
	EXPECT_EQ(config.tools.e2fsck, "/usr/sbin/e2fsck");
	EXPECT_EQ(config.tools.resize2fs, "/usr/sbin/resize2fs");
	EXPECT_EQ(config.tools.xfsGrowfs, "/usr/sbin/xfs_growfs");
	EXPECT_EQ(config.driverTools.rbd, "/usr/bin/rbd");
	EXPECT_EQ(config.driverTools.rbdNbd, "/usr/bin/rbd-nbd");
	EXPECT_EQ(config.driverTools.systemctl, "/usr/bin/systemctl");
	EXPECT_EQ(config.tools.mkfsTimeout, milliseconds(600000));
	EXPECT_EQ(config.tools.fsckTimeout, milliseconds(600000));
	EXPECT_EQ(config.tools.growTimeout, milliseconds(600000));
	EXPECT_EQ(config.driverTools.mapTimeout, milliseconds(120000));
	EXPECT_EQ(config.driverTools.unmapTimeout, milliseconds(90000));
	EXPECT_EQ(config.unitTimeout, milliseconds(90000));
	EXPECT_EQ(config.cephConnect, milliseconds(10000));
	EXPECT_EQ(config.cephOperation, milliseconds(30000));
	EXPECT_EQ(config.ioStall, milliseconds(10000));
	EXPECT_EQ(config.shutdownIo, milliseconds(30000));
}

TEST(DaemonConfig, MissingFileGivesTheDefaults)
{
	const DaemonConfigOutcome outcome = loadDaemonConfig("/nonexistent/dir/rbd-volumed.toml");
	EXPECT_TRUE(outcome.ok());
	EXPECT_EQ(outcome.config, DaemonConfig{});
}

TEST(DaemonConfig, EmptyFileGivesTheDefaults)
{
	EXPECT_EQ(parseValid(""), DaemonConfig{});
	EXPECT_EQ(parseValid("# nothing set\n\n[daemon]\n[tools]\n[timeouts]\n"), DaemonConfig{});
}

TEST(DaemonConfig, EveryKeyIsRead)
{
	const DaemonConfig config = parseValid(R"([daemon]
workers = 16
resync-interval = "5min"
backoff-initial = "1s"
backoff-max = "1h"
passes-per-trigger = 5
allowed-mount-roots = ["/data", "/run/rbd-volume"]

[tools]
mkfs-ext4 = "/opt/e2fs/sbin/mkfs.ext4"
mkfs-xfs = "/opt/xfs/sbin/mkfs.xfs"
e2fsck = "/opt/e2fs/sbin/e2fsck"
resize2fs = "/opt/e2fs/sbin/resize2fs"
xfs-growfs = "/opt/xfs/sbin/xfs_growfs"
rbd = "/opt/ceph/bin/rbd"
rbd-nbd = "/opt/ceph/bin/rbd-nbd"
systemctl = "/bin/systemctl"

[timeouts]
mkfs = "20min"
fsck = "1h"
grow = "90s"
map = "45s"
unmap = "1500ms"
unit = "2min"
device = "45s"
ceph-connect = "5s"
ceph-operation = "1min"
io-stall = "20s"
shutdown-io = "1min"
)");
	EXPECT_EQ(config.workers, 16U);
	EXPECT_EQ(config.resyncInterval, std::chrono::minutes(5));
	EXPECT_EQ(config.backoffInitial, std::chrono::seconds(1));
	EXPECT_EQ(config.backoffMax, std::chrono::hours(1));
	EXPECT_EQ(config.maxPassesPerTrigger, 5U);
	EXPECT_EQ(config.allowedMountRoots,
		  (std::vector<std::string>{ "/data", "/run/rbd-volume" }));
	EXPECT_EQ(config.tools.mkfsExt4, "/opt/e2fs/sbin/mkfs.ext4");
	EXPECT_EQ(config.tools.mkfsXfs, "/opt/xfs/sbin/mkfs.xfs");
	EXPECT_EQ(config.tools.e2fsck, "/opt/e2fs/sbin/e2fsck");
	EXPECT_EQ(config.tools.resize2fs, "/opt/e2fs/sbin/resize2fs");
	EXPECT_EQ(config.tools.xfsGrowfs, "/opt/xfs/sbin/xfs_growfs");
	EXPECT_EQ(config.tools.deviceTimeout, std::chrono::seconds(45));
	EXPECT_EQ(config.driverTools.rbd, "/opt/ceph/bin/rbd");
	EXPECT_EQ(config.driverTools.rbdNbd, "/opt/ceph/bin/rbd-nbd");
	EXPECT_EQ(config.driverTools.systemctl, "/bin/systemctl");
	EXPECT_EQ(config.tools.mkfsTimeout, std::chrono::minutes(20));
	EXPECT_EQ(config.tools.fsckTimeout, std::chrono::hours(1));
	EXPECT_EQ(config.tools.growTimeout, std::chrono::seconds(90));
	EXPECT_EQ(config.driverTools.mapTimeout, std::chrono::seconds(45));
	EXPECT_EQ(config.driverTools.unmapTimeout, milliseconds(1500));
	EXPECT_EQ(config.unitTimeout, std::chrono::minutes(2));
	EXPECT_EQ(config.cephConnect, std::chrono::seconds(5));
	EXPECT_EQ(config.cephOperation, std::chrono::minutes(1));
	EXPECT_EQ(config.ioStall, std::chrono::seconds(20));
	EXPECT_EQ(config.shutdownIo, std::chrono::minutes(1));
}

TEST(DaemonConfig, KeysLeftOutKeepTheirDefaults)
{
	DaemonConfig expected;
	expected.workers = 2;
	expected.driverTools.mapTimeout = std::chrono::seconds(10);
	EXPECT_EQ(parseValid("[daemon]\nworkers = 2\n[timeouts]\nmap = \"10s\"\n"), expected);
}

TEST(DaemonConfig, InlineTablesAndDottedKeysReadLikeHeaders)
{
	DaemonConfig expected;
	expected.workers = 2;
	expected.driverTools.rbd = "/opt/rbd";
	expected.driverTools.mapTimeout = std::chrono::seconds(10);
	EXPECT_EQ(parseValid("daemon = { workers = 2 }\ntools.rbd = \"/opt/rbd\"\n"
			     "timeouts.map = \"10s\"\n"),
		  expected);
}

TEST(DaemonConfig, BoundsAreInclusive)
{
	DaemonConfig low = parseValid("[daemon]\nworkers = 1\npasses-per-trigger = 1\n"
				      "resync-interval = \"1s\"\nbackoff-initial = \"1ms\"\n"
				      "backoff-max = \"1ms\"\n[timeouts]\nmap = \"1ms\"\n"
				      "ceph-connect = \"1s\"\n");
	EXPECT_EQ(low.workers, 1U);
	EXPECT_EQ(low.maxPassesPerTrigger, 1U);
	EXPECT_EQ(low.resyncInterval, std::chrono::seconds(1));
	EXPECT_EQ(low.backoffInitial, milliseconds(1));
	EXPECT_EQ(low.backoffMax, milliseconds(1));
	EXPECT_EQ(low.driverTools.mapTimeout, milliseconds(1));
	EXPECT_EQ(low.cephConnect, std::chrono::seconds(1));

	DaemonConfig high = parseValid("[daemon]\nworkers = 64\npasses-per-trigger = 10\n"
				       "resync-interval = \"24h\"\nbackoff-max = \"1440min\"\n"
				       "[timeouts]\nmkfs = \"86400000ms\"\nceph-operation = "
				       "\"86400s\"\n");
	EXPECT_EQ(high.workers, 64U);
	EXPECT_EQ(high.maxPassesPerTrigger, 10U);
	EXPECT_EQ(high.resyncInterval, std::chrono::hours(24));
	EXPECT_EQ(high.backoffMax, std::chrono::hours(24));
	EXPECT_EQ(high.tools.mkfsTimeout, std::chrono::hours(24));
	EXPECT_EQ(high.cephOperation, std::chrono::hours(24));
}

TEST(DaemonConfig, ShippedFileChangesNothing)
{
	const std::string path = shippedConfigPath();
	ASSERT_TRUE(std::filesystem::is_regular_file(path)) << path;
	const DaemonConfigOutcome outcome = loadDaemonConfig(path);
	for (const Diagnostic &diagnostic : outcome.diagnostics)
		ADD_FAILURE() << diagnostic.format();
	EXPECT_EQ(outcome.config, DaemonConfig{});
}

TEST(DaemonConfig, ShippedFileUncommentedSetsEveryKeyToItsDefault)
{
	const std::string text = uncommented(testing::readText(shippedConfigPath()));
	for (const std::string_view line : { "[daemon]",
					     "workers = ",
					     "resync-interval = ",
					     "backoff-initial = ",
					     "backoff-max = ",
					     "passes-per-trigger = ",
					     "allowed-mount-roots = ",
					     "[tools]",
					     "mkfs-ext4 = ",
					     "mkfs-xfs = ",
					     "e2fsck = ",
					     "resize2fs = ",
					     "xfs-growfs = ",
					     "rbd = ",
					     "rbd-nbd = ",
					     "systemctl = ",
					     "[timeouts]",
					     "mkfs = ",
					     "fsck = ",
					     "grow = ",
					     "map = ",
					     "unmap = ",
					     "unit = ",
					     "ceph-connect = ",
					     "ceph-operation = " })
		EXPECT_NE(text.find("\n" + std::string(line)), std::string::npos)
			<< "not set in the uncommented file: " << line;
	EXPECT_EQ(parseValid(text), DaemonConfig{});
}

TEST(DaemonConfig, LoadReportsTheFileItRead)
{
	const TempFile file("[daemon]\nworkers = 0\n");
	EXPECT_EQ(messages(loadDaemonConfig(file.path())),
		  std::vector<std::string>{ file.path() +
					    ":2:11: daemon.workers: expected an integer from 1 "
					    "to 64, found 0" });
}

TEST(DaemonConfig, DirectoryIsAnUnreadableFile)
{
	const std::string dir = test::testDataDir();
	EXPECT_EQ(messages(loadDaemonConfig(dir)),
		  std::vector<std::string>{ dir + ": expected a file, found a directory" });
}

TEST(DaemonConfig, HugeFileIsRefused)
{
	const TempFile file(std::string(size_t{ 1024 } * 1024 + 1, '#'));
	EXPECT_EQ(messages(loadDaemonConfig(file.path())),
		  std::vector<std::string>{ file.path() + ": expected a file of at most 1 MiB, "
							  "found a larger file" });
}

TEST(DaemonConfig, GarbageNeverThrows)
{
	const std::vector<std::string> inputs = {
		std::string("\0\0\0", 3),
		"\xff\xfe\x80",
		"[[[[[[[[[[",
		"daemon = [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[",
		"daemon = { daemon = { daemon = 1 } }",
		"[[daemon]]\nworkers = 1\n",
		"[daemon]\nworkers = -9223372036854775808\n",
		"[timeouts]\nmap = \"9223372036854775807ms\"\n",
		"[daemon]\nallowed-mount-roots = [[], {}, 1.5, \"\"]\n",
	};
	for (const std::string &input : inputs) {
		SCOPED_TRACE(input);
		const DaemonConfigOutcome outcome = parseDaemonConfig(input, std::string(File));
		EXPECT_FALSE(outcome.ok());
		for (const Diagnostic &diagnostic : outcome.diagnostics)
			EXPECT_FALSE(diagnostic.message.empty());
	}
}

TEST(DaemonConfig, OneMistakeGivesOneDiagnostic)
{
	/* A bad backoff-initial is not also "greater than backoff-max". */
	const DaemonConfigOutcome outcome =
		parseDaemonConfig("[daemon]\nbackoff-initial = \"3 days\"\nbackoff-max = \"1s\"\n",
				  std::string(File));
	ASSERT_EQ(outcome.diagnostics.size(), 1U);
	EXPECT_EQ(outcome.diagnostics[0].field, "daemon.backoff-initial");
	EXPECT_FALSE(outcome.ok());
}

TEST_P(DaemonConfigInvalid, IsReportedExactly)
{
	const InvalidCase &invalid = GetParam();
	const DaemonConfigOutcome outcome = parseDaemonConfig(invalid.text, std::string(File));
	std::vector<std::string> expected;
	expected.reserve(invalid.expected.size());
	for (const std::string &line : invalid.expected)
		expected.push_back(std::string(File) + ":" + line);
	EXPECT_EQ(messages(outcome), expected);
	EXPECT_FALSE(outcome.ok());
}

INSTANTIATE_TEST_SUITE_P(
	Cases, DaemonConfigInvalid,
	::testing::Values(
		InvalidCase{ "DurationWithUnknownUnit",
			     "[timeouts]\nmkfs = \"10sec\"\n",
			     { "2:8: timeouts.mkfs: expected a unit of 'ms', 's', 'min' or 'h', "
			       "found 'sec' in '10sec'" } },
		InvalidCase{ "DurationWithASpace",
			     "[timeouts]\nmkfs = \"10 min\"\n",
			     { "2:8: timeouts.mkfs: expected no space between the number and the "
			       "unit, found '10 min'" } },
		InvalidCase{ "DurationWithDecimals",
			     "[timeouts]\ngrow = \"1.5s\"\n",
			     { "2:8: timeouts.grow: expected a whole number of units (no "
			       "decimals; '1500ms', not '1.5s'), found '1.5s'" } },
		InvalidCase{ "DurationNotANumber",
			     "[daemon]\nresync-interval = \"soon\"\n",
			     { "2:19: daemon.resync-interval: expected a duration such as "
			       "'500ms', '30s', '2min' or '1h', found 'soon'" } },
		InvalidCase{ "DurationTooLargeForAnyone",
			     "[timeouts]\nunmap = \"99999999999999999999h\"\n",
			     { "2:9: timeouts.unmap: expected a duration below 292 million "
			       "years, found '99999999999999999999h'" } },
		InvalidCase{ "IntegerWithoutAUnit",
			     "[timeouts]\nmap = 30\n",
			     { "2:7: timeouts.map: expected a duration string with a unit, such "
			       "as '30s', found the integer 30" } },
		InvalidCase{ "StringWithoutAUnit",
			     "[timeouts]\nunmap = \"30\"\n",
			     { "2:9: timeouts.unmap: expected a duration with a unit (ms, s, "
			       "min, h), such as '30s', found '30'" } },
		InvalidCase{ "ZeroTimeout",
			     "[timeouts]\nunit = \"0s\"\n",
			     { "2:8: timeouts.unit: expected a duration greater than 0, found "
			       "'0s'" } },
		InvalidCase{ "TimeoutAboveOneDay",
			     "[timeouts]\nfsck = \"25h\"\n",
			     { "2:8: timeouts.fsck: expected at most 24h, found "
			       "'25h'" } },
		InvalidCase{ "CephTimeoutInMilliseconds",
			     "[timeouts]\nceph-connect = \"1500ms\"\n",
			     { "2:16: timeouts.ceph-connect: expected whole seconds (Ceph takes "
			       "this timeout in seconds), found '1500ms'" } },
		InvalidCase{ "ResyncBelowOneSecond",
			     "[daemon]\nresync-interval = \"500ms\"\n",
			     { "2:19: daemon.resync-interval: expected at least 1s, found "
			       "'500ms'" } },
		InvalidCase{ "NoWorkers",
			     "[daemon]\nworkers = 0\n",
			     { "2:11: daemon.workers: expected an integer from 1 to 64, found "
			       "0" } },
		InvalidCase{ "TooManyWorkers",
			     "[daemon]\nworkers = 65\n",
			     { "2:11: daemon.workers: expected an integer from 1 to 64, found "
			       "65" } },
		InvalidCase{ "TooManyPasses",
			     "[daemon]\npasses-per-trigger = 11\n",
			     { "2:22: daemon.passes-per-trigger: expected an integer from 1 to "
			       "10, found 11" } },
		InvalidCase{ "BackoffMaxBelowInitial",
			     "[daemon]\nbackoff-initial = \"5s\"\nbackoff-max = \"1s\"\n",
			     { "3:15: daemon.backoff-max: expected at least backoff-initial "
			       "('5s'), found '1s'" } },
		InvalidCase{ "BackoffMaxBelowTheDefaultInitial",
			     "[daemon]\nbackoff-max = \"100ms\"\n",
			     { "2:15: daemon.backoff-max: expected at least backoff-initial "
			       "('500ms', the default), found '100ms'" } },
		InvalidCase{ "BackoffInitialAboveTheDefaultMax",
			     "[daemon]\nbackoff-initial = \"5min\"\n",
			     { "2:19: daemon.backoff-initial: expected at most backoff-max "
			       "('2min', the default), found '5min'" } },
		InvalidCase{ "RelativeToolPath",
			     "[tools]\nrbd = \"bin/rbd\"\n",
			     { "2:7: tools.rbd: expected an absolute path, found 'bin/rbd'" } },
		InvalidCase{ "ToolPathNotNormal",
			     "[tools]\nmkfs-xfs = \"/usr/sbin/../sbin/mkfs.xfs\"\n",
			     { "2:12: tools.mkfs-xfs: expected a normal path (no '.' or '..' "
			       "component, '//' or trailing '/'), found "
			       "'/usr/sbin/../sbin/mkfs.xfs'" } },
		InvalidCase{ "NoMountRoots",
			     "[daemon]\nallowed-mount-roots = []\n",
			     { "2:23: daemon.allowed-mount-roots: expected at least one path, "
			       "found an empty array" } },
		InvalidCase{ "RootAsMountRoot",
			     "[daemon]\nallowed-mount-roots = [\"/srv\", \"/\"]\n",
			     { "2:32: daemon.allowed-mount-roots[1]: expected a path below '/', "
			       "found '/'" } },
		InvalidCase{ "RelativeMountRoot",
			     "[daemon]\nallowed-mount-roots = [\"mnt\"]\n",
			     { "2:24: daemon.allowed-mount-roots[0]: expected an absolute path, "
			       "found 'mnt'" } },
		InvalidCase{ "MountRootTwice",
			     "[daemon]\nallowed-mount-roots = [\"/mnt\", \"/mnt\"]\n",
			     { "2:32: daemon.allowed-mount-roots[1]: expected each path once, "
			       "found '/mnt' again" } },
		InvalidCase{ "MountRootsNotAnArray",
			     "[daemon]\nallowed-mount-roots = \"/mnt\"\n",
			     { "2:23: daemon.allowed-mount-roots: expected an array of strings, "
			       "found a string" } },
		InvalidCase{ "UnknownKeyWithAHint",
			     "[daemon]\nworker = 4\n",
			     { "2:1: daemon.worker: unknown key 'worker'; did you mean "
			       "'workers'?" } },
		InvalidCase{ "UnknownKeyWithoutAHint",
			     "[tools]\nmount = \"/bin/mount\"\n",
			     { "2:1: tools.mount: unknown key 'mount'; expected one of "
			       "'mkfs-ext4', 'mkfs-xfs', 'e2fsck', 'resize2fs', 'xfs-growfs', "
			       "'rbd', 'rbd-nbd', 'systemctl'" } },
		InvalidCase{ "KeyInTheWrongTable",
			     "[daemon]\nmap = \"1min\"\n",
			     { "2:1: daemon.map: unknown key 'map'; did you mean 'map' in "
			       "[timeouts]?" } },
		InvalidCase{ "KeyOutsideAnyTable",
			     "workers = 4\n",
			     { "1:1: workers: unknown key 'workers'; did you mean 'workers' in "
			       "[daemon]?" } },
		InvalidCase{ "UnknownTableWithAHint",
			     "[timeout]\nmap = \"1min\"\n",
			     { "1:2: timeout: unknown key 'timeout'; did you mean "
			       "'timeouts'?" } },
		InvalidCase{ "UnknownTable",
			     "[logging]\nlevel = \"debug\"\n",
			     { "1:2: logging: unknown key 'logging'; expected one of 'daemon', "
			       "'tools', 'timeouts'" } },
		InvalidCase{ "WrongTypes",
			     "daemon = 1\n[tools]\ne2fsck = 1\n[timeouts]\nmkfs = true\n",
			     { "1:10: daemon: expected a table, found an integer",
			       "3:10: tools.e2fsck: expected a string, found an integer",
			       "5:8: timeouts.mkfs: expected a duration string such as '30s', "
			       "found a boolean" } },
		InvalidCase{ "WorkersAsAString",
			     "[daemon]\nworkers = \"4\"\n",
			     { "2:11: daemon.workers: expected an integer, found a string" } },
		InvalidCase{ "MountRootOfTheWrongType",
			     "[daemon]\nallowed-mount-roots = [\"/mnt\", 1]\n",
			     { "2:32: daemon.allowed-mount-roots[1]: expected a string, found an "
			       "integer" } },
		InvalidCase{ "SyntaxError",
			     "[daemon]\nworkers = 4\nresync-interval =\n",
			     { "3:18: invalid TOML: Error while parsing key-value pair: expected "
			       "value, saw '\\n'" } },
		InvalidCase{ "NonAsciiOutsideAString",
			     "[daemon]\nworkers\xc2\xa0= 4\n",
			     { "2:8: invalid TOML: unexpected character outside a string or "
			       "comment: U+00A0" } },
		InvalidCase{
			"SeveralErrorsInFileOrder",
			"[timeouts]\nmap = 30\n[daemon]\nworkers = 0\nbackoff-initial = \"5s\"\n"
			"backoff-max = \"1s\"\nallowed-mount-roots = [\"/\"]\n[tools]\nrbd = "
			"\"rbd\"\n[extra]\n",
			/* NOLINTNEXTLINE(bugprone-suspicious-missing-comma): long lines, split */
			{ "2:7: timeouts.map: expected a duration string with a unit, such as "
			  "'30s', found the integer 30",
			  "4:11: daemon.workers: expected an integer from 1 to 64, found 0",
			  "6:15: daemon.backoff-max: expected at least backoff-initial ('5s'), "
			  "found '1s'",
			  "7:24: daemon.allowed-mount-roots[0]: expected a path below '/', found "
			  "'/'",
			  "9:7: tools.rbd: expected an absolute path, found 'rbd'",
			  "10:2: extra: unknown key 'extra'; expected one of 'daemon', 'tools', "
			  "'timeouts'" } }),
	[](const ::testing::TestParamInfo<InvalidCase> &param) {
		return std::string(param.param.name);
	});

TEST(Duration, UnitsAreMillisecondsSecondsMinutesHours)
{
	EXPECT_EQ(parseDuration("0ms").value(), milliseconds(0));
	EXPECT_EQ(parseDuration("500ms").value(), milliseconds(500));
	EXPECT_EQ(parseDuration("30s").value(), std::chrono::seconds(30));
	EXPECT_EQ(parseDuration("2min").value(), std::chrono::minutes(2));
	EXPECT_EQ(parseDuration("1h").value(), std::chrono::hours(1));
	EXPECT_EQ(parseDuration("007s").value(), std::chrono::seconds(7));
	EXPECT_EQ(parseDuration("9223372036854775807ms").value(),
		  milliseconds(9223372036854775807));
}

TEST(Duration, EverythingElseIsRefused)
{
	for (const std::string_view text : { "",
					     "s",
					     "30",
					     "-5s",
					     "+5s",
					     " 5s",
					     "5s ",
					     "5 s",
					     "1.5s",
					     "1,5s",
					     "5m",
					     "5sec",
					     "5S",
					     "5H",
					     "1d",
					     "5mins",
					     "5s5",
					     "5ms5s",
					     "9223372036854775808ms",
					     "2562047788016h" }) {
		SCOPED_TRACE(text);
		const Result<milliseconds> duration = parseDuration(text);
		ASSERT_FALSE(duration.has_value());
		EXPECT_EQ(duration.error().code, Errc::InvalidArgument);
		EXPECT_FALSE(duration.error().message.empty());
	}
}

TEST(Duration, FormatPicksTheLargestExactUnitAndRoundTrips)
{
	EXPECT_EQ(formatDuration(milliseconds(0)), "0s");
	EXPECT_EQ(formatDuration(milliseconds(500)), "500ms");
	EXPECT_EQ(formatDuration(milliseconds(1500)), "1500ms");
	EXPECT_EQ(formatDuration(std::chrono::seconds(90)), "90s");
	EXPECT_EQ(formatDuration(std::chrono::seconds(120)), "2min");
	EXPECT_EQ(formatDuration(std::chrono::minutes(90)), "90min");
	EXPECT_EQ(formatDuration(std::chrono::hours(24)), "24h");
	for (const milliseconds value : { milliseconds(1), milliseconds(999), milliseconds(60000),
					  milliseconds(3600001), milliseconds(86400000) })
		EXPECT_EQ(parseDuration(formatDuration(value)).value(), value);
}

} /* namespace rbdvolume */
