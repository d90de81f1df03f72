/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* DaemonConfig: the settings of rbd-volumed (rbd-volumed.toml), validated like a spec. */
#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "config/diagnostic.hpp"
#include "config/tool_config.hpp"
#include "journal/levels.hpp"

namespace rbdvolume {

/*
 * The daemon's settings; every member holds its default until the file says
 * otherwise. docs/daemon-config.md and conf/rbd-volumed.toml describe each
 * key. Durations are whole milliseconds, each greater than 0 and at most one
 * day.
 */
struct DaemonConfig {
	/* [daemon] */
	unsigned workers = 16; /* workers: volumes reconciled at once, 1..64 */
	std::chrono::milliseconds resyncInterval{ 60000 }; /* resync-interval: full pass, >= 1s */
	std::chrono::milliseconds backoffInitial{ 500 };   /* backoff-initial: first retry delay */
	std::chrono::milliseconds backoffMax{ 120000 };	   /* backoff-max: >= backoff-initial */
	unsigned maxPassesPerTrigger = 3;		   /* passes-per-trigger: 1..10 */
	log::Level logLevel = log::Level::Info; /* log-level: changed at run time by LogControl1 */
	/* allowed-mount-roots: staging paths and publish targets must lie below one */
	std::vector<std::string> allowedMountRoots = {
		"/run/rbd-volume",  "/mnt", "/media", "/srv", "/var/lib/rbd-volume",
		"/var/lib/kubelet",
	};

	/* [tools] (absolute paths) and their [timeouts], as the host takes them */
	ToolConfig tools;
	DriverTools driverTools;

	/* the rest of [timeouts] */
	std::chrono::milliseconds unitTimeout{ 90000 };	  /* unit: a systemd job */
	std::chrono::milliseconds cephConnect{ 10000 };	  /* ceph-connect: whole seconds */
	std::chrono::milliseconds cephOperation{ 30000 }; /* ceph-operation: whole seconds */
	/* io-stall: a device's requests unanswered this long degrade its volume */
	std::chrono::milliseconds ioStall{ 10000 };
	/* shutdown-io: once a shutdown begins, an nbd request unanswered this long fails;
	 * whole seconds (the kernel's unit) */
	std::chrono::milliseconds shutdownIo{ 30000 };

	bool operator==(const DaemonConfig &) const = default;
};

struct DaemonConfigOutcome {
	DaemonConfig config;		     /* complete only when diagnostics is empty */
	std::vector<Diagnostic> diagnostics; /* every problem in the file, in file order */

	bool ok() const { return diagnostics.empty(); }
};

/* Parses text; `path` names the file in diagnostics. */
DaemonConfigOutcome parseDaemonConfig(std::string_view text, const std::string &path);

/*
 * Reads and parses `path`. A missing file is not an error: it gives the
 * defaults. An unreadable one is a diagnostic without a line.
 */
DaemonConfigOutcome loadDaemonConfig(const std::string &path);

} /* namespace rbdvolume */
