/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "host/device_claim.hpp"

#include <algorithm>
#include <cerrno>
#include <fcntl.h>
#include <thread>

#include "common/unique_fd.hpp"

namespace rbdvolume {

bool deviceClaimed(const std::string &device)
{
	/* O_NONBLOCK: opening an nbd whose server is gone must not wait for it. */
	const UniqueFd exclusive(open(device.c_str(), O_RDONLY | O_EXCL | O_CLOEXEC | O_NONBLOCK));
	return !exclusive.valid() && errno == EBUSY;
}

bool waitUntilUnclaimed(const std::string &device, std::chrono::milliseconds letGo)
{
	using Clock = std::chrono::steady_clock;
	const auto deadline = Clock::now() + letGo;
	/* Most writebacks end within a few polls; a long one is asked less often. */
	auto pause = std::chrono::milliseconds(20);
	while (deviceClaimed(device)) {
		const auto now = Clock::now();
		if (now >= deadline)
			return false;
		std::this_thread::sleep_for(std::min<Clock::duration>(pause, deadline - now));
		pause = std::min(pause * 2, std::chrono::milliseconds(250));
	}
	return true;
}

} /* namespace rbdvolume */
