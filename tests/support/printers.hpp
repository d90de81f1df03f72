/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* How test failures print engine values (gtest finds PrintTo by argument lookup). */
#pragma once

#include <ostream>

#include "engine/diff.hpp"
#include "engine/model.hpp"

namespace rbdvolume {

void PrintTo(const Ownership &record, std::ostream *out);
void PrintTo(const Gap &gap, std::ostream *out);
void PrintTo(const Conflict &conflict, std::ostream *out);
void PrintTo(const ObservedMount &mount, std::ostream *out);

} /* namespace rbdvolume */
