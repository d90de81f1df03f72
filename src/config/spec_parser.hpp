/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Reading volume spec v1 from TOML: the only place that knows TOML. */
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"
#include "config/diagnostic.hpp"
#include "config/volume_spec.hpp"

namespace rbdvolume {

struct SpecOutcome {
	VolumeSpec spec;		     /* complete only when diagnostics is empty */
	std::vector<Diagnostic> diagnostics; /* every problem in the file, in file order */

	bool ok() const { return diagnostics.empty(); }
};

/*
 * Parses and validates spec text. `path` names the file in diagnostics and
 * gives the volume name (its stem); the file is not read.
 */
SpecOutcome parseVolumeSpec(std::string_view text, const std::string &path);

/* Reads `path` and parses it; an unreadable file is one diagnostic. */
SpecOutcome loadVolumeSpec(const std::string &path);

/*
 * A spec file's text: at most 1 MiB, a regular file (or a link to one),
 * never blocking. nullopt when it does not exist; an error reads after
 * "PATH: ".
 */
Result<std::optional<std::string>> readSpecFile(const std::string &path);

/* What loadVolumeSpec() makes of what readSpecFile() gave. */
SpecOutcome volumeSpecFrom(const Result<std::optional<std::string>> &text, const std::string &path);

} /* namespace rbdvolume */
