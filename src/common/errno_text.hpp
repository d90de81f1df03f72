/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* An errno in words, and the one table from errno to Errc. */
#pragma once

#include <string>

#include "common/result.hpp"

namespace rbdvolume {

/* strerror that is safe on worker threads. */
std::string errnoText(int err);

/*
 * The error class of a system call's errno (positive):
 *
 *   ENOENT ENXIO                  NotFound
 *   EEXIST ENOTEMPTY              Conflict (something else is there)
 *   EBUSY ETXTBSY                 Busy
 *   EPERM EACCES                  PermissionDenied
 *   ENODEV EOPNOTSUPP ENOSYS      Unsupported
 *   anything else                 Io: EINVAL (a call in a state that refuses
 *                                 it, not bad input of the operator's), and
 *                                 ETIMEDOUT (a call that timed out failed)
 *
 * A caller whose errno means more (librados' ETIMEDOUT leaves the outcome
 * open, the rbd tool's ENXIO is a missing kernel feature and its EINVAL a
 * bad value of the spec, a bus's
 * ECONNREFUSED is an unreachable daemon) says so before asking this table.
 */
Errc errcFromErrno(int err);

/* fail(errcFromErrno(err), "WHAT: STRERROR", err). */
tl::unexpected<Error> failErrno(const std::string &what, int err);

} /* namespace rbdvolume */
