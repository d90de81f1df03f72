/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rbd-volume-nbd-helper, the ExecStart= of rbd-nbd@NAME.service: which
 * rbd-nbd command line to exec (attach to a device that outlived its server,
 * or map afresh), the ExecStartPost= readiness wait, and the ExecStopPost=
 * that lets a dead server's requests fail. Pure but for sysfs.
 */
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/paths.hpp"
#include "common/result.hpp"
#include "host/drivers/nbd/nbd_config.hpp"
#include "host/mapping_discovery.hpp"

namespace rbdvolume {

/* sysexits.h values, so rbd-nbd@.service's RestartPreventExitStatus= can name them. */
constexpr int HelperUsageExit = 64;  /* EX_USAGE */
constexpr int HelperConfigExit = 78; /* EX_CONFIG */

enum class HelperMode : uint8_t {
	Exec,	   /* ExecStart=: exec rbd-nbd */
	Wait,	   /* --wait, ExecStartPost=: until the device carries the cookie */
	AfterExit, /* --after-exit, ExecStopPost=: rbd-nbd is gone */
};

struct HelperArgs {
	std::string volume;
	std::string configDir{ paths::NbdConfigDir };
	std::string sysfs = "/sys"; /* tests point these at fake trees */
	HelperMode mode = HelperMode::Exec;

	bool operator==(const HelperArgs &) const = default;
};

/* [--wait | --after-exit] [--config-dir DIR] [--sysfs DIR] NAME (argv[0] excluded). */
Result<HelperArgs> parseHelperArgs(const std::vector<std::string> &args);

/*
 * rbd-nbd's argv: `attach --device DEVICE` when `attachDevice` is set, else
 * `map --try-netlink`. -d keeps it in the foreground with its log on stderr,
 * so systemd supervises the very process and the journal keeps its log.
 */
std::vector<std::string> rbdNbdArgv(const NbdVolumeConfig &config, const std::string &attachDevice);

/*
 * The kernel resends a request that was in flight when rbd-nbd died only
 * when the block layer's timer for it fires, and rbd-nbd's io-timeout 0
 * leaves that timer at 30 s: a write caught by a crash waited 30 s after
 * the new server attached. With io-timeout 0 the timer only resends (it
 * never fails a request), so it is set to RequestTimerMs after every map
 * and attach. An io-timeout of the spec's is left alone: there the timer
 * is the timeout.
 */
constexpr unsigned RequestTimerMs = 5000;
Result<void> shortenRequestTimer(const NbdVolumeConfig &config, const SystemRoots &roots,
				 const std::string &device);

/*
 * With io-timeout 0 the kernel never gives up on a request that was in
 * flight on a connection whose server died: Linux (6.1) only resends it
 * once a new server has attached, and otherwise logs "Possible stuck
 * request" for good, while a request sent after the death fails after the
 * reattach timeout. Its own request timeout (nbd's, not the block layer's)
 * makes the timer resend such a request too, and a resent request waits at
 * most the reattach timeout for a server. So once rbd-nbd has exited, the
 * device that still carries the cookie gets DeadServerTimeoutSec; the next
 * attach sets the spec's io-timeout again. A spec's own io-timeout already
 * does this and is left alone. The device to change, if any:
 */
constexpr uint64_t DeadServerTimeoutSec = RequestTimerMs / 1000;
std::optional<std::string> deviceToTimeOut(const NbdVolumeConfig &config, const SystemRoots &roots);

/* The argv to exec: attach when a kernel device still carries the cookie, else map. */
std::vector<std::string> helperExecArgv(const NbdVolumeConfig &config, const SystemRoots &roots);

} /* namespace rbdvolume */
