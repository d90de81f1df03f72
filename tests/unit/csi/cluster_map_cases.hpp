/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the cluster map tests of both forms share: an invalid case and the lines it reports. */
#pragma once

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "csi/cluster_map.hpp"

namespace rbdvolume::csi::cases {

/* One invalid file and exactly what is reported about it. */
struct InvalidCase {
	const char *name;
	const char *text;
	std::vector<std::string> expected; /* without the "FILE:" prefix */
};

/* How gtest names a case in its output. */
inline std::ostream &operator<<(std::ostream &out, const InvalidCase &invalid)
{
	return out << invalid.name;
}

/* Every diagnostic as "FILE:LINE:COL: field: message". */
inline std::vector<std::string> messages(const ClusterMapOutcome &outcome)
{
	std::vector<std::string> lines;
	lines.reserve(outcome.diagnostics.size());
	for (const Diagnostic &diagnostic : outcome.diagnostics)
		lines.push_back(diagnostic.format());
	return lines;
}

/* The case's expected lines, each after "FILE:". */
inline std::vector<std::string> expectedLines(std::string_view file, const InvalidCase &invalid)
{
	std::vector<std::string> lines;
	lines.reserve(invalid.expected.size());
	for (const std::string &line : invalid.expected)
		lines.push_back(std::string(file) + ":" + line);
	return lines;
}

} /* namespace rbdvolume::csi::cases */
