/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A whole file as a string, for tests that compare what was written. */
#pragma once

#include <fstream>
#include <sstream>
#include <string>

namespace rbdvolume::testing {

/* The file's bytes; "" when it cannot be read (the comparison then says so). */
inline std::string readText(const std::string &path)
{
	std::ifstream in(path, std::ios::binary);
	std::ostringstream text;
	text << in.rdbuf();
	return text.str();
}

} /* namespace rbdvolume::testing */
