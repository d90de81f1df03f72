/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The verbs of rbd-volumectl: one function each, dispatched from main.cpp's table. */
#pragma once

#include <span>
#include <string_view>

namespace rbdvolume::cli {

/* Exit codes shared by every verb (documented in --help and docs/volume-spec.md). */
constexpr int ExitOk = 0;
constexpr int ExitFailure = 1; /* the verb ran and found a problem (an invalid spec, ...) */
constexpr int ExitUsage = 2;   /* bad command line */

/* A verb gets its arguments after the verb name; it prints its own output. */
using VerbFunction = int (*)(std::span<const std::string_view> args);

/* `check FILE|DIR...`: validates specs offline, without the daemon. */
int verbCheck(std::span<const std::string_view> args);

/* `plan NAME | --spec FILE [--intent up|down]`: the dry run against this host. */
int verbPlan(std::span<const std::string_view> args);

} /* namespace rbdvolume::cli */
