/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The rbd-volume name of a CSI volume. CSI volume IDs run past the 63
 * characters a volume name may have and hold '-', so the name is "csi_" and
 * 16 hex digits of a hash of the ID; the ID itself is recorded beside the
 * spec (runtime_files.hpp), so two IDs that hash alike are refused, never mixed.
 */
#pragma once

#include <string>
#include <string_view>

namespace rbdvolume::csi {

std::string volumeNameFor(std::string_view volumeId);

} /* namespace rbdvolume::csi */
