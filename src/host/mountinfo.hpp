/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The kernel's mount table (/proc/self/mountinfo) and libmount's utab, parsed
 * and joined as libmount joins them, in time linear in their sizes: libmount's
 * own join scans the whole table for each utab line, which a host with
 * thousands of mounts pays on every read.
 */
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"
#include "engine/model.hpp"

namespace rbdvolume {

/* One line of utab: the userspace side of a mount libmount recorded. */
struct UtabLine {
	std::string source;	    /* SRC= */
	std::string target;	    /* TARGET= */
	std::string root;	    /* ROOT= */
	std::string userOptions;    /* OPTS=: "_netdev,x-rbd-volume=data" */
	bool hasAttributes = false; /* ATTRS=: libmount joins a line with only those too */
};

/*
 * mountinfo's lines in the kernel's order (a stack's top last), fields
 * unescaped; `owner` is left empty. A line of another form is an error
 * naming it.
 */
Result<std::vector<MountEntry>> parseMountinfo(std::string_view text);

/* utab's lines; one without SRC=, TARGET= or ROOT= is dropped, as libmount drops it. */
std::vector<UtabLine> parseUtab(std::string_view text);

/*
 * Sets each entry's owner from our marker option in the utab line that is
 * its own. As libmount joins them: each line, newest first, goes to the
 * topmost entry not yet given one with the same target, root and source (a
 * trailing '/' of the source aside); a line that matches no entry is stale
 * and ignored. Without mount IDs in utab (libmount 2.38) a mount stacked
 * between two of ours on one target, with no line of its own, takes the
 * lower line: libmount cannot tell them apart either.
 */
void applyOwners(std::vector<MountEntry> &entries, const std::vector<UtabLine> &utab);

/* The value of option `name` in a comma-separated option string, "" when absent. */
std::string optionValue(std::string_view options, std::string_view name);

} /* namespace rbdvolume */
