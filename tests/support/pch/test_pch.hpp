/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What nearly every test translation unit parses first: gtest and the
 * standard library, precompiled once per test program (meson's cpp_pch)
 * instead of parsed again in each of its files: a third of a test file's
 * compile under clang. Headers that never change with this project only, so
 * an edit rebuilds no more than it did. clang-tidy reads each file without
 * it (scripts/clang-tidy.sh): a file still includes what it uses. Compiled
 * on its own only, so no include guard (gcc: "#pragma once in main file"). */

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <tl/expected.hpp>
