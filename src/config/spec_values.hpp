/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Checks of single spec values (names, addresses, paths, IDs), free of TOML. */
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "config/volume_spec.hpp"

namespace rbdvolume {

/*
 * The validators below say what is wrong with a value, in a sentence that
 * reads after its key ("expected ..., found ..."); nullopt when nothing is.
 * Sizes and durations are in config/quantities.hpp, near misses ("did you
 * mean") in config/near_miss.hpp, quoting in common/text_escape.hpp.
 */

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
