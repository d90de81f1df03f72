/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "host/drivers/krbd/udev_disk_watch.hpp"

#include <unistd.h>

#include "common/errno_text.hpp"

namespace rbdvolume {

Result<UdevDiskWatch> UdevDiskWatch::start()
{
	UdevDiskWatch watch;
	if (access("/run/udev/control", F_OK) != 0)
		return watch;
	sd_event *event = nullptr;
	int r = sd_event_new(&event);
	if (r < 0)
		return failErrno("sd_event_new", -r);
	watch.event_.reset(event);
	sd_device_monitor *monitor = nullptr;
	r = sd_device_monitor_new(&monitor);
	if (r < 0)
		return failErrno("listening to udev", -r);
	watch.monitor_.reset(monitor);
	r = sd_device_monitor_filter_add_match_subsystem_devtype(monitor, "block", "disk");
	if (r >= 0)
		r = sd_device_monitor_attach_event(monitor, event);
	if (r >= 0)
		r = sd_device_monitor_start(monitor, &UdevDiskWatch::onEvent, watch.seen_.get());
	if (r < 0)
		return failErrno("listening to udev", -r);
	return watch;
}

int UdevDiskWatch::onEvent(sd_device_monitor * /*monitor*/, sd_device *device, void *userdata)
{
	sd_device_action_t action = _SD_DEVICE_ACTION_INVALID;
	const char *sysname = nullptr;
	if (sd_device_get_action(device, &action) < 0 ||
	    sd_device_get_sysname(device, &sysname) < 0)
		return 0;
	auto *seen = static_cast<std::set<std::string> *>(userdata);
	if (action == SD_DEVICE_ADD)
		seen->insert(std::string("add ") + sysname);
	else if (action == SD_DEVICE_REMOVE)
		seen->insert(std::string("remove ") + sysname);
	return 0;
}

Result<void> UdevDiskWatch::waitForAdd(const std::string &sysname, std::chrono::milliseconds limit)
{
	return waitFor("add " + sysname, limit);
}

Result<void> UdevDiskWatch::waitForRemove(const std::string &sysname,
					  std::chrono::milliseconds limit)
{
	return waitFor("remove " + sysname, limit);
}

Result<void> UdevDiskWatch::waitFor(const std::string &event, std::chrono::milliseconds limit)
{
	if (!monitor_)
		return {};
	const auto deadline = std::chrono::steady_clock::now() + limit;
	while (!seen_->contains(event)) {
		const auto left = std::chrono::duration_cast<std::chrono::microseconds>(
			deadline - std::chrono::steady_clock::now());
		if (left.count() <= 0)
			return fail(Errc::Timeout,
				    "udev did not announce \"" + event + "\" within " +
					    std::to_string(limit.count() / 1000) +
					    " s (is systemd-udevd running? a host without it "
					    "says \"noudev\" in map.krbd.options)",
				    ETIMEDOUT);
		const int r = sd_event_run(event_.get(), static_cast<uint64_t>(left.count()));
		if (r < 0)
			return failErrno("waiting for udev", -r);
	}
	return {};
}

} /* namespace rbdvolume */
