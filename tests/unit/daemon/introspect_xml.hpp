/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A tag scanner for D-Bus introspection XML, and the flat shape of an interface to compare. */
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"

namespace rbdvolume::testing {

struct XmlElement {
	std::string name;
	std::map<std::string, std::string> attributes;
	std::vector<XmlElement> children;
};

/*
 * The document's root element. Comments, <!DOCTYPE ...>, <?...?> and text
 * are skipped; attribute values may use either quote and the five
 * predefined entities. Enough for introspection data, not a general parser.
 */
Result<XmlElement> parseXml(std::string_view text);

/*
 * Every member of `interface` within `node`, one line each, with what a
 * client relies on: "method Up", "method Up arg 1 wait b in", "property
 * Phase s read", "property Name annotation
 * org.freedesktop.DBus.Property.EmitsChangedSignal=const", "signal S arg 0
 * name s". An EmitsChangedSignal of "true" is the default and is left out, as
 * sd-bus leaves it out. nullopt when the node has no such interface.
 */
std::optional<std::set<std::string>> interfaceShape(const XmlElement &node,
						    const std::string &interface);

/* The lines of `contract` the `actual` shape lacks, and those it has beyond the contract. */
std::vector<std::string> shapeDifferences(const std::set<std::string> &contract,
					  const std::set<std::string> &actual);

} /* namespace rbdvolume::testing */
