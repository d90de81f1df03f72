/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The mount table as libmount reads and joins it (mnt_table_parse_mtab:
 * mountinfo and utab): the reference host/mountinfo is held against, and
 * the way it is timed against in bench-mount-table.
 */
#pragma once

#include <vector>

#include "engine/model.hpp"

namespace rbdvolume::testing {

/* Empty when libmount cannot read it. */
std::vector<MountEntry> libmountTable();

} /* namespace rbdvolume::testing */
