/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SpecReport: field positions and diagnostics of one spec file. */
#include "config/spec_report.hpp"

#include <algorithm>
#include <utility>

namespace rbdvolume {

namespace {

/* "publish[1].path" -> "publish[1]" -> "publish" -> "". */
std::string_view parentField(std::string_view field)
{
	const size_t cut = field.find_last_of(".[");
	return cut == std::string_view::npos ? std::string_view{} : field.substr(0, cut);
}

} /* namespace */

SpecReport::SpecReport(std::string file) : file_(std::move(file))
{
}

void SpecReport::record(const std::string &field, SourcePos pos)
{
	positions_.insert_or_assign(field, pos);
}

bool SpecReport::has(std::string_view field) const
{
	return positions_.contains(field);
}

SourcePos SpecReport::locate(std::string_view field) const
{
	for (;;) {
		const auto it = positions_.find(field);
		if (it != positions_.end())
			return it->second;
		if (field.empty())
			return SourcePos{ 1, 1 };
		field = parentField(field);
	}
}

void SpecReport::error(const std::string &field, SourcePos pos, std::string message)
{
	failed_.insert(field);
	diagnostics_.push_back(
		Diagnostic{ file_, pos.line, pos.column, field, std::move(message) });
}

void SpecReport::error(const std::string &field, std::string message)
{
	error(field, locate(field), std::move(message));
}

void SpecReport::fileError(std::string message)
{
	diagnostics_.push_back(Diagnostic{ file_, 0, 0, {}, std::move(message) });
}

bool SpecReport::failed(std::string_view field) const
{
	for (auto it = failed_.lower_bound(field); it != failed_.end(); ++it) {
		const std::string_view name = *it;
		if (name.substr(0, field.size()) != field)
			break;
		if (name.size() == field.size() || name[field.size()] == '.' ||
		    name[field.size()] == '[')
			return true;
	}
	return false;
}

std::vector<Diagnostic> SpecReport::take()
{
	std::stable_sort(diagnostics_.begin(), diagnostics_.end(),
			 [](const Diagnostic &a, const Diagnostic &b) {
				 if (a.line != b.line)
					 return a.line < b.line;
				 return a.column < b.column;
			 });
	return std::exchange(diagnostics_, {});
}

} /* namespace rbdvolume */
