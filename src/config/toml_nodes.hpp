/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the spec library's TOML readers say about a node: where it is, what it is. */
#pragma once

#include <toml++/toml.h>

#include "config/spec_report.hpp"

namespace rbdvolume {

SourcePos positionOf(const toml::source_region &region);
SourcePos positionOf(const toml::node &node);

/* "an integer", as in "expected a string, found an integer". */
const char *typeName(const toml::node &node);

} /* namespace rbdvolume */
