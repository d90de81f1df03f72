/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Which mapping driver a volume uses: the spec's, or for "auto" the best the host has. */
#pragma once

#include "config/volume_spec.hpp"
#include "host/mapping_discovery.hpp"

namespace rbdvolume {

/*
 * `requested` unless it is Auto; then krbd when the rbd module is loaded
 * (/sys/bus/rbd), else nbd when the nbd module is (/sys/module/nbd), else
 * fuse, which needs neither. Never Auto.
 */
Driver chooseDriver(const SystemRoots &roots, Driver requested);

/* For auto, when krbd cannot map the image: nbd when its module is loaded, else fuse. */
Driver driverAfterKrbd(const SystemRoots &roots);

} /* namespace rbdvolume */
