/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A draft's VolumeSpec from what its rbdmap line and its fstab entries say. */
#pragma once

#include "import/draft.hpp"

namespace rbdvolume::importer {

/*
 * Fills in draft.spec (cluster, map, mode, filesystem, staging options,
 * publish targets) from draft.params and the fstab entries matched to it,
 * noting in draft.messages what changed or was left out; a reason to give no
 * spec at all sets draft.skipped. The name is chosen later.
 */
void buildSpec(Draft &draft, const ImportSource &rbdmap, const ImportSource &fstab);

} /* namespace rbdvolume::importer */
