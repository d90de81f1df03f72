/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* "Did you mean ...?": the closest of the names a value could have been. */
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>

namespace rbdvolume {

/* "expected one of 'a', 'b', found 'x'", and "; did you mean 'a'?" for a near miss or another case. */
std::string oneOfProblem(std::span<const std::string_view> choices, std::string_view found);

/* Optimal string alignment distance (Levenshtein plus transpositions). */
size_t editDistance(std::string_view a, std::string_view b);

/* The closest of `known` within edit distance 2 of `unknown`, or "". */
std::string_view closestMatch(std::string_view unknown, std::span<const std::string_view> known);

/* "unknown key 'x'; did you mean 'y'?" or "unknown key 'x'; expected one of ..." */
std::string unknownKeyProblem(std::string_view key, std::span<const std::string_view> known);

} /* namespace rbdvolume */
