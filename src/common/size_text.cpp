/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "common/size_text.hpp"

#include <array>

namespace rbdvolume {

namespace {

struct Unit {
	const char *name;
	uint64_t bytes;
};

constexpr std::array<Unit, 5> Units = { {
	{ "PiB", uint64_t{ 1 } << 50 },
	{ "TiB", uint64_t{ 1 } << 40 },
	{ "GiB", uint64_t{ 1 } << 30 },
	{ "MiB", uint64_t{ 1 } << 20 },
	{ "KiB", uint64_t{ 1 } << 10 },
} };

} /* namespace */

std::string sizeText(uint64_t bytes)
{
	for (const Unit &unit : Units) {
		if (bytes != 0 && bytes % unit.bytes == 0)
			return std::to_string(bytes / unit.bytes) + " " + unit.name;
	}
	return std::to_string(bytes) + " bytes";
}

} /* namespace rbdvolume */
