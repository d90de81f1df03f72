/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "common/state_file.hpp"

#include <algorithm>
#include <charconv>

namespace rbdvolume {

namespace {

const StateKey *findKey(const StateSchema &schema, std::string_view name)
{
	const auto it = std::find_if(schema.keys.begin(), schema.keys.end(),
				     [name](const StateKey &key) { return key.name == name; });
	return it == schema.keys.end() ? nullptr : &*it;
}

std::optional<uint64_t> decimal(std::string_view text)
{
	uint64_t value = 0;
	const char *end = text.data() + text.size();
	const auto [ptr, ec] = std::from_chars(text.data(), end, value);
	if (text.empty() || ec != std::errc() || ptr != end)
		return std::nullopt;
	return value;
}

/* What is wrong with `value` for `key`; nothing when it fits. Values are never quoted: they are ours. */
std::optional<std::string> valueProblem(const StateKey &key, std::string_view value)
{
	if (value.find_first_of(std::string_view("\n\0", 2)) != std::string_view::npos)
		return "a newline or NUL in " + std::string(key.name);
	switch (key.value) {
	case StateValue::Text:
		return std::nullopt;
	case StateValue::Path:
		if (value.empty() || value.front() != '/')
			return "expected an absolute path for " + std::string(key.name);
		return std::nullopt;
	case StateValue::Number:
		if (!decimal(value))
			return "expected a number for " + std::string(key.name);
		return std::nullopt;
	case StateValue::Flag:
		if (value != "1")
			return "expected 1 for " + std::string(key.name);
		return std::nullopt;
	case StateValue::YesNo:
		if (value != "yes" && value != "no")
			return "expected yes or no for " + std::string(key.name);
		return std::nullopt;
	}
	return std::nullopt;
}

/* " in an ownership record", or nothing for a schema without a name. */
std::string in(const StateSchema &schema)
{
	return schema.what.empty() ? std::string() : " in " + std::string(schema.what);
}

/* A key worth quoting back: never the content of a file that is no record. */
bool isPlainKey(std::string_view key)
{
	return !key.empty() && key.size() <= 32 &&
	       key.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-") ==
		       std::string_view::npos;
}

} /* namespace */

std::optional<std::string> StateFields::text(std::string_view key) const
{
	for (const StateLine &line : lines_) {
		if (line.key == key)
			return line.value;
	}
	return std::nullopt;
}

std::vector<std::string> StateFields::all(std::string_view key) const
{
	std::vector<std::string> values;
	for (const StateLine &line : lines_) {
		if (line.key == key)
			values.push_back(line.value);
	}
	return values;
}

bool StateFields::flag(std::string_view key) const
{
	const std::optional<std::string> value = text(key);
	return value == "1" || value == "yes";
}

uint64_t StateFields::number(std::string_view key, uint64_t fallback) const
{
	const std::optional<std::string> value = text(key);
	if (!value)
		return fallback;
	return decimal(*value).value_or(fallback);
}

Result<StateFields> parseStateText(std::string_view text, const std::string &path,
				   const StateSchema &schema)
{
	std::vector<StateLine> lines;
	unsigned number = 0;
	size_t start = 0;
	while (start < text.size()) {
		const size_t end = std::min(text.find('\n', start), text.size());
		const std::string_view line = text.substr(start, end - start);
		start = end + 1;
		number++;
		if (line.empty() || line.front() == '#')
			continue;
		const auto problem = [&](const std::string &what) {
			return fail(Errc::InvalidArgument,
				    path + ":" + std::to_string(number) + ": " + what + in(schema));
		};
		const size_t eq = line.find('=');
		const std::string_view name = line.substr(0, eq);
		const StateKey *key = findKey(schema, name);
		if (eq == std::string_view::npos || !isPlainKey(name))
			return problem("a line that is no key");
		if (key == nullptr)
			return problem("unknown key '" + std::string(name) + "'");
		const std::string_view value = line.substr(eq + 1);
		if (const auto wrong = valueProblem(*key, value))
			return problem(*wrong);
		const bool seen =
			std::any_of(lines.begin(), lines.end(),
				    [key](const StateLine &l) { return l.key == key->name; });
		if (seen && !key->repeated)
			return problem(std::string(key->name) + " given twice");
		lines.push_back(StateLine{ key->name, std::string(value), number });
	}
	for (const StateKey &key : schema.keys) {
		const bool present =
			std::any_of(lines.begin(), lines.end(),
				    [&key](const StateLine &l) { return l.key == key.name; });
		if (key.required && !present)
			return fail(Errc::InvalidArgument,
				    path + ": no " + std::string(key.name) + "= line" + in(schema));
	}
	return StateFields(std::move(lines));
}

StateWriter::StateWriter(const StateSchema &schema, std::string_view comment)
	: schema_(schema), text_("# " + std::string(comment) + "\n")
{
}

void StateWriter::add(std::string_view key, std::string_view value)
{
	const StateKey *known = findKey(schema_, key);
	if (problem_.empty()) {
		if (known == nullptr)
			problem_ = "the key " + std::string(key) + " is not in the schema";
		else if (const auto wrong = valueProblem(*known, value))
			problem_ = *wrong;
	}
	text_ += std::string(key) + '=' + std::string(value) + '\n';
}

void StateWriter::addNumber(std::string_view key, uint64_t value)
{
	add(key, std::string_view(std::to_string(value)));
}

void StateWriter::addFlag(std::string_view key, bool value)
{
	const StateKey *known = findKey(schema_, key);
	if (known != nullptr && known->value == StateValue::Flag) {
		if (value)
			add(key, std::string_view("1"));
		return;
	}
	add(key, std::string_view(value ? "yes" : "no"));
}

Result<std::string> StateWriter::text() const
{
	if (!problem_.empty())
		return fail(Errc::InvalidArgument, problem_ + ", not written" + in(schema_));
	return text_;
}

} /* namespace rbdvolume */
