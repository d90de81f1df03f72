/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "config/toml_reader.hpp"

#include <algorithm>
#include <deque>
#include <exception>
#include <utility>

#include <toml++/toml.h>

#include "config/toml_guard.hpp"

namespace rbdvolume {

struct TomlTableNode {
	const toml::table &table;
};

/* The parsed root, and a node for every table handed out, as long as the file lives. */
struct TomlFile::Parsed {
	toml::table root;
	mutable std::deque<TomlTableNode> tables;

	const TomlTableNode &keep(const toml::table &table) const
	{
		return tables.emplace_back(TomlTableNode{ table });
	}
};

namespace {

SourcePos positionOf(const toml::source_region &region)
{
	return SourcePos{ static_cast<unsigned>(region.begin.line),
			  static_cast<unsigned>(region.begin.column) };
}

SourcePos positionOf(const toml::node &node)
{
	return positionOf(node.source());
}

/* "an integer", as in "expected a string, found an integer". */
const char *typeName(const toml::node &node)
{
	switch (node.type()) {
	case toml::node_type::table:
		return "a table";
	case toml::node_type::array:
		return "an array";
	case toml::node_type::string:
		return "a string";
	case toml::node_type::integer:
		return "an integer";
	case toml::node_type::floating_point:
		return "a float";
	case toml::node_type::boolean:
		return "a boolean";
	case toml::node_type::date:
		return "a date";
	case toml::node_type::time:
		return "a time";
	case toml::node_type::date_time:
		return "a date-time";
	case toml::node_type::none:
		break;
	}
	return "nothing";
}

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

/*
 * toml++'s words for a syntax error, except where they mislead: a string
 * whose closing quote is missing runs into the line's end, which toml++
 * calls "unescaped control characters".
 */
std::string syntaxProblem(std::string_view text, SourcePos at, std::string_view description)
{
	size_t lineStart = 0;
	for (unsigned line = 1; line < at.line && lineStart != std::string_view::npos; line++) {
		lineStart = text.find('\n', lineStart);
		lineStart = lineStart == std::string_view::npos ? lineStart : lineStart + 1;
	}
	if (lineStart != std::string_view::npos &&
	    description.find("unescaped control characters") != std::string_view::npos) {
		const std::string_view line =
			text.substr(lineStart, text.find('\n', lineStart) - lineStart);
		if (at.column > line.size())
			return "unterminated string: its closing quote is missing on this line";
	}
	return std::string(description);
}

std::string wrongTypeMessage(const toml::node &node, std::string_view expected)
{
	return "expected " + std::string(expected) + ", found " + typeName(node);
}

/* The node of `key`, recorded in the report at its value; nullptr when absent. */
const toml::node *find(const toml::table &table, const std::string &field, std::string_view key,
		       SpecReport &report)
{
	const toml::node *node = table.get(key);
	if (node != nullptr)
		report.record(field, positionOf(*node));
	return node;
}

/* The value of `key` when it has type T; absent or reported as the wrong type, nothing. */
template<typename T>
std::optional<T> readValue(const toml::table &table, const std::string &field, std::string_view key,
			   SpecReport &report, std::string_view expected)
{
	const toml::node *node = find(table, field, key, report);
	if (node == nullptr)
		return std::nullopt;
	if (const auto *value = node->as<T>())
		return value->get();
	report.error(field, positionOf(*node), wrongTypeMessage(*node, expected));
	return std::nullopt;
}

} /* namespace */

std::vector<std::string> valuesOf(const std::vector<StringItem> &items)
{
	std::vector<std::string> values;
	values.reserve(items.size());
	for (const StringItem &item : items)
		values.push_back(item.value);
	return values;
}

TomlTable::TomlTable(const TomlFile &file, const TomlTableNode &node, std::string prefix,
		     TableShape shape, SpecReport &report)
	: file_(&file), node_(&node), prefix_(std::move(prefix)), shape_(std::move(shape)),
	  report_(&report)
{
	rejectUnknownKeys();
}

void TomlTable::rejectUnknownKeys()
{
	const std::span<const std::string_view> known = shape_.keys;
	for (const auto &[key, node] : node_->table) {
		const std::string_view name = key.str();
		if (std::find(known.begin(), known.end(), name) != known.end())
			continue;
		SourcePos pos = positionOf(key.source());
		if (pos.line == 0)
			pos = positionOf(node);
		std::string message = shape_.unknownKey ? shape_.unknownKey(name, known)
							: unknownKeyProblem(name, known);
		if (const std::string_view meant = closestMatch(name, known); !meant.empty())
			nearMisses_.emplace_back(meant);
		/* A quoted TOML key may hold anything; the field path is printed escaped. */
		report_->error(field(escaped(name)), pos, std::move(message));
	}
}

std::string TomlTable::field(std::string_view key) const
{
	return joinField(prefix_, key);
}

bool TomlTable::present(std::string_view key) const
{
	return node_->table.contains(key);
}

bool TomlTable::failed(std::string_view key) const
{
	return report_->failed(field(key));
}

void TomlTable::missing(std::string_view key, std::string_view alternative)
{
	/* `pol = "rbd"` is one mistake: its "did you mean 'pool'?" says the key is missing. */
	if (std::find(nearMisses_.begin(), nearMisses_.end(), key) != nearMisses_.end())
		return;
	std::string message = "missing required key " + quoted(key) + " in " + shape_.header;
	if (!alternative.empty())
		message += " (or " + std::string(alternative) + ")";
	report_->error(field(key), report_->locate(prefix_), std::move(message));
}

void TomlTable::check(std::string_view key, const std::optional<std::string> &problem)
{
	if (problem)
		report_->error(field(key), *problem);
}

void TomlTable::check(const StringItem &item, const std::optional<std::string> &problem)
{
	if (problem)
		report_->error(item.field, *problem);
}

std::optional<std::string> TomlTable::readString(std::string_view key)
{
	return readString(key, "a string");
}

std::optional<std::string> TomlTable::readString(std::string_view key, std::string_view expected)
{
	return readValue<std::string>(node_->table, field(key), key, *report_, expected);
}

std::optional<bool> TomlTable::readBool(std::string_view key)
{
	return readValue<bool>(node_->table, field(key), key, *report_, "a boolean");
}

std::optional<int64_t> TomlTable::readInteger(std::string_view key)
{
	return readValue<int64_t>(node_->table, field(key), key, *report_, "an integer");
}

std::optional<std::variant<int64_t, std::string>>
TomlTable::readIntegerOrString(std::string_view key, std::string_view expected)
{
	const toml::node *node = find(node_->table, field(key), key, *report_);
	if (node == nullptr)
		return std::nullopt;
	if (const auto *integer = node->as_integer())
		return integer->get();
	if (const auto *text = node->as_string())
		return text->get();
	report_->error(field(key), positionOf(*node), wrongTypeMessage(*node, expected));
	return std::nullopt;
}

std::optional<std::vector<StringItem>> TomlTable::readStrings(std::string_view key)
{
	const toml::node *node = find(node_->table, field(key), key, *report_);
	if (node == nullptr)
		return std::nullopt;
	const toml::array *array = node->as_array();
	if (array == nullptr) {
		report_->error(field(key), positionOf(*node),
			       wrongTypeMessage(*node, "an array of strings"));
		return std::nullopt;
	}
	std::vector<StringItem> items;
	for (size_t i = 0; i < array->size(); ++i) {
		const toml::node &element = *array->get(i);
		const std::string elementField = indexField(field(key), i);
		report_->record(elementField, positionOf(element));
		if (const auto *value = element.as_string())
			items.push_back(StringItem{ value->get(), elementField });
		else
			report_->error(elementField, positionOf(element),
				       wrongTypeMessage(element, "a string"));
	}
	return items;
}

std::optional<TomlTable> TomlTable::readTable(std::string_view key, TableShape shape)
{
	const toml::node *node = find(node_->table, field(key), key, *report_);
	if (node == nullptr)
		return std::nullopt;
	if (const toml::table *table = node->as_table())
		return TomlTable(*file_, file_->parsed_->keep(*table), field(key), std::move(shape),
				 *report_);
	report_->error(field(key), positionOf(*node), wrongTypeMessage(*node, "a table"));
	return std::nullopt;
}

std::optional<std::vector<std::optional<TomlTable>>>
TomlTable::readTableArray(std::string_view key, const TableShape &shape)
{
	const toml::node *node = find(node_->table, field(key), key, *report_);
	if (node == nullptr)
		return std::nullopt;
	const toml::array *array = node->as_array();
	if (array == nullptr) {
		report_->error(
			field(key), positionOf(*node),
			wrongTypeMessage(*node, "an array of tables ([[" + field(key) + "]])"));
		return std::nullopt;
	}
	std::vector<std::optional<TomlTable>> tables;
	for (size_t i = 0; i < array->size(); ++i) {
		const toml::node &element = *array->get(i);
		const std::string prefix = indexField(field(key), i);
		report_->record(prefix, positionOf(element));
		if (const toml::table *table = element.as_table()) {
			tables.emplace_back(TomlTable(*file_, file_->parsed_->keep(*table), prefix,
						      shape, *report_));
		} else {
			report_->error(prefix, positionOf(element),
				       wrongTypeMessage(element, "a table"));
			tables.emplace_back(std::nullopt);
		}
	}
	return tables;
}

TomlFile::TomlFile(std::unique_ptr<Parsed> parsed) : parsed_(std::move(parsed))
{
}

TomlFile::~TomlFile() = default;

std::unique_ptr<TomlFile> TomlFile::parse(std::string_view text, const std::string &path,
					  SpecReport &report)
{
	if (const std::optional<TomlGuardProblem> hazard = findTomlHazard(text)) {
		report.error("", SourcePos{ hazard->line, hazard->column }, hazard->message);
		return nullptr;
	}
	try {
		auto parsed = std::make_unique<Parsed>(
			Parsed{ toml::parse(text, std::string_view(path)), {} });
		return std::unique_ptr<TomlFile>(new TomlFile(std::move(parsed)));
	} catch (const toml::parse_error &error) {
		const SourcePos at = positionOf(error.source());
		report.error("", at,
			     "invalid TOML: " + syntaxProblem(text, at, error.description()));
		return nullptr;
	}
}

TomlTable TomlFile::root(TableShape shape, SpecReport &report) const
{
	return { *this, parsed_->keep(parsed_->root), "", std::move(shape), report };
}

std::optional<std::string> readWithoutThrowing(const std::function<void()> &read)
{
	try {
		read();
		return std::nullopt;
	} catch (const std::exception &error) {
		return std::string("internal error while reading: ") + error.what();
	} catch (...) {
		return "internal error while reading: unknown exception";
	}
}

} /* namespace rbdvolume */
