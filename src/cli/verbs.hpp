/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The verbs of rbd-volumectl: one function each, dispatched from main.cpp's table. */
#pragma once

#include <span>
#include <string_view>

namespace rbdvolume::cli {

/* Exit codes shared by every verb (documented in --help and docs/cli.md). */
constexpr int ExitOk = 0;
constexpr int ExitFailure = 1;	/* the verb ran and found a problem (an invalid spec, ...) */
constexpr int ExitUsage = 2;	/* bad command line */
constexpr int ExitNoDaemon = 3; /* rbd-volumed cannot be reached: not running, no system bus */
constexpr int ExitDenied = 4;	/* the daemon refused: changing a volume needs root */
constexpr int ExitNoVolume = 5; /* the daemon knows no volume of that name */
/*
 * Not done in time: the cluster, a device or the daemon (--timeout) did not
 * answer; a later try may succeed (up, down: rbd-volumed goes on trying).
 * sysexits' EX_TEMPFAIL: rbd-volume@.service starts again on it (and on
 * no other status listed here: keep its RestartPreventExitStatus= in step).
 */
constexpr int ExitTryAgain = 75;

/* A verb gets its arguments after the verb name; it prints its own output. */
using VerbFunction = int (*)(std::span<const std::string_view> args);

/* `check FILE|DIR...`: validates specs offline, without the daemon. */
int verbCheck(std::span<const std::string_view> args);

/*
 * `import-rbdmap [FILE] [--fstab FILE] [--write] [--dir DIR]`: Ceph's rbdmap
 * file and its fstab entries as volume specs, printed or written (never over a file).
 */
int verbImportRbdmap(std::span<const std::string_view> args);

/* `plan NAME | --spec FILE [--intent up|down]`: the dry run against this host. */
int verbPlan(std::span<const std::string_view> args);

/* `list [--json]`: every volume the daemon knows, with its intent and phase. */
int verbList(std::span<const std::string_view> args);

/* `status [NAME] [--json]`: every property of one volume or of all of them. */
int verbStatus(std::span<const std::string_view> args);

/* `monitor [NAME...] [--json]`: each phase change as it happens, until SIGINT or SIGTERM. */
int verbMonitor(std::span<const std::string_view> args);

/* `metrics [--output FILE]`: the volumes in Prometheus' text format, for node_exporter. */
int verbMetrics(std::span<const std::string_view> args);

/* `is-up NAME... [--quiet]`: exit 0 when every volume is up; each phase printed. */
int verbIsUp(std::span<const std::string_view> args);

/* `up NAME`, `down NAME` [--no-wait] [--timeout S] [--progress] [--verbose]: set the intent. */
int verbUp(std::span<const std::string_view> args);
int verbDown(std::span<const std::string_view> args);

/* `reconcile [NAME]` [--timeout S] [--progress] [--verbose]: one pass now, waiting for it. */
int verbReconcile(std::span<const std::string_view> args);

/* `reload` [--timeout S] [--verbose]: the daemon re-reads its spec directories. */
int verbReload(std::span<const std::string_view> args);

/* `rotate-key NAME --new-keyfile FILE`: the volume's keyfile key replaced, on this host. */
int verbRotateKey(std::span<const std::string_view> args);

} /* namespace rbdvolume::cli */
