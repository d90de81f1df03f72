/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The one format of the small state files under /run/rbd-volume: "key=value"
 * lines, '#' comments, read against a schema that names every key, what its
 * value must be and whether it may repeat. Strict both ways: an unknown key,
 * a value of the wrong form, a key given twice or a required one missing is
 * an error naming the file and line; a value that would break the format (a
 * newline, a NUL) is never written. docs/architecture.md lists every file.
 */
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"

namespace rbdvolume {

enum class StateValue {
	Text,	/* anything on one line, "" too */
	Path,	/* an absolute path */
	Number, /* a decimal integer, 0 to 2^64-1 */
	Flag,	/* "1": written only when set */
	YesNo,	/* "yes" or "no" */
};

struct StateKey {
	std::string_view name;
	StateValue value;
	bool repeated = false; /* may appear more than once, in order */
	bool required = false;
};

struct StateSchema {
	std::string_view what; /* "an ownership record", in messages ("" adds nothing) */
	std::span<const StateKey> keys;
};

/* One value read, and the line it came from. */
struct StateLine {
	std::string_view key; /* the schema's name, so it outlives the text */
	std::string value;
	unsigned line = 0;
};

/* A state file's lines as its schema allowed them, in file order. */
class StateFields
{
public:
	explicit StateFields(std::vector<StateLine> lines) : lines_(std::move(lines)) {}

	/* The value of a key that appears once; nullopt when absent. */
	std::optional<std::string> text(std::string_view key) const;
	/* Every value of a repeated key, in file order. */
	std::vector<std::string> all(std::string_view key) const;
	/* A Flag or YesNo key: set ("1", "yes") or not (absent, "no"). */
	bool flag(std::string_view key) const;
	/* A Number key; `fallback` when absent. */
	uint64_t number(std::string_view key, uint64_t fallback = 0) const;
	const std::vector<StateLine> &lines() const { return lines_; }

private:
	std::vector<StateLine> lines_;
};

/* Errc::InvalidArgument, "PATH:LINE: ..." (or "PATH: ..." for a missing key). */
Result<StateFields> parseStateText(std::string_view text, const std::string &path,
				   const StateSchema &schema);

/* Builds a state file's text: a comment line, then the keys in the order added. */
class StateWriter
{
public:
	StateWriter(const StateSchema &schema, std::string_view comment);

	void add(std::string_view key, std::string_view value);
	void addNumber(std::string_view key, uint64_t value);
	/* A Flag is written only when set; a YesNo always. */
	void addFlag(std::string_view key, bool value);

	/* The text, or Errc::InvalidArgument naming the first key whose value breaks the schema. */
	Result<std::string> text() const;

private:
	const StateSchema &schema_;
	std::string text_;
	std::string problem_;
};

} /* namespace rbdvolume */
