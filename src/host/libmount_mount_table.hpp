/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The MountTable port over libmount: mountinfo merged with utab (our markers). */
#pragma once

#include "engine/ports.hpp"

namespace rbdvolume {

class LibmountMountTable : public MountTable
{
public:
	Result<std::vector<MountEntry>> read() override;
};

/* The mount on `target` that is visible now (the top of its stack), if any. */
Result<std::optional<MountEntry>> visibleMount(const std::string &target);

} /* namespace rbdvolume */
