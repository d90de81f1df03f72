/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "host/mountinfo.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <functional>
#include <optional>
#include <unordered_map>

#include "host/mount_marker.hpp"

namespace rbdvolume {

namespace {

bool isOctal(char c)
{
	return c >= '0' && c <= '7';
}

/* The kernel's and libmount's escapes: "\040" for a space, "\134" for '\'. */
std::string unescaped(std::string_view field)
{
	std::string out;
	out.reserve(field.size());
	for (size_t i = 0; i < field.size(); i++) {
		if (field[i] == '\\' && i + 3 < field.size() && isOctal(field[i + 1]) &&
		    isOctal(field[i + 2]) && isOctal(field[i + 3])) {
			out += static_cast<char>(((field[i + 1] - '0') << 6) |
						 ((field[i + 2] - '0') << 3) |
						 (field[i + 3] - '0'));
			i += 3;
		} else {
			out += field[i];
		}
	}
	return out;
}

/* The next field up to a single space; the kernel prints an empty source as "". */
std::string_view nextField(std::string_view &rest)
{
	const size_t space = rest.find(' ');
	const std::string_view field = rest.substr(0, space);
	rest = space == std::string_view::npos ? std::string_view() : rest.substr(space + 1);
	return field;
}

/* Calls `each` with every option of a comma-separated string; quotes keep commas. */
template<typename Each> void forEachOption(std::string_view options, Each each)
{
	bool quoted = false;
	size_t start = 0;
	for (size_t i = 0; i <= options.size(); i++) {
		if (i < options.size() && options[i] == '"')
			quoted = !quoted;
		if (i == options.size() || (options[i] == ',' && !quoted)) {
			if (i > start)
				each(options.substr(start, i - start));
			start = i + 1;
		}
	}
}

bool hasOption(std::string_view options, std::string_view name)
{
	bool found = false;
	forEachOption(options, [&](std::string_view option) { found = found || option == name; });
	return found;
}

Result<MountEntry> parseLine(std::string_view line)
{
	const auto bad = [&line] {
		return fail(Errc::Io, "/proc/self/mountinfo: cannot parse the line '" +
					      std::string(line) + "'");
	};
	std::string_view rest = line;
	std::array<std::string_view, 6> fixed{}; /* id, parent, maj:min, root, target, options */
	for (std::string_view &field : fixed) {
		if (rest.empty())
			return bad();
		field = nextField(rest);
	}
	/* Optional fields ("shared:1", "master:2") end at a lone "-". */
	while (!rest.empty() && nextField(rest) != "-") {
	}
	if (rest.empty())
		return bad();
	const std::string_view fsType = nextField(rest);
	if (rest.empty())
		return bad();
	const std::string_view source = nextField(rest);

	MountEntry entry;
	entry.root = unescaped(fixed[3]);
	entry.target = unescaped(fixed[4]);
	entry.readOnly = hasOption(fixed[5], "ro");
	entry.fsType = unescaped(fsType);
	entry.source = unescaped(source);
	return entry;
}

/* What a utab line and its entry share; a source's trailing '/' does not count. */
struct JoinKey {
	std::string_view target;
	std::string_view root;
	std::string_view source;

	bool operator==(const JoinKey &) const = default;
};

JoinKey keyOf(std::string_view target, std::string_view root, std::string_view source)
{
	if (source.size() > 1 && source.back() == '/')
		source.remove_suffix(1);
	return { target, root, source };
}

struct JoinKeyHash {
	size_t operator()(const JoinKey &key) const
	{
		const std::hash<std::string_view> hash;
		size_t h = hash(key.target);
		h = h * 31 + hash(key.root);
		return h * 31 + hash(key.source);
	}
};

/* Sets the field a "NAME=value" token names; tokens already set stay, as in libmount. */
void takeToken(UtabLine &line, std::string_view token, bool &hasSource, bool &hasTarget,
	       bool &hasRoot)
{
	const auto value = [&token](size_t prefix) { return unescaped(token.substr(prefix)); };
	if (!hasSource && token.starts_with("SRC=")) {
		line.source = value(4);
		hasSource = true;
	} else if (!hasTarget && token.starts_with("TARGET=")) {
		line.target = value(7);
		hasTarget = true;
	} else if (!hasRoot && token.starts_with("ROOT=")) {
		line.root = value(5);
		hasRoot = true;
	} else if (line.userOptions.empty() && token.starts_with("OPTS=")) {
		line.userOptions = value(5);
	} else if (token.starts_with("ATTRS=")) {
		line.hasAttributes = token.size() > 6;
	}
}

} /* namespace */

Result<std::vector<MountEntry>> parseMountinfo(std::string_view text)
{
	std::vector<MountEntry> entries;
	entries.reserve(static_cast<size_t>(std::count(text.begin(), text.end(), '\n')));
	while (!text.empty()) {
		const size_t end = text.find('\n');
		const std::string_view line = text.substr(0, end);
		text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
		if (line.empty())
			continue;
		auto entry = parseLine(line);
		if (!entry)
			return tl::make_unexpected(entry.error());
		entries.push_back(std::move(*entry));
	}
	return entries;
}

std::vector<UtabLine> parseUtab(std::string_view text)
{
	std::vector<UtabLine> lines;
	while (!text.empty()) {
		const size_t end = text.find('\n');
		std::string_view rest = text.substr(0, end);
		text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
		if (rest.starts_with('#'))
			continue;
		UtabLine line;
		bool hasSource = false;
		bool hasTarget = false;
		bool hasRoot = false;
		while (!rest.empty()) {
			const std::string_view token = nextField(rest);
			if (!token.empty())
				takeToken(line, token, hasSource, hasTarget, hasRoot);
		}
		if (hasSource && hasTarget && hasRoot)
			lines.push_back(std::move(line));
	}
	return lines;
}

void applyOwners(std::vector<MountEntry> &entries, const std::vector<UtabLine> &utab)
{
	/* Each key's entries bottom to top: a line takes the top one left. */
	std::unordered_map<JoinKey, std::vector<size_t>, JoinKeyHash> stacks;
	stacks.reserve(entries.size());
	for (size_t i = 0; i < entries.size(); i++) {
		const MountEntry &e = entries[i];
		stacks[keyOf(e.target, e.root, e.source)].push_back(i);
	}
	/* The newest line first: it belongs to the newest, topmost mount. */
	for (size_t n = utab.size(); n-- > 0;) {
		const auto &line = utab[n];
		if (line.userOptions.empty() && !line.hasAttributes)
			continue;
		const auto stack = stacks.find(keyOf(line.target, line.root, line.source));
		if (stack == stacks.end() || stack->second.empty())
			continue;
		entries[stack->second.back()].owner = optionValue(line.userOptions, MarkerOption);
		stack->second.pop_back();
	}
}

std::string optionValue(std::string_view options, std::string_view name)
{
	/* The first one, as libmount's mnt_optstr_get_option() answers. */
	std::optional<std::string> value;
	forEachOption(options, [&](std::string_view option) {
		if (!value && option.size() > name.size() && option.starts_with(name) &&
		    option[name.size()] == '=')
			value = option.substr(name.size() + 1);
	});
	return value.value_or("");
}

} /* namespace rbdvolume */
