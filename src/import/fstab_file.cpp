/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The entries of an fstab file, as mount(8) reads them. */
#include "import/fstab_file.hpp"

#include <algorithm>

namespace rbdvolume::importer {

namespace {

bool isBlank(char c)
{
	return c == ' ' || c == '\t';
}

/* An fstab field with its octal escapes (\040 for a space) decoded, as libmount reads them. */
std::string unmangle(std::string_view field)
{
	std::string out;
	for (size_t i = 0; i < field.size(); ++i) {
		const auto octal = [](char c) { return c >= '0' && c <= '7'; };
		if (field[i] == '\\' && i + 3 < field.size() && octal(field[i + 1]) &&
		    octal(field[i + 2]) && octal(field[i + 3])) {
			const int code = ((field[i + 1] - '0') << 6) | ((field[i + 2] - '0') << 3) |
					 (field[i + 3] - '0');
			out += static_cast<char>(code & 0xff);
			i += 3;
		} else {
			out += field[i];
		}
	}
	return out;
}

} /* namespace */

/* Every entry of an fstab text: blank and '#' lines skipped, fields split at blanks. */
std::vector<FstabEntry> readFstab(std::string_view text)
{
	std::vector<FstabEntry> entries;
	unsigned number = 0;
	while (!text.empty()) {
		const size_t end = text.find('\n');
		std::string_view line = text.substr(0, end);
		text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
		++number;
		if (line.ends_with('\r'))
			line.remove_suffix(1);

		std::vector<std::string> fields;
		size_t at = 0;
		while (at < line.size()) {
			while (at < line.size() && isBlank(line[at]))
				++at;
			const size_t start = at;
			while (at < line.size() && !isBlank(line[at]))
				++at;
			if (at > start)
				fields.push_back(unmangle(line.substr(start, at - start)));
		}
		if (fields.empty() || fields.front().starts_with('#'))
			continue;
		fields.resize(std::max<size_t>(fields.size(), 6));
		if (fields[2].empty())
			fields[2] = "auto"; /* as mount(8) reads an entry without a type */
		entries.push_back(
			{ number, fields[0], fields[1], fields[2], fields[3], fields[5] });
	}
	return entries;
}

} /* namespace rbdvolume::importer */
