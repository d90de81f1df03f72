/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Diagnostic::format(): the one line a person reads, "FILE:LINE:COL: FIELD: MESSAGE". */
#include "config/diagnostic.hpp"

namespace rbdvolume {

std::string Diagnostic::format() const
{
	std::string out = file;
	if (line != 0)
		out += ':' + std::to_string(line) + ':' + std::to_string(column);
	if (!out.empty())
		out += ": ";
	if (!field.empty())
		out += field + ": ";
	out += message;
	return out;
}

} /* namespace rbdvolume */
