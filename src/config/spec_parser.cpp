/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Reading volume spec v1 from TOML: types, unknown keys and single values, field by field. */
#include "config/spec_parser.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <exception>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <toml++/toml.h>

#include "common/volume_name.hpp"
#include "config/spec_options.hpp"
#include "config/spec_report.hpp"
#include "config/spec_validate.hpp"
#include "config/spec_values.hpp"
#include "config/toml_guard.hpp"
#include "config/toml_nodes.hpp"

namespace rbdvolume {

namespace {

constexpr std::array<std::string_view, 8> RootKeys = {
	"version", "mode", "image", "cluster", "map", "filesystem", "staging", "publish",
};
constexpr std::array<std::string_view, 5> ImageKeys = {
	"pool", "namespace", "name", "snapshot", "create",
};
constexpr std::array<std::string_view, 2> CreateKeys = { "size", "features" };
constexpr std::array<std::string_view, 5> ClusterKeys = {
	"conf", "id", "keyring", "keyfile", "monitors",
};
constexpr std::array<std::string_view, 6> MapKeys = {
	"driver", "read-only", "exclusive", "multi-writer", "krbd", "nbd",
};
constexpr std::array<std::string_view, 1> DriverOptionKeys = { "options" };
constexpr std::array<std::string_view, 5> FilesystemKeys = {
	"type", "mkfs-options", "format", "check", "grow",
};
constexpr std::array<std::string_view, 2> StagingKeys = { "path", "options" };
constexpr std::array<std::string_view, 3> PublishKeys = { "path", "read-only", "options" };

template<typename E> struct Choice {
	std::string_view name;
	E value;
};

constexpr std::array<Choice<VolumeMode>, 2> Modes = { {
	{ "filesystem", VolumeMode::Filesystem },
	{ "block", VolumeMode::Block },
} };
constexpr std::array<Choice<Driver>, 4> Drivers = { {
	{ "krbd", Driver::Krbd },
	{ "nbd", Driver::Nbd },
	{ "fuse", Driver::Fuse },
	{ "auto", Driver::Auto },
} };
constexpr std::array<Choice<FsType>, 2> FsTypes = { {
	{ "ext4", FsType::Ext4 },
	{ "xfs", FsType::Xfs },
} };
constexpr std::array<Choice<FormatPolicy>, 2> FormatPolicies = { {
	{ "if-blank", FormatPolicy::IfBlank },
	{ "never", FormatPolicy::Never },
} };
constexpr std::array<Choice<CheckPolicy>, 2> CheckPolicies = { {
	{ "auto", CheckPolicy::Auto },
	{ "never", CheckPolicy::Never },
} };
constexpr std::array<Choice<GrowPolicy>, 2> GrowPolicies = { {
	{ "auto", GrowPolicy::Auto },
	{ "never", GrowPolicy::Never },
} };

std::string joinField(std::string_view prefix, std::string_view key)
{
	if (prefix.empty())
		return std::string(key);
	return std::string(prefix) + '.' + std::string(key);
}

std::string indexField(std::string_view prefix, size_t index)
{
	return std::string(prefix) + '[' + std::to_string(index) + ']';
}

struct StringItem {
	std::string value;
	std::string field; /* "map.krbd.options[2]" */
};

std::vector<std::string> valuesOf(const std::vector<StringItem> &items)
{
	std::vector<std::string> values;
	values.reserve(items.size());
	for (const StringItem &item : items)
		values.push_back(item.value);
	return values;
}

/*
 * Reads the keys of one TOML table. Every key it reads is recorded in the
 * report at its value, every table at its header; a key of the wrong type is
 * reported and read as absent. Keys the table does not know are reported on
 * construction.
 */
class TableReader
{
public:
	TableReader(const toml::table &table, std::string prefix, std::string header,
		    SpecReport &report, std::span<const std::string_view> keys);

	std::string field(std::string_view key) const { return joinField(prefix_, key); }
	bool present(std::string_view key) const { return table_.contains(key); }
	void missing(std::string_view key);
	/* Reports `problem` at the key's value, if there is one. */
	void check(std::string_view key, const std::optional<std::string> &problem);

	const toml::node *find(std::string_view key);
	void wrongType(std::string_view key, const toml::node &node, std::string_view expected);

	std::optional<std::string> readString(std::string_view key);
	std::optional<bool> readBool(std::string_view key);
	std::optional<int64_t> readInteger(std::string_view key);
	std::optional<std::vector<StringItem>> readStrings(std::string_view key);
	const toml::table *readTable(std::string_view key);
	const toml::array *readTableArray(std::string_view key);

	template<typename E, size_t N>
	std::optional<E> readChoice(std::string_view key, const std::array<Choice<E>, N> &choices);

private:
	void rejectUnknownKeys(std::span<const std::string_view> keys);

	const toml::table &table_;
	std::string prefix_;
	std::string header_; /* "[image]", "[[publish]]": how messages name the table */
	SpecReport &report_;
};

TableReader::TableReader(const toml::table &table, std::string prefix, std::string header,
			 SpecReport &report, std::span<const std::string_view> keys)
	: table_(table), prefix_(std::move(prefix)), header_(std::move(header)), report_(report)
{
	rejectUnknownKeys(keys);
}

void TableReader::rejectUnknownKeys(std::span<const std::string_view> keys)
{
	for (const auto &[key, node] : table_) {
		const std::string_view name = key.str();
		if (std::find(keys.begin(), keys.end(), name) != keys.end())
			continue;
		SourcePos pos = positionOf(key.source());
		if (pos.line == 0)
			pos = positionOf(node);
		std::string message = unknownKeyProblem(name, keys);
		if (prefix_ == "map" && name == "fuse")
			message = "unknown key 'fuse'; the fuse driver takes no options";
		/* A quoted TOML key may hold anything; the field path is printed as is. */
		report_.error(field(escaped(name)), pos, std::move(message));
	}
}

void TableReader::missing(std::string_view key)
{
	report_.error(field(key), report_.locate(prefix_),
		      "missing required key " + quoted(key) + " in " + header_);
}

void TableReader::check(std::string_view key, const std::optional<std::string> &problem)
{
	if (problem)
		report_.error(field(key), *problem);
}

const toml::node *TableReader::find(std::string_view key)
{
	const toml::node *node = table_.get(key);
	if (node != nullptr)
		report_.record(field(key), positionOf(*node));
	return node;
}

void TableReader::wrongType(std::string_view key, const toml::node &node, std::string_view expected)
{
	report_.error(field(key), positionOf(node),
		      "expected " + std::string(expected) + ", found " + typeName(node));
}

std::optional<std::string> TableReader::readString(std::string_view key)
{
	const toml::node *node = find(key);
	if (node == nullptr)
		return std::nullopt;
	if (const auto *value = node->as_string())
		return value->get();
	wrongType(key, *node, "a string");
	return std::nullopt;
}

std::optional<bool> TableReader::readBool(std::string_view key)
{
	const toml::node *node = find(key);
	if (node == nullptr)
		return std::nullopt;
	if (const auto *value = node->as_boolean())
		return value->get();
	wrongType(key, *node, "a boolean");
	return std::nullopt;
}

std::optional<int64_t> TableReader::readInteger(std::string_view key)
{
	const toml::node *node = find(key);
	if (node == nullptr)
		return std::nullopt;
	if (const auto *value = node->as_integer())
		return value->get();
	wrongType(key, *node, "an integer");
	return std::nullopt;
}

std::optional<std::vector<StringItem>> TableReader::readStrings(std::string_view key)
{
	const toml::node *node = find(key);
	if (node == nullptr)
		return std::nullopt;
	const toml::array *array = node->as_array();
	if (array == nullptr) {
		wrongType(key, *node, "an array of strings");
		return std::nullopt;
	}
	/* Elements of the wrong type are reported and left out; the rest is still checked. */
	std::vector<StringItem> items;
	for (size_t i = 0; i < array->size(); ++i) {
		const toml::node &element = *array->get(i);
		const std::string elementField = indexField(field(key), i);
		report_.record(elementField, positionOf(element));
		if (const auto *value = element.as_string())
			items.push_back(StringItem{ value->get(), elementField });
		else
			report_.error(elementField, positionOf(element),
				      std::string("expected a string, found ") + typeName(element));
	}
	return items;
}

const toml::table *TableReader::readTable(std::string_view key)
{
	const toml::node *node = find(key);
	if (node == nullptr)
		return nullptr;
	if (const toml::table *table = node->as_table())
		return table;
	wrongType(key, *node, "a table");
	return nullptr;
}

const toml::array *TableReader::readTableArray(std::string_view key)
{
	const toml::node *node = find(key);
	if (node == nullptr)
		return nullptr;
	if (const toml::array *array = node->as_array())
		return array;
	wrongType(key, *node, "an array of tables ([[" + field(key) + "]])");
	return nullptr;
}

template<typename E, size_t N>
std::optional<E> TableReader::readChoice(std::string_view key,
					 const std::array<Choice<E>, N> &choices)
{
	const std::optional<std::string> text = readString(key);
	if (!text)
		return std::nullopt;
	std::array<std::string_view, N> names;
	for (size_t i = 0; i < N; ++i) {
		if (choices.at(i).name == *text)
			return choices.at(i).value;
		names.at(i) = choices.at(i).name;
	}
	check(key, oneOfProblem(names, *text));
	return std::nullopt;
}

/* Reports each entry's problem; returns the well-typed entries. */
template<typename Check>
std::vector<StringItem> readCheckedStrings(TableReader &reader, SpecReport &report,
					   std::string_view key, Check check)
{
	/* A check returning a plain string would turn "" into an engaged problem. */
	static_assert(std::is_same_v<std::invoke_result_t<Check, std::string_view>,
				     std::optional<std::string>>);
	std::vector<StringItem> items = reader.readStrings(key).value_or(std::vector<StringItem>{});
	for (const StringItem &item : items) {
		if (const std::optional<std::string> problem = check(item.value))
			report.error(item.field, *problem);
	}
	return items;
}

void readRbdName(TableReader &reader, std::string_view key, bool required, std::string &out)
{
	std::optional<std::string> name = reader.readString(key);
	if (name) {
		reader.check(key, rbdNameProblem(*name));
		out = std::move(*name);
	} else if (required && !reader.present(key)) {
		reader.missing(key);
	}
}

void readSize(TableReader &reader, SpecReport &report, CreateSpec &create)
{
	const toml::node *node = reader.find("size");
	if (node == nullptr) {
		reader.missing("size");
		return;
	}
	if (const auto *integer = node->as_integer()) {
		const int64_t value = integer->get();
		if (value <= 0) {
			reader.check("size", "expected a size greater than 0, found " +
						     std::to_string(value));
			return;
		}
		create.sizeBytes = static_cast<uint64_t>(value);
	} else if (const auto *text = node->as_string()) {
		const Result<uint64_t> bytes = parseSize(text->get());
		if (!bytes) {
			report.error(reader.field("size"), bytes.error().message);
			return;
		}
		create.sizeBytes = *bytes;
	} else {
		reader.wrongType("size", *node, "an integer or a string such as '10G'");
		return;
	}
	reader.check("size", sizeBytesProblem(create.sizeBytes));
}

void readCreate(const toml::table &table, SpecReport &report, CreateSpec &create)
{
	TableReader reader(table, "image.create", "[image.create]", report, CreateKeys);
	readSize(reader, report, create);
	const std::vector<StringItem> features =
		reader.readStrings("features").value_or(std::vector<StringItem>{});
	create.features = valuesOf(features);
	for (const auto &[index, problem] : featureProblems(create.features))
		report.error(features.at(index).field, problem);
}

void readImage(const toml::table &table, SpecReport &report, ImageSpec &image)
{
	TableReader reader(table, "image", "[image]", report, ImageKeys);
	readRbdName(reader, "pool", true, image.pool);
	readRbdName(reader, "namespace", false, image.radosNamespace);
	readRbdName(reader, "name", true, image.name);
	readRbdName(reader, "snapshot", false, image.snapshot);
	if (const toml::table *create = reader.readTable("create"))
		readCreate(*create, report, image.create.emplace());
}

void readPath(TableReader &reader, std::string_view key, std::string &out, bool allowRoot = true)
{
	std::optional<std::string> path = reader.readString(key);
	if (!path)
		return;
	reader.check(key, pathProblem(*path, allowRoot));
	out = std::move(*path);
}

void readCluster(const toml::table &table, SpecReport &report, ClusterSpec &cluster)
{
	TableReader reader(table, "cluster", "[cluster]", report, ClusterKeys);
	readPath(reader, "conf", cluster.conf);
	if (std::optional<std::string> id = reader.readString("id")) {
		reader.check("id", clientIdProblem(*id));
		cluster.clientId = std::move(*id);
	}
	readPath(reader, "keyring", cluster.keyring);
	readPath(reader, "keyfile", cluster.keyfile);

	const toml::node *monitors = reader.find("monitors");
	if (monitors != nullptr && monitors->is_array() && monitors->as_array()->empty())
		reader.check("monitors", "expected at least one monitor address, found an empty "
					 "array (leave 'monitors' out to use the conf's)");
	cluster.monitors = valuesOf(readCheckedStrings(reader, report, "monitors", monitorProblem));
}

std::vector<std::string> readDriverOptions(const toml::table &table, SpecReport &report,
					   Driver driver)
{
	const std::string prefix = std::string("map.") + driverName(driver);
	TableReader reader(table, prefix, "[" + prefix + "]", report, DriverOptionKeys);
	const auto check = driver == Driver::Krbd ? krbdOptionProblem : nbdOptionProblem;
	return valuesOf(readCheckedStrings(reader, report, "options", check));
}

void readMap(const toml::table &table, SpecReport &report, MapSpec &map)
{
	TableReader reader(table, "map", "[map]", report, MapKeys);
	map.driver = reader.readChoice("driver", Drivers).value_or(map.driver);
	map.readOnly = reader.readBool("read-only").value_or(map.readOnly);
	map.exclusive = reader.readBool("exclusive").value_or(map.exclusive);
	map.multiWriter = reader.readBool("multi-writer").value_or(map.multiWriter);
	if (const toml::table *krbd = reader.readTable("krbd"))
		map.krbdOptions = readDriverOptions(*krbd, report, Driver::Krbd);
	if (const toml::table *nbd = reader.readTable("nbd"))
		map.nbdOptions = readDriverOptions(*nbd, report, Driver::Nbd);
}

void readFilesystem(const toml::table &table, SpecReport &report, FilesystemSpec &fs)
{
	TableReader reader(table, "filesystem", "[filesystem]", report, FilesystemKeys);
	fs.type = reader.readChoice("type", FsTypes).value_or(fs.type);

	const std::vector<StringItem> args = readCheckedStrings(
		reader, report, "mkfs-options",
		[](std::string_view arg) -> std::optional<std::string> {
			if (arg.empty())
				return "expected a non-empty mkfs argument, found ''";
			return std::nullopt;
		});
	fs.mkfsOptions = valuesOf(args);
	if (!report.failed("filesystem.type")) {
		const std::string flag = fs.type == FsType::Ext4 ? "'-F'" : "'-f'";
		for (const size_t index : mkfsForceArguments(fs.type, fs.mkfsOptions))
			report.error(
				args.at(index).field,
				"expected mkfs arguments without the force flag " + flag +
					" (rbd-volume never formats over a signature), found " +
					quoted(args.at(index).value));
	}

	fs.format = reader.readChoice("format", FormatPolicies).value_or(fs.format);
	fs.check = reader.readChoice("check", CheckPolicies).value_or(fs.check);
	fs.grow = reader.readChoice("grow", GrowPolicies).value_or(fs.grow);
}

void readStaging(const toml::table &table, SpecReport &report, StagingSpec &staging)
{
	TableReader reader(table, "staging", "[staging]", report, StagingKeys);
	readPath(reader, "path", staging.path, false);
	staging.options =
		valuesOf(readCheckedStrings(reader, report, "options", mountOptionProblem));
}

void readPublish(const toml::array &array, SpecReport &report, std::vector<PublishTarget> &out)
{
	for (size_t i = 0; i < array.size(); ++i) {
		const toml::node &element = *array.get(i);
		const std::string prefix = indexField("publish", i);
		report.record(prefix, positionOf(element));
		PublishTarget &target = out.emplace_back();
		const toml::table *table = element.as_table();
		if (table == nullptr) {
			report.error(prefix, positionOf(element),
				     std::string("expected a table, found ") + typeName(element));
			continue;
		}
		TableReader reader(*table, prefix, "[[publish]]", report, PublishKeys);
		readPath(reader, "path", target.path, false);
		if (!reader.present("path"))
			reader.missing("path");
		target.readOnly = reader.readBool("read-only").value_or(false);
		target.options =
			valuesOf(readCheckedStrings(reader, report, "options", mountOptionProblem));
	}
}

void readRoot(const toml::table &root, SpecReport &report, VolumeSpec &spec)
{
	TableReader reader(root, "", "the spec", report, RootKeys);
	if (const std::optional<int64_t> version = reader.readInteger("version"))
		if (*version != 1)
			reader.check("version", "expected 1 (the only spec version), found " +
							std::to_string(*version));
	spec.mode = reader.readChoice("mode", Modes).value_or(spec.mode);

	if (const toml::table *image = reader.readTable("image"))
		readImage(*image, report, spec.image);
	else if (!reader.present("image"))
		report.error("image", SourcePos{ 1, 1 }, "missing required table [image]");

	if (const toml::table *cluster = reader.readTable("cluster"))
		readCluster(*cluster, report, spec.cluster);
	if (const toml::table *map = reader.readTable("map"))
		readMap(*map, report, spec.map);
	if (const toml::table *fs = reader.readTable("filesystem"))
		readFilesystem(*fs, report, spec.filesystem.emplace());
	if (const toml::table *staging = reader.readTable("staging"))
		readStaging(*staging, report, spec.staging);
	if (const toml::array *publish = reader.readTableArray("publish"))
		readPublish(*publish, report, spec.publish);
}

/* The volume name is the file stem; a file that is not NAME.toml is a problem of its own. */
std::string checkFileName(const std::string &path, SpecReport &report)
{
	constexpr std::string_view Suffix = ".toml";
	const size_t slash = path.rfind('/');
	const std::string_view base =
		std::string_view(path).substr(slash == std::string::npos ? 0 : slash + 1);
	if (base.size() < Suffix.size() || base.substr(base.size() - Suffix.size()) != Suffix) {
		report.fileError("expected a file name ending in '.toml', found " + quoted(base));
		return std::string(base);
	}
	const std::string_view stem = base.substr(0, base.size() - Suffix.size());
	const auto problem = volumeNameProblem(stem);
	if (problem)
		report.fileError("expected a file name of the form NAME.toml with a valid volume "
				 "name, found " +
				 quoted(base) + ": " + *problem);
	return std::string(stem);
}

SpecOutcome parseChecked(std::string_view text, const std::string &path)
{
	SpecReport report(path);
	SpecOutcome outcome;
	outcome.spec.sourceFile = path;
	outcome.spec.name = checkFileName(path, report);

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
	if (root) {
		readRoot(*root, report, outcome.spec);
		validateSpec(outcome.spec, report);
		completeSpec(outcome.spec, report);
	}
	outcome.diagnostics = report.take();
	return outcome;
}

SpecOutcome internalFailure(const std::string &path, const char *what)
{
	SpecOutcome outcome;
	outcome.spec.sourceFile = path;
	outcome.diagnostics.push_back(
		Diagnostic{ path, 0, 0, {}, std::string("internal error while reading: ") + what });
	return outcome;
}

} /* namespace */

SpecOutcome parseVolumeSpec(std::string_view text, const std::string &path)
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
