/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Ceph's rbdmap file read as /usr/bin/rbdmap reads it: its lines, their IMAGESPEC and RBDOPTS. */
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"
#include "config/volume_spec.hpp"

namespace rbdvolume::importer {

/* One line of the file as `read DEV PARAMS` splits it. */
struct RbdmapLine {
	unsigned line = 0; /* the first physical line */
	std::string dev;
	std::string params;
};

/* The lines of an rbdmap file as `read DEV PARAMS` splits them, comments and blank lines included. */
std::vector<RbdmapLine> readRbdmapLines(std::string_view text);

/* One RBDOPTS entry: "key=value", or a bare "key" (value unset). */
struct RbdmapParam {
	std::string key;
	std::optional<std::string> value;

	bool operator==(const RbdmapParam &) const = default;
};

struct RbdmapParams {
	std::vector<RbdmapParam> params;
	std::vector<std::string> warnings; /* quoting rbdmap itself would have got wrong */
};

/*
 * RBDOPTS as rbdmap's create_cmd_params() reads them: ',' separates entries,
 * the first unquoted '=' splits key and value, single quotes protect both,
 * and '#' ends the list (even inside quotes). Also read here, with a
 * warning, because rbdmap could not have used them: double quotes as quotes,
 * and blanks inside quotes. An unquoted blank, a second unquoted '=' and an
 * unterminated quote are errors.
 */
Result<RbdmapParams> parseRbdmapParams(std::string_view params);

/* IMAGESPEC: "POOL/[NAMESPACE/]IMAGE[@SNAP]", or "IMAGE" in pool "rbd". */
Result<ImageSpec> parseRbdmapImage(std::string_view spec);

} /* namespace rbdvolume::importer */
