/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "csi/json_depth.hpp"

namespace rbdvolume::csi {

size_t jsonTooDeep(std::string_view text, unsigned maxDepth)
{
	unsigned depth = 0;
	bool inString = false;
	for (size_t i = 0; i < text.size(); ++i) {
		const char c = text[i];
		if (inString) {
			if (c == '\\')
				++i;
			else if (c == '"')
				inString = false;
		} else if (c == '"') {
			inString = true;
		} else if (c == '[' || c == '{') {
			if (++depth > maxDepth)
				return i;
		} else if ((c == ']' || c == '}') && depth > 0) {
			--depth;
		}
	}
	return std::string_view::npos;
}

} /* namespace rbdvolume::csi */
