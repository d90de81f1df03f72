/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Which image each fstab entry mounts: the /dev/rbd/ path that rbdmap's mount(8) call names. */
#pragma once

#include <vector>

#include "import/draft.hpp"

namespace rbdvolume::importer {

/*
 * Each fstab entry on the /dev/rbd/ path of an image in `drafts` goes to that
 * draft (its whole image or a partition of it); entries on kernel names
 * (/dev/rbdN) and on images the rbdmap file does not list are said in
 * `unmatched`.
 */
void matchFstab(const std::vector<FstabEntry> &entries, std::vector<Draft> &drafts,
		const ImportSource &rbdmap, const ImportSource &fstab,
		std::vector<ImportMessage> &unmatched);

} /* namespace rbdvolume::importer */
