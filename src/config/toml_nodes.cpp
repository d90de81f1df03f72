/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "config/toml_nodes.hpp"

namespace rbdvolume {

SourcePos positionOf(const toml::source_region &region)
{
	return SourcePos{ static_cast<unsigned>(region.begin.line),
			  static_cast<unsigned>(region.begin.column) };
}

SourcePos positionOf(const toml::node &node)
{
	return positionOf(node.source());
}

const char *typeName(const toml::node &node)
{
	switch (node.type()) {
	case toml::node_type::table:
		return "a table";
	case toml::node_type::array:
		return "an array";
	case toml::node_type::string:
		return "a string";
	case toml::node_type::integer:
		return "an integer";
	case toml::node_type::floating_point:
		return "a float";
	case toml::node_type::boolean:
		return "a boolean";
	case toml::node_type::date:
		return "a date";
	case toml::node_type::time:
		return "a time";
	case toml::node_type::date_time:
		return "a date-time";
	case toml::node_type::none:
		break;
	}
	return "nothing";
}

} /* namespace rbdvolume */
