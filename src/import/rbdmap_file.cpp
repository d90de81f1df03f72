/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Ceph's rbdmap file read as /usr/bin/rbdmap reads it: its lines, their IMAGESPEC and RBDOPTS. */
#include "import/rbdmap_file.hpp"

#include <array>
#include <utility>

#include "common/text_escape.hpp"
#include "config/spec_values.hpp"

namespace rbdvolume::importer {

/*
 * What rbdmap (ceph-common's /usr/bin/rbdmap) does with a line, and so what
 * this reads: `while read DEV PARAMS` (bash, no -r: a backslash keeps the
 * next character, a backslash-newline joins lines); DEV empty or starting
 * with '#' is skipped; a DEV without '/' is in pool "rbd";
 * create_cmd_params() turns PARAMS into "--key value" arguments; then
 * `rbd device map $DEV $CMDPARAMS` (krbd unless --device-type says
 * otherwise), and only when that newly mapped the image `mount
 * /dev/rbd/$DEV`, which mounts the /etc/fstab entry of that device path
 * whatever its options ("noauto" included: it only keeps `mount -a` and
 * systemd's boot from mounting it before the device exists, rbdmap(8)).
 */

namespace {

constexpr std::string_view DefaultPool = "rbd";

bool isBlank(char c)
{
	return c == ' ' || c == '\t';
}

/* Whether params[at] starts a run of '=' that ends the entry, as base64 padding does. */
bool endsEntry(std::string_view params, size_t at)
{
	const size_t after = params.find_first_not_of('=', at);
	return after == std::string_view::npos || params[after] == ',';
}

/* The entry being read by parseRbdmapParams(). */
struct ParamReader {
	std::string key;
	std::string value;
	bool hasValue = false;
	bool quoted = false;

	void append(char c) { (hasValue ? value : key) += c; }
};

} /* namespace */

std::vector<RbdmapLine> readRbdmapLines(std::string_view text)
{
	std::vector<RbdmapLine> lines;
	unsigned physical = 1;
	size_t i = 0;
	while (i < text.size()) {
		RbdmapLine current;
		current.line = physical;
		bool inDev = true;
		size_t keep = 0; /* params up to its last character that is not a trailing blank */
		for (; i < text.size(); ++i) {
			char c = text[i];
			bool literal = false;
			if (c == '\\') {
				if (i + 1 == text.size())
					continue;
				c = text[++i];
				if (c == '\n') {
					++physical;
					continue;
				}
				literal = true;
			} else if (c == '\n') {
				++physical;
				++i;
				break;
			} else if (c == '\r' && (i + 1 == text.size() || text[i + 1] == '\n')) {
				continue;
			}
			const bool blank = !literal && isBlank(c);
			if (inDev) {
				if (!blank)
					current.dev += c;
				else if (!current.dev.empty())
					inDev = false;
				continue;
			}
			if (blank && current.params.empty())
				continue;
			current.params += c;
			if (!blank)
				keep = current.params.size();
		}
		current.params.resize(keep);
		lines.push_back(std::move(current));
	}
	return lines;
}

Result<RbdmapParams> parseRbdmapParams(std::string_view params)
{
	/* create_cmd_params() stops at the first '#', quoted or not. */
	params = params.substr(0, params.find('#'));
	while (!params.empty() && isBlank(params.back()))
		params.remove_suffix(1);

	RbdmapParams parsed;
	ParamReader entry;
	char quote = 0;
	bool doubleQuotes = false;
	bool quotedBlank = false;
	const auto finishEntry = [&parsed, &entry]() -> Result<void> {
		if (entry.key.empty() && (entry.hasValue || entry.quoted))
			return fail(Errc::InvalidArgument,
				    "expected KEY=VALUE, found an entry without a key");
		if (!entry.key.empty())
			parsed.params.push_back({ entry.key, entry.hasValue
								     ? std::optional(entry.value)
								     : std::nullopt });
		entry = {};
		return {};
	};

	for (size_t at = 0; at < params.size(); ++at) {
		const char c = params[at];
		if (quote != 0) {
			if (c == quote)
				quote = 0;
			else
				entry.append(c);
			quotedBlank = quotedBlank || isBlank(c);
		} else if (c == '\'' || c == '"') {
			quote = c;
			entry.quoted = true;
			doubleQuotes = doubleQuotes || c == '"';
		} else if (c == ',') {
			Result<void> done = finishEntry();
			if (!done)
				return tl::make_unexpected(done.error());
		} else if (c == '=' && !entry.hasValue) {
			entry.hasValue = true;
		} else if (c == '=' && !endsEntry(params, at)) {
			/* Values are never quoted back: this one may be a secret. */
			return fail(
				Errc::InvalidArgument,
				"another unquoted '=' inside the value of '" + entry.key +
					"': rbdmap turns it into a blank; quote the value ('...')");
		} else if (isBlank(c)) {
			return fail(Errc::InvalidArgument,
				    "an unquoted blank in the options: rbdmap split its rbd "
				    "arguments there, so `rbd device map` cannot have worked; join "
				    "the options with ',' (and quote values with blanks)");
		} else {
			/* Also a trailing '=' (base64 padding): rbdmap's blanks there vanished. */
			entry.append(c);
		}
	}
	if (quote != 0)
		return fail(Errc::InvalidArgument,
			    std::string("unterminated ") + (quote == '\'' ? "'" : "\"") +
				    " quote (rbdmap ends the options at '#', even inside quotes)");
	Result<void> done = finishEntry();
	if (!done)
		return tl::make_unexpected(done.error());

	if (doubleQuotes)
		parsed.warnings.emplace_back(
			"double quotes are not quotes to rbdmap (only ' is): it passed them on to "
			"rbd as part of the value; read here as quotes, check the values");
	if (quotedBlank)
		parsed.warnings.emplace_back(
			"a quoted value holds a blank: rbdmap passed its rbd arguments unquoted, "
			"so the value was split there; imported whole, as quoted");
	return parsed;
}

Result<ImageSpec> parseRbdmapImage(std::string_view spec)
{
	const auto bad = [spec](const std::string &why) {
		return fail(Errc::InvalidArgument,
			    "expected POOL/[NAMESPACE/]IMAGE[@SNAP], found " + quoted(spec) +
				    (why.empty() ? "" : ": " + why));
	};
	ImageSpec image;
	std::string_view rest = spec;
	if (const size_t at = rest.find('@'); at != std::string_view::npos) {
		image.snapshot = rest.substr(at + 1);
		rest = rest.substr(0, at);
		if (const auto problem = rbdNameProblem(image.snapshot))
			return bad("snapshot: " + *problem);
	}
	std::vector<std::string> parts;
	while (true) {
		const size_t slash = rest.find('/');
		parts.emplace_back(rest.substr(0, slash));
		if (slash == std::string_view::npos)
			break;
		rest.remove_prefix(slash + 1);
	}
	if (parts.size() > 3)
		return bad("");
	image.name = parts.back();
	image.pool = parts.size() == 1 ? std::string(DefaultPool) : parts.front();
	if (parts.size() == 3)
		image.radosNamespace = parts[1];

	const std::array<std::pair<const char *, const std::string *>, 3> names = { {
		{ "pool", &image.pool },
		{ "namespace", &image.radosNamespace },
		{ "image", &image.name },
	} };
	for (const auto &[what, name] : names) {
		if (name == &image.radosNamespace && parts.size() != 3)
			continue;
		if (const auto problem = rbdNameProblem(*name))
			return bad(std::string(what) + ": " + *problem);
	}
	return image;
}

} /* namespace rbdvolume::importer */
