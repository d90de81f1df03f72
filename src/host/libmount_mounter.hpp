/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The Mounter port: the kernel's mount calls on descriptors, our marker in libmount's utab. */
#pragma once

#include <chrono>

#include "engine/ports.hpp"

namespace rbdvolume {

/*
 * Every mount carries `_netdev` (so systemd orders it with the network at
 * shutdown) and our marker `x-rbd-volume=NAME` (so a restart recognises it);
 * both live in utab. A target that already shows the wanted mount is left
 * alone; one that shows anything else is refused, never stacked over.
 * Targets and bind sources are reached without following a symbolic link
 * (safe_path.hpp) and the mount goes onto the descriptor; a read-only bind
 * is made read-only before it is attached (open_tree, mount_setattr,
 * move_mount), so it is never writable for a moment.
 */
class LibmountMounter : public Mounter
{
public:
	/* A mount reads its device, an unmount writes back to it: each a boundedCall. */
	explicit LibmountMounter(std::chrono::milliseconds deviceTimeout = std::chrono::seconds(30))
		: deviceTimeout_(deviceTimeout)
	{
	}

	Result<Change> mount(const MountRequest &request) override;
	Result<Change> bind(const MountRequest &request) override;
	Result<Change> unmount(const std::string &target) override;
	Result<Change> detach(const std::string &target) override;
	std::optional<std::string> pathProblem(const std::string &path,
					       MountPointKind kind) override;
	bool mountPointLeft(const std::string &path) override;

private:
	Result<Change> unmountWith(const std::string &target, int flags);

	std::chrono::milliseconds deviceTimeout_;
};

} /* namespace rbdvolume */
