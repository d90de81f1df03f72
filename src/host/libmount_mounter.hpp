/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The Mounter port over libmount's context API (utab markers, bind+remount done right). */
#pragma once

#include "engine/ports.hpp"

namespace rbdvolume {

/*
 * Every mount carries `_netdev` (so systemd orders it with the network at
 * shutdown) and our marker `x-rbd-volume=NAME` (so a restart recognises it);
 * both live in utab. A target that already shows the wanted mount is left
 * alone; one that shows anything else is refused, never stacked over.
 */
class LibmountMounter : public Mounter
{
public:
	Result<Change> mount(const MountRequest &request) override;
	Result<Change> bind(const MountRequest &request) override;
	Result<Change> unmount(const std::string &target) override;
};

} /* namespace rbdvolume */
