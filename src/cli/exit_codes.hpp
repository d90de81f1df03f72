/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A failed verb: its Error on stderr in the operator's words, and the exit code it means. */
#pragma once

#include <string_view>

#include "common/result.hpp"

namespace rbdvolume::cli {

/*
 * The exit code of a verb that failed with `error` (see verbs.hpp):
 * Unreachable is ExitNoDaemon, PermissionDenied ExitDenied, NotFound (only
 * NoSuchVolume is, see bus/errors.hpp) ExitNoVolume, Timeout ExitTryAgain,
 * anything else ExitFailure.
 */
int exitCodeFor(const Error &error);

/*
 * Prints "rbd-volumectl: SUBJECT: MESSAGE" on stderr (control characters but
 * line breaks escaped); with `json`, also one line on stdout for a script,
 * {"error":{"class":"not-found","message":..,"exit":5}} (the class is
 * errcName's). Returns exitCodeFor(error).
 */
int reportFailure(std::string_view subject, const Error &error, bool json = false);

} /* namespace rbdvolume::cli */
