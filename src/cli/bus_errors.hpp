/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Bus errors in the operator's words, and the exit code each one means; pure. */
#pragma once

#include <string_view>

#include "common/result.hpp"

namespace rbdvolume::cli {

/*
 * An error reply (its D-Bus error name and message) as an Error whose message
 * is the one line rbd-volumectl prints:
 *
 *   org.rbdvolume1.Error.NoSuchVolume    NotFound          exit 5
 *   org.rbdvolume1.Error.SpecInvalid     InvalidArgument   exit 1
 *   org.rbdvolume1.Error.Conflict        Conflict          exit 1
 *   org.rbdvolume1.Error.Timeout         Timeout           exit 1
 *   org.rbdvolume1.Error.Busy            Busy              exit 1
 *   org.rbdvolume1.Error.NotFound        Io                exit 1 (an image or device)
 *   org.rbdvolume1.Error.Failed (other)  Io                exit 1
 *   org.rbdvolume1.Error.ShuttingDown    ShuttingDown      exit 1
 *   ...DBus.Error.AccessDenied           PermissionDenied  exit 4
 *   ...DBus.Error.ServiceUnknown,
 *      NameHasNoOwner, Disconnected,
 *      NoServer                          Unreachable       exit 3
 *   ...DBus.Error.NoReply                Timeout           exit 1
 *   ...DBus.Error.InvalidArgs            InvalidArgument   exit 1
 */
Error errorFromBus(std::string_view name, std::string_view message);

/* A failed sd-bus call without an error reply (a negative errno), while doing `what`. */
Error errorFromErrno(int negativeErrno, std::string_view what);

/* "rbd-volumed cannot be reached" (Errc::Unreachable), `detail` saying why. */
Error daemonUnreachable(std::string_view detail);

bool isDaemonUnreachable(const Error &error);

/*
 * The daemon went away while the call waited (NoReply, a Timeout with
 * ECONNRESET: it was killed or stopped), or it was stopping (ShuttingDown): a call worth making again
 * once it is back, since up and down are idempotent.
 */
bool isDaemonGone(const Error &error);

/* The exit code of a verb that failed with `error` (see verbs.hpp). */
int exitCodeFor(const Error &error);

/*
 * Prints "rbd-volumectl: SUBJECT: MESSAGE" on stderr (control characters but
 * line breaks escaped); returns exitCodeFor(error).
 */
int reportFailure(std::string_view subject, const Error &error);

} /* namespace rbdvolume::cli */
