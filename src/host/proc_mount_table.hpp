/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The MountTable port: /proc/self/mountinfo joined with libmount's utab,
 * where our marker lives, each read once and whole (host/mountinfo).
 */
#pragma once

#include "engine/ports.hpp"

namespace rbdvolume {

class ProcMountTable : public MountTable
{
public:
	Result<std::vector<MountEntry>> read() override;
};

/* The mount on `target` that is visible now (the top of its stack), if any. */
Result<std::optional<MountEntry>> visibleMount(const std::string &target);

} /* namespace rbdvolume */
