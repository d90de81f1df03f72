/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Which pools the monitors flag full, from `ceph osd pool ls detail`. */
#pragma once

#include <map>
#include <string>
#include <string_view>

namespace rbdvolume {

/*
 * The monitors flag a pool `full` once it reaches its quota (then also
 * `full_quota`) or once an OSD it maps to is full; from then on every
 * client's writes to it wait, or fail with ENOSPC (krbd's abort_on_full).
 * Maps each pool whose line shows `full` to why, for a volume's condition:
 * "the pool 'rbd' is full: its quota of 64 MiB is reached". The text is the
 * monitors' plain answer, one line per pool:
 *
 *     pool 2 'rbd' replicated size 3 ... flags hashpspool,full,full_quota
 *     max_bytes 67108864 stripe_width 0 application rbd
 *
 * Lines of another form are skipped.
 */
std::map<std::string, std::string> fullPools(std::string_view poolList);

} /* namespace rbdvolume */
