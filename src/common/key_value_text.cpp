/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "common/key_value_text.hpp"

#include <sstream>

namespace rbdvolume {

std::vector<KeyValue> parseKeyValueText(const std::string &text)
{
	std::vector<KeyValue> pairs;
	std::istringstream in(text);
	std::string line;
	unsigned number = 0;
	while (std::getline(in, line)) {
		number++;
		if (line.empty() || line.front() == '#')
			continue;
		const size_t eq = line.find('=');
		pairs.push_back(KeyValue{ line.substr(0, eq),
					  eq == std::string::npos ? "" : line.substr(eq + 1),
					  number });
	}
	return pairs;
}

} /* namespace rbdvolume */
