/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The integration suite's scratch space and its clean-up of loop devices. */
#pragma once

#include <string>

namespace rbdvolume::testing {

/* Mounts a tmpfs scratch directory and points LIBMOUNT_UTAB into it; "" on success. */
std::string setUpScratch();

/* The scratch directory (a tmpfs private to this process's mount namespace). */
const std::string &scratchDir();

/* A fresh, empty directory below the scratch directory. */
std::string freshDir(const std::string &name);

/* Detaches our loops, unmounts the scratch tmpfs and removes its directory. */
void tearDownScratch();

/* Detaches every loop device backed by a file in the scratch directory. */
void detachOurLoops();

} /* namespace rbdvolume::testing */
