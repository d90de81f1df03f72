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

#include <toml++/toml.h>

#include "config/daemon_config.hpp"
#include "config/spec_report.hpp"
#include "config/spec_values.hpp"
#include "config/toml_guard.hpp"
#include "config/toml_nodes.hpp"

namespace rbdvolume {

namespace {

using std::chrono::milliseconds;

constexpr milliseconds OneMillisecond{ 1 };
constexpr milliseconds OneSecond = std::chrono::seconds(1);
constexpr milliseconds OneDay = std::chrono::hours(24);

constexpr int64_t MaxWorkers = 64;
constexpr int64_t MaxPassesPerTrigger = 10;

constexpr std::array<std::string_view, 3> RootKeys = { "daemon", "tools", "timeouts" };
constexpr std::array<std::string_view, 6> DaemonKeys = {
	"workers",     "resync-interval",    "backoff-initial",
	"backoff-max", "passes-per-trigger", "allowed-mount-roots",
};

struct ToolKey {
	std::string_view key;
	std::string DaemonConfig::*member;
};

constexpr std::array<ToolKey, 8> ToolKeys = { {
	{ "mkfs-ext4", &DaemonConfig::mkfsExt4 },
	{ "mkfs-xfs", &DaemonConfig::mkfsXfs },
	{ "e2fsck", &DaemonConfig::e2fsck },
	{ "resize2fs", &DaemonConfig::resize2fs },
	{ "xfs-growfs", &DaemonConfig::xfsGrowfs },
	{ "rbd", &DaemonConfig::rbd },
	{ "rbd-nbd", &DaemonConfig::rbdNbd },
	{ "systemctl", &DaemonConfig::systemctl },
} };

struct TimeoutKey {
	std::string_view key;
	milliseconds DaemonConfig::*member;
	bool wholeSeconds; /* handed to librados, which takes seconds */
};

constexpr std::array<TimeoutKey, 9> TimeoutKeys = { {
	{ "mkfs", &DaemonConfig::mkfsTimeout, false },
	{ "fsck", &DaemonConfig::fsckTimeout, false },
	{ "grow", &DaemonConfig::growTimeout, false },
	{ "map", &DaemonConfig::mapTimeout, false },
	{ "unmap", &DaemonConfig::unmapTimeout, false },
	{ "unit", &DaemonConfig::unitTimeout, false },
	{ "device", &DaemonConfig::deviceTimeout, false },
	{ "ceph-connect", &DaemonConfig::cephConnect, true },
	{ "ceph-operation", &DaemonConfig::cephOperation, true },
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
constexpr std::array<std::string_view, 9> TimeoutNames = namesOf(TimeoutKeys);

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

/* A duration as written and as read. */
struct Duration {
	milliseconds value{};
	std::string text; /* "2min" */
};

/*
 * Reads the keys of one table of the file. Every key it reads is recorded in
 * the report at its value; a key of the wrong type is reported and read as
 * absent. Keys the table does not know are reported on construction.
 */
class ConfigReader
{
public:
	ConfigReader(const toml::table &table, std::string_view prefix, SpecReport &report,
		     std::span<const std::string_view> keys);

	std::string field(std::string_view key) const;
	/* Reports `problem` at the key's value, if there is one. */
	void check(std::string_view key, const std::optional<std::string> &problem);

	const toml::node *find(std::string_view key);
	void wrongType(std::string_view key, const toml::node &node, std::string_view expected);

	std::optional<std::string> readString(std::string_view key);
	std::optional<int64_t> readInteger(std::string_view key);
	std::optional<Duration> readDuration(std::string_view key);
	const toml::table *readTable(std::string_view key);

private:
	void rejectUnknownKeys(std::span<const std::string_view> keys);

	const toml::table &table_;
	std::string prefix_; /* "daemon"; "" at the top level */
	SpecReport &report_;
};

ConfigReader::ConfigReader(const toml::table &table, std::string_view prefix, SpecReport &report,
			   std::span<const std::string_view> keys)
	: table_(table), prefix_(prefix), report_(report)
{
	rejectUnknownKeys(keys);
}

std::string ConfigReader::field(std::string_view key) const
{
	if (prefix_.empty())
		return std::string(key);
	return prefix_ + '.' + std::string(key);
}

void ConfigReader::rejectUnknownKeys(std::span<const std::string_view> keys)
{
	for (const auto &[key, node] : table_) {
		const std::string_view name = key.str();
		if (contains(keys, name))
			continue;
		SourcePos pos = positionOf(key.source());
		if (pos.line == 0)
			pos = positionOf(node);
		/* A quoted TOML key may hold anything; the field path is printed escaped. */
		report_.error(field(escaped(name)), pos,
			      unknownConfigKeyProblem(name, prefix_, keys));
	}
}

void ConfigReader::check(std::string_view key, const std::optional<std::string> &problem)
{
	if (problem)
		report_.error(field(key), *problem);
}

const toml::node *ConfigReader::find(std::string_view key)
{
	const toml::node *node = table_.get(key);
	if (node != nullptr)
		report_.record(field(key), positionOf(*node));
	return node;
}

void ConfigReader::wrongType(std::string_view key, const toml::node &node,
			     std::string_view expected)
{
	report_.error(field(key), positionOf(node),
		      "expected " + std::string(expected) + ", found " + typeName(node));
}

std::optional<std::string> ConfigReader::readString(std::string_view key)
{
	const toml::node *node = find(key);
	if (node == nullptr)
		return std::nullopt;
	if (const auto *value = node->as_string())
		return value->get();
	wrongType(key, *node, "a string");
	return std::nullopt;
}

std::optional<int64_t> ConfigReader::readInteger(std::string_view key)
{
	const toml::node *node = find(key);
	if (node == nullptr)
		return std::nullopt;
	if (const auto *value = node->as_integer())
		return value->get();
	wrongType(key, *node, "an integer");
	return std::nullopt;
}

std::optional<Duration> ConfigReader::readDuration(std::string_view key)
{
	const toml::node *node = find(key);
	if (node == nullptr)
		return std::nullopt;
	if (const auto *integer = node->as_integer()) {
		/* A bare number could mean seconds or milliseconds: make the unit explicit. */
		const int64_t value = integer->get();
		const std::string example = value > 0 ? std::to_string(value) + "s" : "30s";
		check(key, "expected a duration string with a unit, such as '" + example +
				   "', found the integer " + std::to_string(value));
		return std::nullopt;
	}
	const auto *text = node->as_string();
	if (text == nullptr) {
		wrongType(key, *node, "a duration string such as '30s'");
		return std::nullopt;
	}
	const Result<milliseconds> value = parseDuration(text->get());
	if (!value) {
		check(key, value.error().message);
		return std::nullopt;
	}
	return Duration{ *value, text->get() };
}

const toml::table *ConfigReader::readTable(std::string_view key)
{
	const toml::node *node = find(key);
	if (node == nullptr)
		return nullptr;
	if (const toml::table *table = node->as_table())
		return table;
	wrongType(key, *node, "a table");
	return nullptr;
}

/* A duration from `min` to one day; out of range is reported and read as absent. */
std::optional<Duration> readBoundedDuration(ConfigReader &reader, std::string_view key,
					    milliseconds min)
{
	std::optional<Duration> duration = reader.readDuration(key);
	if (!duration)
		return std::nullopt;
	std::string problem;
	if (duration->value < min && min == OneMillisecond)
		problem = "expected a duration greater than 0, found " + quoted(duration->text);
	else if (duration->value < min)
		problem = "expected at least " + formatDuration(min) + ", found " +
			  quoted(duration->text);
	else if (duration->value > OneDay)
		problem = "expected at most 1 day ('24h'), found " + quoted(duration->text);
	if (!problem.empty()) {
		reader.check(key, problem);
		return std::nullopt;
	}
	return duration;
}

/* An integer from 1 to `max`; out of range is reported and read as absent. */
std::optional<unsigned> readCount(ConfigReader &reader, std::string_view key, int64_t max)
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
void checkBackoff(ConfigReader &reader, const SpecReport &report,
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

void readMountRoots(ConfigReader &reader, SpecReport &report, std::vector<std::string> &out)
{
	constexpr std::string_view Key = "allowed-mount-roots";
	const toml::node *node = reader.find(Key);
	if (node == nullptr)
		return;
	const toml::array *array = node->as_array();
	if (array == nullptr) {
		reader.wrongType(Key, *node, "an array of strings");
		return;
	}
	if (array->empty()) {
		reader.check(Key, "expected at least one path, found an empty array");
		return;
	}
	std::vector<std::string> roots;
	bool good = true;
	for (size_t i = 0; i < array->size(); ++i) {
		const toml::node &element = *array->get(i);
		const std::string field = reader.field(Key) + '[' + std::to_string(i) + ']';
		const SourcePos pos = positionOf(element);
		report.record(field, pos);
		const auto *value = element.as_string();
		if (value == nullptr) {
			report.error(field, pos,
				     std::string("expected a string, found ") + typeName(element));
			good = false;
			continue;
		}
		const std::string &root = value->get();
		std::optional<std::string> problem = pathProblem(root, false);
		if (!problem && std::find(roots.begin(), roots.end(), root) != roots.end())
			problem = "expected each path once, found " + quoted(root) + " again";
		if (problem) {
			report.error(field, pos, *problem);
			good = false;
			continue;
		}
		roots.push_back(root);
	}
	if (good)
		out = std::move(roots);
}

void readDaemon(const toml::table &table, SpecReport &report, DaemonConfig &config)
{
	ConfigReader reader(table, "daemon", report, DaemonKeys);
	if (const std::optional<unsigned> workers = readCount(reader, "workers", MaxWorkers))
		config.workers = *workers;
	if (const std::optional<Duration> interval =
		    readBoundedDuration(reader, "resync-interval", OneSecond))
		config.resyncInterval = interval->value;
	const std::optional<Duration> initial =
		readBoundedDuration(reader, "backoff-initial", OneMillisecond);
	if (initial)
		config.backoffInitial = initial->value;
	const std::optional<Duration> max =
		readBoundedDuration(reader, "backoff-max", OneMillisecond);
	if (max)
		config.backoffMax = max->value;
	checkBackoff(reader, report, initial, max, config);
	if (const std::optional<unsigned> passes =
		    readCount(reader, "passes-per-trigger", MaxPassesPerTrigger))
		config.maxPassesPerTrigger = *passes;
	readMountRoots(reader, report, config.allowedMountRoots);
}

void readTools(const toml::table &table, SpecReport &report, DaemonConfig &config)
{
	ConfigReader reader(table, "tools", report, ToolNames);
	for (const ToolKey &tool : ToolKeys) {
		std::optional<std::string> path = reader.readString(tool.key);
		if (!path)
			continue;
		if (const auto problem = pathProblem(*path, false)) {
			reader.check(tool.key, problem);
			continue;
		}
		config.*tool.member = std::move(*path);
	}
}

void readTimeouts(const toml::table &table, SpecReport &report, DaemonConfig &config)
{
	ConfigReader reader(table, "timeouts", report, TimeoutNames);
	for (const TimeoutKey &timeout : TimeoutKeys) {
		const std::optional<Duration> duration =
			readBoundedDuration(reader, timeout.key, OneMillisecond);
		if (!duration)
			continue;
		if (timeout.wholeSeconds && duration->value % OneSecond != milliseconds::zero()) {
			reader.check(timeout.key,
				     "expected whole seconds (Ceph takes this timeout in seconds), "
				     "found " +
					     quoted(duration->text));
			continue;
		}
		config.*timeout.member = duration->value;
	}
}

void readRoot(const toml::table &root, SpecReport &report, DaemonConfig &config)
{
	ConfigReader reader(root, "", report, RootKeys);
	if (const toml::table *daemon = reader.readTable("daemon"))
		readDaemon(*daemon, report, config);
	if (const toml::table *tools = reader.readTable("tools"))
		readTools(*tools, report, config);
	if (const toml::table *timeouts = reader.readTable("timeouts"))
		readTimeouts(*timeouts, report, config);
}

DaemonConfigOutcome parseChecked(std::string_view text, const std::string &path)
{
	SpecReport report(path);
	DaemonConfigOutcome outcome;

	std::optional<toml::table> root;
	if (const std::optional<TomlGuardProblem> hazard = findTomlHazard(text)) {
		report.error("", SourcePos{ hazard->line, hazard->column }, hazard->message);
	} else {
		try {
			root = toml::parse(text, std::string_view(path));
		} catch (const toml::parse_error &error) {
			report.error("", positionOf(error.source()),
				     "invalid TOML: " + std::string(error.description()));
		}
	}
	if (root)
		readRoot(*root, report, outcome.config);
	outcome.diagnostics = report.take();
	return outcome;
}

DaemonConfigOutcome internalFailure(const std::string &path, const char *what)
{
	DaemonConfigOutcome outcome;
	outcome.diagnostics.push_back(
		Diagnostic{ path, 0, 0, {}, std::string("internal error while reading: ") + what });
	return outcome;
}

} /* namespace */

DaemonConfigOutcome parseDaemonConfig(std::string_view text, const std::string &path)
{
	/* Nothing may escape a module: toml++ and the standard library throw, we do not. */
	try {
		return parseChecked(text, path);
	} catch (const std::exception &error) {
		return internalFailure(path, error.what());
	} catch (...) {
		return internalFailure(path, "unknown exception");
	}
}

} /* namespace rbdvolume */
