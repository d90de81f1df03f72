/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "csi/device_changes.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <climits>
#include <poll.h>
#include <string_view>

#include <linux/netlink.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

namespace rbdvolume::csi {

namespace {

/* The kernel's own uevents; udev's (group 2) come later and from a process. */
constexpr unsigned KernelGroup = 1;

/* A kernel uevent is "ACTION@DEVPATH\0KEY=VALUE\0...". */
bool isChangeOf(std::string_view event, dev_t device)
{
	std::string_view action;
	std::string_view majorText;
	std::string_view minorText;
	while (!event.empty()) {
		const size_t end = std::min(event.find('\0'), event.size());
		const std::string_view field = event.substr(0, end);
		if (field.starts_with("ACTION="))
			action = field.substr(7);
		else if (field.starts_with("MAJOR="))
			majorText = field.substr(6);
		else if (field.starts_with("MINOR="))
			minorText = field.substr(6);
		event.remove_prefix(std::min(end + 1, event.size()));
	}
	return action == "change" && majorText == std::to_string(major(device)) &&
	       minorText == std::to_string(minor(device));
}

} /* namespace */

DeviceChanges::DeviceChanges()
	: socket_(socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
			 NETLINK_KOBJECT_UEVENT))
{
	sockaddr_nl address{};
	address.nl_family = AF_NETLINK;
	address.nl_groups = KernelGroup;
	if (socket_.valid() &&
	    bind(socket_.get(), reinterpret_cast<const sockaddr *>(&address), sizeof address) < 0)
		socket_.reset();
}

bool DeviceChanges::drain(dev_t device)
{
	bool changed = false;
	std::array<char, 8192> buffer{};
	for (;;) {
		sockaddr_nl from{};
		iovec part{ buffer.data(), buffer.size() };
		msghdr message{};
		message.msg_name = &from;
		message.msg_namelen = sizeof from;
		message.msg_iov = &part;
		message.msg_iovlen = 1;
		const ssize_t got = recvmsg(socket_.get(), &message, 0);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) /* EAGAIN: all read; ENOBUFS: the queue overflowed, ours maybe lost */
			return changed || errno == ENOBUFS;
		/* Only the kernel speaks for a device; anyone else is ignored. */
		if (from.nl_pid == 0 && device != 0 &&
		    isChangeOf({ buffer.data(), static_cast<size_t>(got) }, device))
			changed = true;
	}
}

bool DeviceChanges::wait(const std::string &device, std::chrono::steady_clock::time_point until)
{
	struct stat st {
	};
	/* Not a block device (gone, say): nothing to match, so the wait runs to its end. */
	const dev_t watched =
		stat(device.c_str(), &st) == 0 && S_ISBLK(st.st_mode) ? st.st_rdev : 0;
	for (;;) {
		const auto left = std::chrono::ceil<std::chrono::milliseconds>(
			until - std::chrono::steady_clock::now());
		if (left.count() <= 0)
			return false;
		/* Without a socket, fd -1: poll() only waits. */
		pollfd ready{ socket_.get(), POLLIN, 0 };
		const int n =
			poll(&ready, 1, static_cast<int>(std::min<int64_t>(left.count(), INT_MAX)));
		if (n < 0 && errno != EINTR) {
			if (!socket_.valid())
				return false;
			socket_.reset();
			continue;
		}
		if (n > 0 && drain(watched))
			return true;
	}
}

} /* namespace rbdvolume::csi */
