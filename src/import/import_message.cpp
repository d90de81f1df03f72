/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the import says about its input: notes, warnings, errors at a line. */
#include "import/import_message.hpp"

namespace rbdvolume::importer {

std::string ImportMessage::format() const
{
	const char *levelName = level == ImportLevel::Note	? "note"
				: level == ImportLevel::Warning ? "warning"
								: "error";
	std::string out;
	if (!file.empty())
		out = (line > 0 ? place(file, line) : file) + ": ";
	return out + levelName + ": " + text;
}

std::string place(const std::string &file, unsigned line)
{
	return file + ':' + std::to_string(line);
}

} /* namespace rbdvolume::importer */
