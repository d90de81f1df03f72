/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SpecReport: where each field of one spec file was written, and what is wrong with it. */
#pragma once

#include <functional>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "config/diagnostic.hpp"

namespace rbdvolume {

struct SourcePos {
	unsigned line = 0; /* 1-based; 0 for the file as a whole */
	unsigned column = 0;
};

/*
 * Collects the diagnostics of one spec file. The parser records the position
 * of every field it meets ("map.driver", "publish[1].path", table headers as
 * "map.krbd"), so the cross-field checks, which see only the VolumeSpec, can
 * still point at the right line.
 */
class SpecReport
{
public:
	explicit SpecReport(std::string file);

	void record(const std::string &field, SourcePos pos);
	bool has(std::string_view field) const;

	/* The field's position, else its nearest recorded parent's, else 1:1. */
	SourcePos locate(std::string_view field) const;

	void error(const std::string &field, SourcePos pos, std::string message);
	/* At the recorded position of `field` (see locate()). */
	void error(const std::string &field, std::string message);
	/* A problem of the file itself (its name, its size): no line. */
	void fileError(std::string message);

	/* True when an error was reported for `field` or anything below it. */
	bool failed(std::string_view field) const;
	bool empty() const { return diagnostics_.empty(); }

	/* The diagnostics in file order (line, then column; ties keep report order). */
	std::vector<Diagnostic> take();

private:
	std::string file_;
	std::map<std::string, SourcePos, std::less<>> positions_;
	std::set<std::string, std::less<>> failed_;
	std::vector<Diagnostic> diagnostics_;
};

} /* namespace rbdvolume */
