/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Runs the built rbd-volumectl ($RBDV_CTL) and collects what it printed and its exit code. */
#pragma once

#include <string>
#include <vector>

namespace rbdvolume::testing {

struct CtlResult {
	int exitCode = -1; /* -1: killed, or could not run */
	std::string out;
	std::string err;
};

/* The binary under test: $RBDV_CTL ("" when unset). */
std::string ctlPath();

/*
 * rbd-volumectl ARGS with DBUS_SYSTEM_BUS_ADDRESS=`busAddress` and `extraEnv`
 * (NAME=VALUE each) in its environment; killed after 20 s. Its stderr is a
 * file, or with `stderrTerminal` a pseudo-terminal (err then has "\n" line ends).
 */
CtlResult runCtl(const std::string &busAddress, const std::vector<std::string> &args,
		 const std::vector<std::string> &extraEnv = {}, bool stderrTerminal = false);

} /* namespace rbdvolume::testing */
