/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * allowed-mount-roots (rbd-volumed.toml): a spec's staging path and publish
 * targets must lie below one of them. The daemon refuses a spec that breaks
 * it; `rbd-volumectl check` and `plan --spec` apply the same rule, so what
 * they pass the daemon accepts.
 */
#pragma once

#include <string>
#include <vector>

#include "config/diagnostic.hpp"
#include "config/volume_spec.hpp"

namespace rbdvolume {

/* A diagnostic in `problems` for each path of `spec` below none of `roots`. */
void checkMountRoots(const VolumeSpec &spec, const std::vector<std::string> &roots,
		     std::vector<Diagnostic> &problems);

} /* namespace rbdvolume */
