/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The standard library and tl::expected, which nearly every file here
 * parses first, precompiled once per library (meson's cpp_pch) instead of in
 * each of its files: <chrono> alone, which C++20 makes pull in the streams
 * and locales, is a fifth of a small file's compile. Headers that never
 * change with this project only, so an edit rebuilds no more than it did;
 * clang-tidy reads each file without it (scripts/clang-tidy.sh), so a file
 * still includes what it uses. Compiled on its own only: no include guard. */
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <tl/expected.hpp>
