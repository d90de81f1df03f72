/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A VolumeSpec written back as spec TOML: parseVolumeSpec(renderVolumeSpec(s)) gives s again. */
#pragma once

#include <string>
#include <string_view>

#include "config/spec_parser.hpp"
#include "config/volume_spec.hpp"

namespace rbdvolume {

/*
 * Every key written out explicitly, in the order of conf/example.toml, so a
 * reader needs no defaults. `header` (may be empty) becomes '#' comment lines
 * at the top; it must not hold secrets.
 */
std::string renderVolumeSpec(const VolumeSpec &spec, std::string_view header = {});

/*
 * A spec built in code, checked by the parser itself: rendered, then read
 * back as the file `path` (its stem is the volume's name). The outcome's
 * spec is complete (defaults applied) when there is no diagnostic.
 */
SpecOutcome checkBuiltSpec(const VolumeSpec &spec, const std::string &path);

} /* namespace rbdvolume */
