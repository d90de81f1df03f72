/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The entries of an fstab file, read by libmount's fstab parser as mount(8) reads them. */
#include "import/fstab_file.hpp"

#include <cstdio>
#include <optional>
#include <string_view>
#include <utility>

#include <libmount/libmount.h>

#include "common/c_handle.hpp"
#include "common/errno_text.hpp"

namespace rbdvolume::importer {

namespace {

int closeStream(std::FILE *stream)
{
	return std::fclose(stream);
}

using MntTablePtr = CHandle<libmnt_table, mnt_unref_table>;
using StreamPtr = CHandle<std::FILE, closeStream>;

/* libmount's error callback has no context argument: the table's userdata is the flag to set. */
int noteRefused(libmnt_table *table, const char * /*filename*/, int /*line*/)
{
	*static_cast<bool *>(mnt_table_get_userdata(table)) = true;
	return 1; /* recoverable: skip the line, as mount(8) does */
}

std::string text(const char *value)
{
	return value != nullptr ? std::string(value) : std::string();
}

/* Options split as libmount splits them (quotes kept); nullopt when it cannot read them all. */
std::optional<std::vector<std::string>> splitOptions(const char *optstr)
{
	std::vector<std::string> options;
	std::string copy = text(optstr);
	char *cursor = copy.data();
	char *name = nullptr;
	char *value = nullptr;
	size_t nameSize = 0;
	size_t valueSize = 0;
	while (mnt_optstr_next_option(&cursor, &name, &nameSize, &value, &valueSize) == 0) {
		std::string option(name, nameSize);
		if (value != nullptr)
			option += '=' + std::string(value, valueSize);
		options.push_back(std::move(option));
	}
	if (cursor != nullptr && *cursor != '\0')
		return std::nullopt; /* an unterminated quote */
	return options;
}

/* The blank-separated words of a line libmount refused, its escapes decoded by libmount. */
std::vector<std::string> words(std::string_view line)
{
	std::vector<std::string> out;
	while (!line.empty()) {
		const size_t start = line.find_first_not_of(" \t");
		if (start == std::string_view::npos)
			break;
		line.remove_prefix(start);
		const size_t end = line.find_first_of(" \t");
		const std::string word(line.substr(0, end));
		const Malloced<char> decoded(mnt_unmangle(word.c_str()));
		out.emplace_back(decoded ? decoded.get() : word.c_str());
		line.remove_prefix(end == std::string_view::npos ? line.size() : end);
	}
	return out;
}

/* What one line is: nothing (a comment, a blank line), an entry, or a problem. */
struct LineRead {
	std::optional<FstabEntry> entry;
	std::optional<std::string> problem;
};

/*
 * One line through libmount's parser. libmount keeps no line number per
 * entry, and every message names one: so each line is a table of its own.
 */
LineRead readLine(std::string_view line, unsigned number, const std::string &path)
{
	if (line.empty())
		return {}; /* fmemopen() wants at least a byte */
	std::string buffer(line);
	bool refused = false;
	const MntTablePtr table(mnt_new_table());
	const StreamPtr stream(::fmemopen(buffer.data(), buffer.size(), "r"));
	if (!table || !stream)
		return { {}, "libmount cannot read this line: out of memory" };
	mnt_table_set_userdata(table.get(), &refused);
	mnt_table_set_parser_errcb(table.get(), noteRefused);
	if (const int rc = mnt_table_parse_stream(table.get(), stream.get(), path.c_str()); rc < 0)
		return { {}, "libmount cannot read this line: " + errnoText(-rc) };

	libmnt_fs *fs = nullptr;
	if (!refused && mnt_table_first_fs(table.get(), &fs) == 0) {
		std::optional<std::vector<std::string>> options =
			splitOptions(mnt_fs_get_options(fs));
		if (!options)
			return { {},
				 "libmount cannot read the options of this entry (an unterminated "
				 "quote): not imported" };
		return { FstabEntry{ number, text(mnt_fs_get_source(fs)),
				     text(mnt_fs_get_target(fs)), text(mnt_fs_get_fstype(fs)),
				     std::move(*options), mnt_fs_get_passno(fs) },
			 {} };
	}
	if (!refused)
		return {}; /* a comment or a blank line */

	/* libmount wants a mount point and a type; these short forms were always read here. */
	std::vector<std::string> fields = words(line);
	if (fields.size() == 1 || fields.size() == 2) {
		fields.resize(2);
		return { FstabEntry{ number, fields[0], fields[1], "auto", {}, 0 }, {} };
	}
	return { {}, "libmount cannot parse this line; mount(8) skips it, and so does the import" };
}

} /* namespace */

FstabFile readFstab(const ImportSource &fstab)
{
	FstabFile file;
	std::string_view rest = fstab.text;
	for (unsigned number = 1; !rest.empty(); ++number) {
		const size_t end = rest.find('\n');
		LineRead read = readLine(rest.substr(0, end), number, fstab.path);
		rest.remove_prefix(end == std::string_view::npos ? rest.size() : end + 1);
		if (read.entry)
			file.entries.push_back(std::move(*read.entry));
		if (read.problem)
			file.messages.push_back({ ImportLevel::Warning,
						  fstab.path,
						  number,
						  std::move(*read.problem),
						  {} });
	}
	return file;
}

} /* namespace rbdvolume::importer */
