/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Checks of single spec values (names, sizes, options, addresses), free of TOML. */
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/result.hpp"
#include "config/volume_spec.hpp"

namespace rbdvolume {

/*
 * Every "...Problem" function returns "" for a good value, else a message of
 * the form "expected ..., found '...'" ready for a Diagnostic.
 */

/* `text` with control characters escaped as \xNN, safe to print on a terminal. */
std::string escaped(std::string_view text);

/* escaped(text) in single ticks. */
std::string quoted(std::string_view text);

/* "'a', 'b', 'c'" */
std::string quotedList(std::span<const std::string_view> items);

/* "expected one of 'a', 'b', found 'x'", and "; did you mean 'a'?" for a near miss or another case. */
std::string oneOfProblem(std::span<const std::string_view> choices, std::string_view found);

/* Optimal string alignment distance (Levenshtein plus transpositions). */
size_t editDistance(std::string_view a, std::string_view b);

/* The closest of `known` within edit distance 2 of `unknown`, or "". */
std::string_view closestMatch(std::string_view unknown, std::span<const std::string_view> known);

/* "unknown key 'x'; did you mean 'y'?" or "unknown key 'x'; expected one of ..." */
std::string unknownKeyProblem(std::string_view key, std::span<const std::string_view> known);

/* "10G", "10GiB", "10GB", "512M", "4096": binary units K M G T P, no decimals. */
Result<uint64_t> parseSize(std::string_view text);

/*
 * The validators below say what is wrong with a value, in a sentence that
 * reads after its key ("expected ..., found ..."); nullopt when nothing is.
 */

/* A parsed size must be > 0 and a multiple of 512. */
std::optional<std::string> sizeBytesProblem(uint64_t bytes);

/*
 * "500ms", "30s", "2min", "1h": a whole number and one unit (ms, s, min, h),
 * no sign, no spaces, no decimals. A number without a unit is refused.
 */
Result<std::chrono::milliseconds> parseDuration(std::string_view text);

/* In the largest unit that is exact, as parseDuration() reads it: 120000ms is "2min". */
std::string formatDuration(std::chrono::milliseconds duration);

/* Pool, namespace, image and snapshot names. */
constexpr size_t MaxRbdNameLength = 250;
std::optional<std::string> rbdNameProblem(std::string_view name);

/* Cluster client id, without "client.". */
std::optional<std::string> clientIdProblem(std::string_view id);

/* [v1:|v2:]HOST[:PORT], HOST a name, an IPv4 address or [IPv6]. */
std::optional<std::string> monitorProblem(std::string_view address);

/* Absolute and normal, without control characters; `allowRoot` false refuses "/". */
std::optional<std::string> pathProblem(std::string_view path, bool allowRoot = true);

/* The ID a wrapped data key is bound to (ceph-csi's volume handle): at most 128
 * bytes, no whitespace or control characters. The one rule for a spec's
 * volume-id and the CSI shim's volume_id alike. */
std::optional<std::string> volumeIdProblem(std::string_view id);

/* A dm-crypt cipher spec CIPHER-MODE[-IV], as cryptsetup's --cipher takes it ("aes-xts-plain64"). */
std::optional<std::string> cipherProblem(std::string_view cipher);

/* The image features `rbd create --image-feature` takes, in the order we document. */
std::span<const std::string_view> knownImageFeatures();

/* Unknown, repeated and unmet-dependency features, by index into `features`. */
std::vector<std::pair<size_t, std::string>> featureProblems(std::span<const std::string> features);

} /* namespace rbdvolume */
