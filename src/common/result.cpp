/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "common/result.hpp"

#include <array>

namespace rbdvolume {

namespace {

constexpr std::array<const char *, static_cast<size_t>(Errc::Count)> ErrcNames = {
	"invalid-argument",  "not-found",   "conflict", "busy",	       "timeout",
	"permission-denied", "unsupported", "io",	"unreachable", "shutting-down",
	"disconnected",	     "blocklisted", "internal",
};

} /* namespace */

const char *errcName(Errc code)
{
	const auto index = static_cast<size_t>(code);
	return index < ErrcNames.size() ? ErrcNames.at(index) : "unknown";
}

} /* namespace rbdvolume */
