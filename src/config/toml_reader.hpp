/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The one TOML reader of the volume spec, the daemon config and the CSI
 * cluster map: a file read table by table, key by key, every problem into a
 * SpecReport at its line and column. No toml++ type shows here, so users
 * outside this library never see TOML's parser.
 */
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "common/name_table.hpp"
#include "common/text_escape.hpp"
#include "config/near_miss.hpp"
#include "config/spec_report.hpp"

namespace rbdvolume {

struct TomlTableNode; /* a table of a parsed file (toml_reader.cpp) */
class TomlFile;

/* One string of an array, with the field it was read as ("map.krbd.options[2]"). */
struct StringItem {
	std::string value;
	std::string field;
};

std::vector<std::string> valuesOf(const std::vector<StringItem> &items);

/* The message for a key the table does not know; unknownKeyProblem() when none is given. */
using UnknownKeyMessage =
	std::function<std::string(std::string_view key, std::span<const std::string_view> known)>;

/* How a table is named in messages and which keys it takes. */
struct TableShape {
	std::string header; /* "[image]", "[[publish]]", "the spec" */
	std::span<const std::string_view> keys;
	UnknownKeyMessage unknownKey = {}; // NOLINT(readability-redundant-member-init)
};

/*
 * Reads the keys of one table. Every key it reads is recorded in the report
 * at its value, every table at its header; a key of the wrong type is
 * reported and read as absent. Keys the table does not know are reported
 * when the table is opened.
 */
class TomlTable
{
public:
	/* "image.pool": the field of `key` in this table. */
	std::string field(std::string_view key) const;
	const std::string &prefix() const { return prefix_; }
	bool present(std::string_view key) const;
	/* True when a problem was reported at the key or below it. */
	bool failed(std::string_view key) const;

	/* "missing required key 'KEY' in HEADER[ (or ALTERNATIVE)]", at the table; nothing
	 * when an unknown key here was a near miss of it, whose "did you mean" says it all. */
	void missing(std::string_view key, std::string_view alternative = {});
	/* Reports `problem` at the key's value, if there is one. */
	void check(std::string_view key, const std::optional<std::string> &problem);
	/* Reports `problem` at the array element `item`, if there is one. */
	void check(const StringItem &item, const std::optional<std::string> &problem);

	std::optional<std::string> readString(std::string_view key);
	/* A string; a value of another type is "expected `expected`, found a boolean". */
	std::optional<std::string> readString(std::string_view key, std::string_view expected);
	std::optional<bool> readBool(std::string_view key);
	std::optional<int64_t> readInteger(std::string_view key);
	/* An integer or a string; anything else is "expected `expected`, found ...". */
	std::optional<std::variant<int64_t, std::string>>
	readIntegerOrString(std::string_view key, std::string_view expected);
	/* The array's strings; elements of another type are reported and left out. */
	std::optional<std::vector<StringItem>> readStrings(std::string_view key);

	/* readStrings(), then `problemOf` (a validator: std::optional<std::string>) on each. */
	template<typename Check>
	std::vector<StringItem> readCheckedStrings(std::string_view key, Check problemOf);

	template<typename E, size_t N>
	std::optional<E> readChoice(std::string_view key, const std::array<Named<E>, N> &choices);

	std::optional<TomlTable> readTable(std::string_view key, TableShape shape);
	/*
	 * [[key]]: each element a table named key[i]; an element that is not one
	 * is reported and stands as nullopt, so indexes still match the file's.
	 */
	std::optional<std::vector<std::optional<TomlTable>>>
	readTableArray(std::string_view key, const TableShape &shape);

private:
	friend class TomlFile;
	TomlTable(const TomlFile &file, const TomlTableNode &node, std::string prefix,
		  TableShape shape, SpecReport &report);
	void rejectUnknownKeys();

	const TomlFile *file_;
	const TomlTableNode *node_;
	std::string prefix_; /* "publish[1]"; "" at the top level */
	TableShape shape_;
	SpecReport *report_;
	std::vector<std::string> nearMisses_; /* the known keys unknown ones were near misses of */
};

/* A parsed TOML text; the tables read from it live as long as it does. */
class TomlFile
{
public:
	/*
	 * The parsed text, or nullptr when it is no TOML we read (a syntax error,
	 * or input toml++ mishandles: see toml_guard.hpp), reported at its place.
	 */
	static std::unique_ptr<TomlFile> parse(std::string_view text, const std::string &path,
					       SpecReport &report);
	~TomlFile();
	TomlFile(const TomlFile &) = delete;
	TomlFile &operator=(const TomlFile &) = delete;
	TomlFile(TomlFile &&) = delete;
	TomlFile &operator=(TomlFile &&) = delete;

	TomlTable root(TableShape shape, SpecReport &report) const;

private:
	friend class TomlTable;
	struct Parsed;
	explicit TomlFile(std::unique_ptr<Parsed> parsed);
	std::unique_ptr<Parsed> parsed_;
};

/*
 * Runs `read`, which may throw (toml++ and the standard library do); what
 * it throws comes back as "internal error while reading: WHAT", since
 * nothing may escape a module.
 */
std::optional<std::string> readWithoutThrowing(const std::function<void()> &read);

template<typename Check>
std::vector<StringItem> TomlTable::readCheckedStrings(std::string_view key, Check problemOf)
{
	/* A check returning a plain string would turn "" into an engaged problem. */
	static_assert(std::is_same_v<std::invoke_result_t<Check, std::string_view>,
				     std::optional<std::string>>);
	std::vector<StringItem> items = readStrings(key).value_or(std::vector<StringItem>{});
	for (const StringItem &item : items)
		check(item, problemOf(item.value));
	return items;
}

template<typename E, size_t N>
std::optional<E> TomlTable::readChoice(std::string_view key, const std::array<Named<E>, N> &choices)
{
	std::array<std::string_view, N> names;
	for (size_t i = 0; i < N; ++i)
		names.at(i) = choices.at(i).name;
	/* `grow = true` is told the values, not only that it is no string. */
	const std::optional<std::string> text = readString(key, "one of " + quotedList(names));
	if (!text)
		return std::nullopt;
	for (size_t i = 0; i < N; ++i) {
		if (choices.at(i).name == *text)
			return choices.at(i).value;
	}
	check(key, oneOfProblem(names, *text));
	return std::nullopt;
}

} /* namespace rbdvolume */
