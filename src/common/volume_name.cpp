/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "common/volume_name.hpp"

#include "common/char_class.hpp"

namespace rbdvolume {

std::optional<std::string> volumeNameProblem(std::string_view name)
{
	if (name.empty())
		return "a volume name cannot be empty";
	if (name.size() > MaxVolumeNameLength)
		return "a volume name has at most " + std::to_string(MaxVolumeNameLength) +
		       " characters, this one has " + std::to_string(name.size());
	if (!isAsciiAlnum(name.front()))
		return "a volume name starts with a letter or a digit";
	for (const char c : name) {
		if (!isAsciiAlnum(c) && c != '_' && c != '.')
			return std::string("a volume name has only letters, digits, '_' and '.', "
					   "not '") +
			       c + "'";
	}
	return {};
}

bool isValidVolumeName(std::string_view name)
{
	return !volumeNameProblem(name);
}

} /* namespace rbdvolume */
