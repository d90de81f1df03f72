/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Helpers for tests against the suite's cluster: specs, image names, the rbd CLI as admin. */
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "config/volume_spec.hpp"

namespace rbdvolume::testing {

constexpr uint64_t MiB = uint64_t{ 1 } << 20;
constexpr uint64_t GiB = uint64_t{ 1 } << 30;

/* A name no other test (or earlier run on a kept cluster) uses. */
std::string uniqueImageName(const std::string &prefix);

/* A block-mode spec for IMAGE in the test pool, as client.test with its keyring. */
VolumeSpec specFor(const std::string &image, std::optional<CreateSpec> create = std::nullopt);

CreateSpec createSpec(uint64_t sizeBytes, std::vector<std::string> features = {});

/* `rbd ARGS...` as client.admin; records a test failure and returns "" when it fails. */
std::string rbdAdmin(const std::vector<std::string> &args);

/* `ceph ARGS...` as client.admin; records a test failure and returns "" when it fails. */
std::string cephAdmin(const std::vector<std::string> &args);

/* A fresh random cephx secret, as `ceph-authtool --gen-print-key` makes one. */
std::string randomKey();

/* Writes `text` to a new file in the cluster directory; returns its path. */
std::string writeFile(const std::string &name, const std::string &text);

using Clock = std::chrono::steady_clock;

inline double secondsSince(Clock::time_point start)
{
	return std::chrono::duration<double>(Clock::now() - start).count();
}

} /* namespace rbdvolume::testing */
