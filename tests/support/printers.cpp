/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "printers.hpp"

#include <array>

namespace rbdvolume {

namespace {

const char *gapKindName(GapKind kind)
{
	constexpr std::array<const char *, 9> Names = {
		"target-stale", "staging-stale", "mapping-stale", "not-mapped",	 "blank",
		"not-staged",	"not-published", "grow-offline",  "grow-online",
	};
	return Names.at(static_cast<size_t>(kind));
}

} /* namespace */

void PrintTo(const Ownership &record, std::ostream *out)
{
	*out << "{device '" << record.mappedDevice << "'"
	     << (record.mapPending ? " map-pending" : "") << (record.formatted ? " formatted" : "")
	     << (record.staged ? " staged" : "")
	     << (record.sizedBytes != 0 ? " sized " + std::to_string(record.sizedBytes) : "")
	     << " targets [";
	for (size_t i = 0; i < record.publishedTargets.size(); i++)
		*out << (i == 0 ? "" : " ") << record.publishedTargets[i];
	*out << "]}";
}

void PrintTo(const Gap &gap, std::ostream *out)
{
	*out << gapKindName(gap.kind) << " '" << gap.subject << "'";
}

void PrintTo(const Conflict &conflict, std::ostream *out)
{
	*out << conflictKindName(conflict.kind) << " '" << conflict.subject
	     << "': " << conflict.detail;
}

void PrintTo(const ObservedMount &mount, std::ostream *out)
{
	*out << mount.path << " <- '" << mount.device << "' " << mount.fsType
	     << (mount.readOnly ? " ro" : " rw") << (mount.ours ? " ours" : " foreign");
}

} /* namespace rbdvolume */
