/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "host/mount_monitor.hpp"

#include <libmount/libmount.h>

#include "common/errno_text.hpp"

namespace rbdvolume {

Result<std::unique_ptr<MountMonitor>> MountMonitor::create()
{
	MntMonitorPtr monitor(mnt_new_monitor());
	if (!monitor)
		return fail(Errc::Io, "cannot create a mount monitor", ENOMEM);
	const int r = mnt_monitor_enable_kernel(monitor.get(), 1);
	const int fd = r < 0 ? r : mnt_monitor_get_fd(monitor.get());
	if (fd < 0)
		return failErrno("cannot watch the mount table", -fd);
	return std::unique_ptr<MountMonitor>(new MountMonitor(std::move(monitor), fd));
}

int MountMonitor::fd() const
{
	return fd_;
}

bool MountMonitor::drain()
{
	bool changed = false;
	const char *file = nullptr;
	int type = 0;
	while (mnt_monitor_next_change(monitor_.get(), &file, &type) == 0)
		changed = true;
	return changed;
}

} /* namespace rbdvolume */
