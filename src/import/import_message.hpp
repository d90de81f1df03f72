/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The import's input files, and what it says about them: notes, warnings, errors at a line. */
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace rbdvolume::importer {

enum class ImportLevel : uint8_t {
	Note,	 /* something changed in translation, on purpose */
	Warning, /* something not carried over, or an image left out */
	Error,	 /* a line that could not be read, a spec that would be invalid */
};

/* One message of the import, tied to a line of an input file when it has one. */
struct ImportMessage {
	ImportLevel level = ImportLevel::Note;
	std::string file; /* "" when it concerns no file */
	unsigned line = 0;
	std::string text;
	std::string volume; /* the volume it concerns (and whose header repeats it), or "" */

	/* "FILE:LINE: warning: TEXT" ("FILE: ..." without a line, "warning: ..." without a file). */
	std::string format() const;
};

/* An input file: the name messages use, and its text. */
struct ImportSource {
	std::string path;
	std::string_view text;
};

/* "FILE:LINE", as messages and spec headers name a line. */
std::string place(const std::string &file, unsigned line);

} /* namespace rbdvolume::importer */
