/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The kernel's nbd netlink family, spoken directly over a generic netlink
 * socket (no libnl): resolve the family, then NBD_CMD_RECONFIGURE one
 * setting of a device. The request names the device's backend cookie, and
 * the kernel compares it under its own lock with the cookie the device
 * carries: a device that has meanwhile gone to another volume's rbd-nbd is
 * refused. The kernel skips the comparison for a device that carries no
 * cookie at all (connected through the ioctl interface), so the caller
 * reads the cookie from sysfs right before asking; what is left is a
 * window of a system call in which our device would have to be torn down
 * and connected afresh by another program.
 */
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "common/result.hpp"

namespace rbdvolume {

/* The bytes of each request, built apart from the socket so tests can read them. */
std::vector<uint8_t> genlFamilyRequest(const std::string &family, uint32_t seq);
std::vector<uint8_t> nbdTimeoutRequest(uint16_t family, uint32_t seq, uint32_t index,
				       const std::string &cookie, uint64_t seconds);

/* The reply to genlFamilyRequest for FAMILY: its id, or the kernel's error. */
Result<uint16_t> genlFamilyId(std::span<const uint8_t> reply, uint32_t seq,
			      const std::string &family);
/* The answer to a request sent with NLM_F_ACK (the reconfigure): done, or the kernel's errno. */
Result<void> netlinkAck(std::span<const uint8_t> reply, uint32_t seq);

/* The id of the generic netlink family NAME, asked of the running kernel. */
Result<uint16_t> genlFamilyOf(const std::string &name);

/*
 * Sets nbd's own request timeout (NBD_ATTR_TIMEOUT, what rbd-nbd's
 * --io-timeout sets) of DEVICE ("/dev/nbdN") if it still carries COOKIE.
 * Every reply is awaited at most NetlinkReplyTimeoutSec.
 */
constexpr int NetlinkReplyTimeoutSec = 5;
Result<void> setNbdRequestTimeout(const std::string &device, const std::string &cookie,
				  uint64_t seconds);

} /* namespace rbdvolume */
