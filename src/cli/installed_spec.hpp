/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The spec of an installed volume, for the verbs that act on the host without the daemon. */
#pragma once

#include <string>

#include "common/result.hpp"
#include "config/volume_spec.hpp"

namespace rbdvolume::cli {

/* Found in the spec directories as the daemon finds it; an invalid spec is InvalidArgument. */
Result<VolumeSpec> installedSpec(const std::string &name);

} /* namespace rbdvolume::cli */
