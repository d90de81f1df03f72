/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Errors across the bus, both ways: the error name rbd-volumed replies with
 * for an Errc, and the Error a client makes of a reply (its name and
 * message) or of a failed sd-bus call. Pure: no connection needed.
 */
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/result.hpp"

namespace rbdvolume::bus {

/* The daemon's error name for an Errc ("org.rbdvolume1.Error.Timeout", ...). */
const char *errorName(Errc code);

/*
 * An error reply (its D-Bus error name and message) as an Error whose message
 * is the one line a client shows:
 *
 *   org.rbdvolume1.Error.NoSuchVolume    NotFound
 *   org.rbdvolume1.Error.SpecInvalid     InvalidArgument
 *   org.rbdvolume1.Error.Conflict        Conflict
 *   org.rbdvolume1.Error.Timeout         Timeout
 *   org.rbdvolume1.Error.Busy            Busy
 *   org.rbdvolume1.Error.NotFound        Io (an image or device of the spec)
 *   org.rbdvolume1.Error.Failed (other)  Io
 *   org.rbdvolume1.Error.ShuttingDown    ShuttingDown
 *   ...DBus.Error.AccessDenied           PermissionDenied
 *   ...DBus.Error.ServiceUnknown,
 *      NameHasNoOwner, Disconnected,
 *      NoServer                          Unreachable
 *   ...DBus.Error.NoReply                Disconnected (the daemon left mid-call)
 *   ...DBus.Error.InvalidArgs            InvalidArgument
 */
Error errorFromBus(std::string_view name, std::string_view message);

/* A failed sd-bus call without an error reply (a negative errno), while doing `what`. */
Error errorFromErrno(int negativeErrno, std::string_view what);

/*
 * A call that got no reply within `seconds` (Errc::Timeout): rbd-volumed
 * carries on, and the message says where to look (the status of `volume`,
 * or of every volume when it is "").
 */
Error noReplyWithin(uint64_t seconds, const std::string &volume);

/* "rbd-volumed cannot be reached" (Errc::Unreachable), `detail` saying why. */
Error daemonUnreachable(std::string_view detail);

/*
 * The daemon went away while the call waited (NoReply: it was killed or
 * stopped), or it was stopping (ShuttingDown): a call worth making again once
 * it is back, since up and down are idempotent.
 */
bool isDaemonGone(const Error &error);

} /* namespace rbdvolume::bus */
