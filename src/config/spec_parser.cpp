/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Reading volume spec v1 from TOML: types, unknown keys and single values, field by field. */
#include "config/spec_parser.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <exception>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "common/text_escape.hpp"
#include "common/volume_name.hpp"
#include "config/duration_key.hpp"
#include "config/near_miss.hpp"
#include "config/quantities.hpp"
#include "config/spec_options.hpp"
#include "config/spec_report.hpp"
#include "config/spec_validate.hpp"
#include "config/spec_values.hpp"
#include "config/toml_reader.hpp"

namespace rbdvolume {

namespace {

constexpr std::array<std::string_view, 9> RootKeys = {
	"version",    "mode",	    "image",   "cluster", "map",
	"filesystem", "encryption", "staging", "publish",
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
constexpr std::array<std::string_view, 2> KrbdKeys = { "options", "abort-on-full" };
constexpr std::array<std::string_view, 1> NbdKeys = { "options" };
constexpr std::array<std::string_view, 5> FilesystemKeys = {
	"type", "mkfs-options", "format", "check", "grow",
};
constexpr std::array<std::string_view, 9> EncryptionKeys = {
	"type",	  "passphrase", "keyfile", "given-at-up", "volume-id",
	"cipher", "key-size",	"pbkdf",   "pbkdf-time",
};
constexpr std::array<std::string_view, 2> StagingKeys = { "path", "options" };
constexpr std::array<std::string_view, 3> PublishKeys = { "path", "read-only", "options" };

/* Every table of a spec and its keys, for a key written in the wrong one. */
struct SpecTable {
	std::string_view header;
	std::span<const std::string_view> keys;
};
constexpr std::array<SpecTable, 9> SpecTables = { {
	{ "the top level", RootKeys },
	{ "[image]", ImageKeys },
	{ "[image.create]", CreateKeys },
	{ "[cluster]", ClusterKeys },
	{ "[map]", MapKeys },
	{ "[filesystem]", FilesystemKeys },
	{ "[encryption]", EncryptionKeys },
	{ "[staging]", StagingKeys },
	{ "[[publish]]", PublishKeys },
} };

/* "unknown key 'driver'; it belongs in [map]" when no key here is a near miss of it. */
std::string specKeyProblem(std::string_view key, std::span<const std::string_view> known)
{
	if (!closestMatch(key, known).empty())
		return unknownKeyProblem(key, known);
	std::string homes;
	for (const SpecTable &table : SpecTables) {
		if (std::find(table.keys.begin(), table.keys.end(), key) != table.keys.end())
			homes += (homes.empty() ? "" : " or ") + std::string(table.header);
	}
	if (homes.empty())
		return unknownKeyProblem(key, known);
	return "unknown key " + quoted(key) + " here; it belongs in " + homes;
}

constexpr std::array<Named<bool>, 1> EncryptionTypes = { {
	{ "luks2", true },
} };
/*
 * rbd's own spelling, POOL[/NAMESPACE]/IMAGE[@SNAP], written into one key:
 * which keys take its parts, as a hint after the problem ("" when none fits).
 */
std::string rbdSpellingHint(std::string_view key, std::string_view value)
{
	const size_t at = value.find('@');
	if (key == "name" && at != std::string_view::npos &&
	    value.find('/') == std::string_view::npos)
		return "; a snapshot has its own key: name = " + quoted(value.substr(0, at)) +
		       ", snapshot = " + quoted(value.substr(at + 1));
	const size_t slash = value.find('/');
	if (slash == std::string_view::npos || value.find('/', slash + 1) != std::string_view::npos)
		return {};
	if (key == "pool")
		return "; a namespace has its own key: pool = " + quoted(value.substr(0, slash)) +
		       ", namespace = " + quoted(value.substr(slash + 1));
	if (key == "name" && at == std::string_view::npos)
		return "; the pool has its own key: pool = " + quoted(value.substr(0, slash)) +
		       ", name = " + quoted(value.substr(slash + 1));
	return {};
}

void readRbdName(TomlTable &reader, std::string_view key, bool required, std::string &out)
{
	std::optional<std::string> name = reader.readString(key);
	if (name) {
		std::optional<std::string> problem = rbdNameProblem(*name);
		if (problem)
			*problem += rbdSpellingHint(key, *name);
		reader.check(key, problem);
		out = std::move(*name);
	} else if (required && !reader.present(key)) {
		reader.missing(key);
	}
}

void readSize(TomlTable &reader, CreateSpec &create)
{
	const auto size =
		reader.readIntegerOrString("size", "an integer or a string such as '10G'");
	if (!size) {
		if (!reader.present("size"))
			reader.missing("size");
		return;
	}
	if (const auto *integer = std::get_if<int64_t>(&*size)) {
		if (*integer <= 0) {
			reader.check("size", "expected a size greater than 0, found " +
						     std::to_string(*integer));
			return;
		}
		create.sizeBytes = static_cast<uint64_t>(*integer);
	} else {
		const Result<uint64_t> bytes = parseSize(std::get<std::string>(*size));
		if (!bytes) {
			reader.check("size", bytes.error().message);
			return;
		}
		create.sizeBytes = *bytes;
	}
	reader.check("size", sizeBytesProblem(create.sizeBytes));
}

void readCreate(TomlTable reader, SpecReport &report, CreateSpec &create)
{
	readSize(reader, create);
	const std::vector<StringItem> features =
		reader.readStrings("features").value_or(std::vector<StringItem>{});
	create.features = valuesOf(features);
	for (const auto &[index, problem] : featureProblems(create.features))
		report.error(features.at(index).field, problem);
}

void readImage(TomlTable reader, SpecReport &report, ImageSpec &image)
{
	readRbdName(reader, "pool", true, image.pool);
	readRbdName(reader, "namespace", false, image.radosNamespace);
	readRbdName(reader, "name", true, image.name);
	readRbdName(reader, "snapshot", false, image.snapshot);
	if (auto create =
		    reader.readTable("create", { "[image.create]", CreateKeys, specKeyProblem }))
		readCreate(std::move(*create), report, image.create.emplace());
}

void readPath(TomlTable &reader, std::string_view key, std::string &out, bool allowRoot = true)
{
	std::optional<std::string> path = reader.readString(key);
	if (!path)
		return;
	reader.check(key, pathProblem(*path, allowRoot));
	out = std::move(*path);
}

void readCluster(TomlTable reader, ClusterSpec &cluster)
{
	readPath(reader, "conf", cluster.conf);
	if (std::optional<std::string> id = reader.readString("id")) {
		reader.check("id", clientIdProblem(*id));
		cluster.clientId = std::move(*id);
	}
	readPath(reader, "keyring", cluster.keyring);
	readPath(reader, "keyfile", cluster.keyfile);

	const std::vector<StringItem> monitors =
		reader.readCheckedStrings("monitors", monitorProblem);
	if (monitors.empty() && reader.present("monitors") && !reader.failed("monitors"))
		reader.check("monitors", "expected at least one monitor address, found an empty "
					 "array (leave 'monitors' out to use the conf's)");
	cluster.monitors = valuesOf(monitors);
}

std::vector<std::string> readDriverOptions(TomlTable &reader, Driver driver)
{
	const auto check = driver == Driver::Krbd ? krbdOptionProblem : nbdOptionProblem;
	return valuesOf(reader.readCheckedStrings("options", check));
}

std::string mapKeyProblem(std::string_view key, std::span<const std::string_view> known)
{
	if (key == "fuse")
		return "unknown key 'fuse'; the fuse driver takes no options";
	return specKeyProblem(key, known);
}

void readMap(TomlTable reader, MapSpec &map)
{
	map.driver = reader.readChoice("driver", DriverNames).value_or(map.driver);
	map.readOnly = reader.readBool("read-only").value_or(map.readOnly);
	map.exclusive = reader.readBool("exclusive").value_or(map.exclusive);
	map.multiWriter = reader.readBool("multi-writer").value_or(map.multiWriter);
	if (auto krbd = reader.readTable("krbd", { "[map.krbd]", KrbdKeys })) {
		map.krbdOptions = readDriverOptions(*krbd, Driver::Krbd);
		map.krbdAbortOnFull = krbd->readBool("abort-on-full").value_or(true);
		if (!map.krbdAbortOnFull &&
		    std::ranges::count(map.krbdOptions, "abort_on_full") != 0)
			krbd->check("abort-on-full",
				    std::string("expected no 'abort_on_full' in options with "
						"abort-on-full = false, found both"));
	}
	if (auto nbd = reader.readTable("nbd", { "[map.nbd]", NbdKeys }))
		map.nbdOptions = readDriverOptions(*nbd, Driver::Nbd);
}

void readFilesystem(TomlTable reader, SpecReport &report, FilesystemSpec &fs)
{
	fs.type = reader.readChoice("type", FsTypeNames).value_or(fs.type);

	const std::vector<StringItem> args = reader.readCheckedStrings(
		"mkfs-options", [](std::string_view arg) -> std::optional<std::string> {
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

	fs.format = reader.readChoice("format", FormatPolicyNames).value_or(fs.format);
	fs.check = reader.readChoice("check", CheckPolicyNames).value_or(fs.check);
	fs.grow = reader.readChoice("grow", GrowPolicyNames).value_or(fs.grow);
}

void readEncryption(TomlTable reader, EncryptionSpec &encryption)
{
	if (!reader.readChoice("type", EncryptionTypes) && !reader.present("type"))
		reader.missing("type");
	encryption.source =
		reader.readChoice("passphrase", KeySourceNames).value_or(encryption.source);
	readPath(reader, "keyfile", encryption.keyfile);
	encryption.givenAtUp = reader.readBool("given-at-up").value_or(false);
	if (encryption.givenAtUp && reader.present("keyfile"))
		reader.check("keyfile", std::string("expected no keyfile with given-at-up = true "
						    "(the passphrase comes with each up request)"));
	else if (!encryption.givenAtUp && !reader.present("keyfile"))
		reader.missing("keyfile", "given-at-up = true");
	if (std::optional<std::string> id = reader.readString("volume-id")) {
		reader.check("volume-id", volumeIdProblem(*id));
		encryption.volumeId = std::move(*id);
	}
	if (std::optional<std::string> cipher = reader.readString("cipher")) {
		reader.check("cipher", cipherProblem(*cipher));
		encryption.cipher = std::move(*cipher);
	}
	if (const std::optional<int64_t> bits = reader.readInteger("key-size")) {
		if (*bits != 256 && *bits != 512)
			reader.check("key-size",
				     "expected 256 or 512 (bits), found " + std::to_string(*bits));
		else
			encryption.keyBits = static_cast<uint32_t>(*bits);
	}
	encryption.pbkdf = reader.readChoice("pbkdf", PbkdfNames).value_or(encryption.pbkdf);
	if (const std::optional<Duration> time = readBoundedDuration(
		    reader, "pbkdf-time", std::chrono::milliseconds(1), MaxPbkdfTime))
		encryption.pbkdfTime = time->value;
}

void readStaging(TomlTable reader, StagingSpec &staging)
{
	readPath(reader, "path", staging.path, false);
	staging.options = valuesOf(reader.readCheckedStrings("options", mountOptionProblem));
}

void readPublish(std::vector<std::optional<TomlTable>> tables, std::vector<PublishTarget> &out)
{
	for (std::optional<TomlTable> &reader : tables) {
		PublishTarget &target = out.emplace_back();
		if (!reader)
			continue;
		readPath(*reader, "path", target.path, false);
		if (!reader->present("path"))
			reader->missing("path");
		target.readOnly = reader->readBool("read-only").value_or(false);
		target.options =
			valuesOf(reader->readCheckedStrings("options", mountOptionProblem));
	}
}

void readRoot(TomlTable reader, SpecReport &report, VolumeSpec &spec)
{
	if (const std::optional<int64_t> version = reader.readInteger("version"))
		if (*version != 1)
			reader.check("version", "expected 1 (the only spec version), found " +
							std::to_string(*version));
	spec.mode = reader.readChoice("mode", VolumeModeNames).value_or(spec.mode);

	if (auto image = reader.readTable("image", { "[image]", ImageKeys, specKeyProblem }))
		readImage(std::move(*image), report, spec.image);
	else if (!reader.present("image"))
		report.error("image", SourcePos{ 1, 1 }, "missing required table [image]");

	if (auto cluster =
		    reader.readTable("cluster", { "[cluster]", ClusterKeys, specKeyProblem }))
		readCluster(std::move(*cluster), spec.cluster);
	if (auto map = reader.readTable("map", { "[map]", MapKeys, mapKeyProblem }))
		readMap(std::move(*map), spec.map);
	if (auto fs = reader.readTable("filesystem",
				       { "[filesystem]", FilesystemKeys, specKeyProblem }))
		readFilesystem(std::move(*fs), report, spec.filesystem.emplace());
	if (auto encryption = reader.readTable("encryption",
					       { "[encryption]", EncryptionKeys, specKeyProblem }))
		readEncryption(std::move(*encryption), spec.encryption.emplace());
	if (auto staging =
		    reader.readTable("staging", { "[staging]", StagingKeys, specKeyProblem }))
		readStaging(std::move(*staging), spec.staging);
	if (auto publish = reader.readTableArray("publish",
						 { "[[publish]]", PublishKeys, specKeyProblem }))
		readPublish(std::move(*publish), spec.publish);
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

	if (const auto file = TomlFile::parse(text, path, report)) {
		readRoot(file->root({ "the spec", RootKeys, specKeyProblem }, report), report,
			 outcome.spec);
		validateSpec(outcome.spec, report);
		completeSpec(outcome.spec, report);
	}
	outcome.diagnostics = report.take();
	return outcome;
}

} /* namespace */

SpecOutcome parseVolumeSpec(std::string_view text, const std::string &path)
{
	SpecOutcome outcome;
	const std::optional<std::string> failure =
		readWithoutThrowing([&] { outcome = parseChecked(text, path); });
	if (failure) {
		outcome = SpecOutcome{};
		outcome.spec.sourceFile = path;
		outcome.diagnostics.push_back(Diagnostic{ path, 0, 0, {}, *failure });
	}
	return outcome;
}

} /* namespace rbdvolume */
