/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Turning a failed rbd, rbd-nbd or systemctl run into an Error with the right class. */
#pragma once

#include <string>

#include "common/result.hpp"
#include "host/command_runner.hpp"

namespace rbdvolume {

/* The errno a Ceph tool names as "(N) text" (cpp_strerror) in `message`; 0 when none. */
int cephToolErrno(const std::string &message);

/* The class of the rbd tool failing with `err`: errcFromErrno(), but EINVAL and ENXIO say more. */
Errc errcForErrno(int err);

/* "<what>: exit status 22: rbd: map failed: (22) Invalid argument", classed by that errno. */
tl::unexpected<Error> toolFailure(const std::string &what, const CommandOutput &output);

} /* namespace rbdvolume */
