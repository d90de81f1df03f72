/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* One problem in a file we read (a spec, the daemon's config, a cluster map). */
#pragma once

#include <string>

namespace rbdvolume {

/* One problem in a file, located precisely enough to fix it. */
struct Diagnostic {
	std::string file;
	unsigned line = 0; /* 1-based; 0 when the problem has no place in the file */
	unsigned column = 0;
	std::string field;   /* "map.driver", "publish[1].path"; "" for the whole file */
	std::string message; /* "expected one of 'krbd', 'nbd', 'fuse', 'auto', found 'rbd'" */

	/* "FILE:LINE:COL: FIELD: MESSAGE" (the place and field parts only when known). */
	std::string format() const;
};

} /* namespace rbdvolume */
