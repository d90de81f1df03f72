/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Reading rbd-volumed.toml: types, unknown keys, ranges, with the spec parser's diagnostics. */
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <exception>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/text_escape.hpp"
#include "config/daemon_config.hpp"
#include "config/duration_key.hpp"
#include "config/near_miss.hpp"
#include "config/quantities.hpp"
#include "config/spec_report.hpp"
#include "config/spec_values.hpp"
#include "config/toml_reader.hpp"

namespace rbdvolume {

namespace {

using std::chrono::milliseconds;

constexpr milliseconds OneMillisecond{ 1 };
constexpr milliseconds OneSecond = std::chrono::seconds(1);
constexpr milliseconds OneDay = std::chrono::hours(24);

constexpr int64_t MaxWorkers = 64;
constexpr int64_t MaxPassesPerTrigger = 10;

constexpr std::array<std::string_view, 3> RootKeys = { "daemon", "tools", "timeouts" };
constexpr std::array<std::string_view, 7> DaemonKeys = {
	"workers",     "resync-interval",    "backoff-initial",
	"backoff-max", "passes-per-trigger", "allowed-mount-roots",
	"log-level",
};

struct ToolKey {
	std::string_view key;
	std::string &(*member)(DaemonConfig &);
};

constexpr std::array<ToolKey, 8> ToolKeys = { {
	{ "mkfs-ext4", [](DaemonConfig &c) -> std::string & { return c.tools.mkfsExt4; } },
	{ "mkfs-xfs", [](DaemonConfig &c) -> std::string & { return c.tools.mkfsXfs; } },
	{ "e2fsck", [](DaemonConfig &c) -> std::string & { return c.tools.e2fsck; } },
	{ "resize2fs", [](DaemonConfig &c) -> std::string & { return c.tools.resize2fs; } },
	{ "xfs-growfs", [](DaemonConfig &c) -> std::string & { return c.tools.xfsGrowfs; } },
	{ "rbd", [](DaemonConfig &c) -> std::string & { return c.driverTools.rbd; } },
	{ "rbd-nbd", [](DaemonConfig &c) -> std::string & { return c.driverTools.rbdNbd; } },
	{ "systemctl", [](DaemonConfig &c) -> std::string & { return c.driverTools.systemctl; } },
} };

struct TimeoutKey {
	std::string_view key;
	milliseconds &(*member)(DaemonConfig &);
	bool wholeSeconds; /* handed to librados or the kernel, which take seconds */
};

constexpr std::array<TimeoutKey, 11> TimeoutKeys = { {
	{ "mkfs", [](DaemonConfig &c) -> milliseconds & { return c.tools.mkfsTimeout; }, false },
	{ "fsck", [](DaemonConfig &c) -> milliseconds & { return c.tools.fsckTimeout; }, false },
	{ "grow", [](DaemonConfig &c) -> milliseconds & { return c.tools.growTimeout; }, false },
	{ "map", [](DaemonConfig &c) -> milliseconds & { return c.driverTools.mapTimeout; },
	  false },
	{ "unmap", [](DaemonConfig &c) -> milliseconds & { return c.driverTools.unmapTimeout; },
	  false },
	{ "unit", [](DaemonConfig &c) -> milliseconds & { return c.unitTimeout; }, false },
	{ "device", [](DaemonConfig &c) -> milliseconds & { return c.tools.deviceTimeout; },
	  false },
	{ "ceph-connect", [](DaemonConfig &c) -> milliseconds & { return c.cephConnect; }, true },
	{ "ceph-operation", [](DaemonConfig &c) -> milliseconds & { return c.cephOperation; },
	  true },
	{ "io-stall", [](DaemonConfig &c) -> milliseconds & { return c.ioStall; }, false },
	{ "shutdown-io", [](DaemonConfig &c) -> milliseconds & { return c.shutdownIo; }, true },
} };

template<typename Key, size_t N>
constexpr std::array<std::string_view, N> namesOf(const std::array<Key, N> &keys)
{
	std::array<std::string_view, N> names{};
	for (size_t i = 0; i < N; ++i)
		names.at(i) = keys.at(i).key;
	return names;
}

constexpr std::array<std::string_view, 8> ToolNames = namesOf(ToolKeys);
constexpr std::array<std::string_view, 11> TimeoutNames = namesOf(TimeoutKeys);

struct Section {
	std::string_view name;
	std::span<const std::string_view> keys;
};

constexpr std::array<Section, 3> Sections = { {
	{ "daemon", DaemonKeys },
	{ "tools", ToolNames },
	{ "timeouts", TimeoutNames },
} };

bool contains(std::span<const std::string_view> keys, std::string_view key)
{
	return std::find(keys.begin(), keys.end(), key) != keys.end();
}

/*
 * unknownKeyProblem(), and when the table has no key close to it but another
 * table has exactly this key, that table: "did you mean 'map' in [timeouts]?".
 */
std::string unknownConfigKeyProblem(std::string_view key, std::string_view table,
				    std::span<const std::string_view> known)
{
	if (closestMatch(key, known).empty()) {
		for (const Section &section : Sections) {
			if (section.name != table && contains(section.keys, key))
				return "unknown key " + quoted(key) + "; did you mean " +
				       quoted(key) + " in [" + std::string(section.name) + "]?";
		}
	}
	return unknownKeyProblem(key, known);
}

/* A table of the file, whose unknown keys may be another table's. */
TableShape section(std::string_view name, std::span<const std::string_view> keys)
{
	return TableShape{ name.empty() ? "the file" : "[" + std::string(name) + "]", keys,
			   [name](std::string_view key, std::span<const std::string_view> known) {
				   return unknownConfigKeyProblem(key, name, known);
			   } };
}

/* An integer from 1 to `max`; out of range is reported and read as absent. */
std::optional<unsigned> readCount(TomlTable &reader, std::string_view key, int64_t max)
{
	const std::optional<int64_t> value = reader.readInteger(key);
	if (!value)
		return std::nullopt;
	if (*value < 1 || *value > max) {
		reader.check(key, "expected an integer from 1 to " + std::to_string(max) +
					  ", found " + std::to_string(*value));
		return std::nullopt;
	}
	return static_cast<unsigned>(*value);
}

/*
 * backoff-max >= backoff-initial, unless one of them is already wrong. The
 * problem is the value the file sets: backoff-max, else backoff-initial.
 */
void checkBackoff(TomlTable &reader, const SpecReport &report,
		  const std::optional<Duration> &initial, const std::optional<Duration> &max,
		  const DaemonConfig &config)
{
	if (report.failed(reader.field("backoff-initial")) ||
	    report.failed(reader.field("backoff-max")) ||
	    config.backoffMax >= config.backoffInitial)
		return;
	const auto named = [](const std::optional<Duration> &set, milliseconds value) {
		return set ? quoted(set->text) : quoted(formatDuration(value)) + ", the default";
	};
	if (max)
		reader.check("backoff-max", "expected at least backoff-initial (" +
						    named(initial, config.backoffInitial) +
						    "), found " + quoted(max->text));
	else if (initial)
		reader.check("backoff-initial", "expected at most backoff-max (" +
							named(max, config.backoffMax) +
							"), found " + quoted(initial->text));
}

void readMountRoots(TomlTable &reader, std::vector<std::string> &out)
{
	constexpr std::string_view Key = "allowed-mount-roots";
	const std::optional<std::vector<StringItem>> items = reader.readStrings(Key);
	if (!items)
		return;
	if (items->empty() && !reader.failed(Key)) {
		reader.check(Key, "expected at least one path, found an empty array");
		return;
	}
	std::vector<std::string> roots;
	for (const StringItem &item : *items) {
		std::optional<std::string> problem = pathProblem(item.value, false);
		if (!problem && std::find(roots.begin(), roots.end(), item.value) != roots.end())
			problem = "expected each path once, found " + quoted(item.value) + " again";
		reader.check(item, problem);
		if (!problem)
			roots.push_back(item.value);
	}
	if (!reader.failed(Key))
		out = std::move(roots);
}

void readDaemon(TomlTable reader, SpecReport &report, DaemonConfig &config)
{
	if (const std::optional<unsigned> workers = readCount(reader, "workers", MaxWorkers))
		config.workers = *workers;
	if (const std::optional<Duration> interval =
		    readBoundedDuration(reader, "resync-interval", OneSecond, OneDay))
		config.resyncInterval = interval->value;
	const std::optional<Duration> initial =
		readBoundedDuration(reader, "backoff-initial", OneMillisecond, OneDay);
	if (initial)
		config.backoffInitial = initial->value;
	const std::optional<Duration> max =
		readBoundedDuration(reader, "backoff-max", OneMillisecond, OneDay);
	if (max)
		config.backoffMax = max->value;
	checkBackoff(reader, report, initial, max, config);
	if (const std::optional<unsigned> passes =
		    readCount(reader, "passes-per-trigger", MaxPassesPerTrigger))
		config.maxPassesPerTrigger = *passes;
	readMountRoots(reader, config.allowedMountRoots);
	if (const std::optional<std::string> name = reader.readString("log-level")) {
		if (const std::optional<log::Level> level = log::parseLevel(*name))
			config.logLevel = *level;
		else
			reader.check(
				"log-level",
				"expected one of emerg, alert, crit, err, warning, notice, info, "
				"debug, found " +
					quoted(*name));
	}
}

void readTools(TomlTable reader, DaemonConfig &config)
{
	for (const ToolKey &tool : ToolKeys) {
		std::optional<std::string> path = reader.readString(tool.key);
		if (!path)
			continue;
		if (const auto problem = pathProblem(*path, false)) {
			reader.check(tool.key, problem);
			continue;
		}
		tool.member(config) = std::move(*path);
	}
}

void readTimeouts(TomlTable reader, DaemonConfig &config)
{
	for (const TimeoutKey &timeout : TimeoutKeys) {
		const std::optional<Duration> duration =
			readBoundedDuration(reader, timeout.key, OneMillisecond, OneDay);
		if (!duration)
			continue;
		if (timeout.wholeSeconds && duration->value % OneSecond != milliseconds::zero()) {
			const std::string taker =
				timeout.key == "shutdown-io" ? "the kernel" : "Ceph";
			reader.check(timeout.key,
				     "expected whole seconds (" + taker +
					     " takes this timeout in seconds), found " +
					     quoted(duration->text));
			continue;
		}
		timeout.member(config) = duration->value;
	}
}

void readRoot(TomlTable reader, SpecReport &report, DaemonConfig &config)
{
	if (auto daemon = reader.readTable("daemon", section("daemon", DaemonKeys)))
		readDaemon(std::move(*daemon), report, config);
	if (auto tools = reader.readTable("tools", section("tools", ToolNames)))
		readTools(std::move(*tools), config);
	if (auto timeouts = reader.readTable("timeouts", section("timeouts", TimeoutNames)))
		readTimeouts(std::move(*timeouts), config);
}

DaemonConfigOutcome parseChecked(std::string_view text, const std::string &path)
{
	SpecReport report(path);
	DaemonConfigOutcome outcome;
	if (const auto file = TomlFile::parse(text, path, report))
		readRoot(file->root(section("", RootKeys), report), report, outcome.config);
	outcome.diagnostics = report.take();
	return outcome;
}

} /* namespace */

DaemonConfigOutcome parseDaemonConfig(std::string_view text, const std::string &path)
{
	DaemonConfigOutcome outcome;
	const std::optional<std::string> failure =
		readWithoutThrowing([&] { outcome = parseChecked(text, path); });
	if (failure) {
		outcome = DaemonConfigOutcome{};
		outcome.diagnostics.push_back(Diagnostic{ path, 0, 0, {}, *failure });
	}
	return outcome;
}

} /* namespace rbdvolume */
