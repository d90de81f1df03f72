/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Where the spec tests find their data and the rbd-volumectl binary. */
#pragma once

#include <string>
#include <vector>

namespace rbdvolume::test {

/* tests/data, from RBDV_TEST_DATA (set by meson). */
std::string testDataDir();

/* conf/example.toml: RBDV_EXAMPLE_SPEC, else found relative to the test data. */
std::string exampleSpecPath();

/* The built rbd-volumectl, from RBDV_VOLUMECTL; "" when not set. */
std::string volumectlPath();

/* The regular files directly in `dir`, sorted; `suffix` filters by name ending. */
std::vector<std::string> filesIn(const std::string &dir, const std::string &suffix = "");

void writeFile(const std::string &path, const std::string &text);

} /* namespace rbdvolume::test */
