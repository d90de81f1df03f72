/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A guard run before protobuf parses JSON that a node's operator wrote. */
#pragma once

#include <cstddef>
#include <string_view>

namespace rbdvolume::csi {

/*
 * The offset of the first '[' or '{' nested deeper than `maxDepth`, outside
 * strings; std::string_view::npos when there is none. protobuf 3.21 refuses
 * such input after a time that grows faster than the square of the depth
 * (seconds at 10000), so it never sees it.
 */
size_t jsonTooDeep(std::string_view text, unsigned maxDepth);

} /* namespace rbdvolume::csi */
