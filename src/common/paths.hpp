/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Where rbd-volume keeps things on a host. */
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace rbdvolume::paths {

inline constexpr std::string_view ConfigDir = "/etc/rbd-volume";
inline constexpr std::string_view AdminSpecDir = "/etc/rbd-volume/volumes";
inline constexpr std::string_view RuntimeSpecDir = "/run/rbd-volume/volumes";
inline constexpr std::string_view DaemonConfig = "/etc/rbd-volume/rbd-volumed.toml";
inline constexpr std::string_view RuntimeDir = "/run/rbd-volume";
inline constexpr std::string_view StagingRoot = "/run/rbd-volume/staging";
inline constexpr std::string_view OwnershipDir = "/run/rbd-volume/owned";
inline constexpr std::string_view IntentDir = "/run/rbd-volume/intent";
/* The drivers' files: rbd-fuse's mount points and records, rbd-nbd@'s configs. */
inline constexpr std::string_view FuseRuntimeDir = "/run/rbd-volume/fuse";
inline constexpr std::string_view NbdConfigDir = "/run/rbd-volume/nbd";
/* Held by rbd-volumed for its life; `rbd-volumectl down` acts alone only without it. */
inline constexpr std::string_view DaemonLock = "/run/rbd-volume/rbd-volumed.lock";

/* The staging path a spec gets when it names none. */
std::string defaultStagingPath(std::string_view volumeName);

/* Absolute, no empty, "." or ".." component, no trailing '/' (except "/" itself). */
bool isNormalAbsolutePath(std::string_view path);

/* "/a/b" for "/a/b/c", "/" for "/a": the directory a normal absolute path lies in. */
std::string parentOf(std::string_view path);

/* True when `inner` equals `outer` or lies below it; both normal absolute paths. */
bool isSameOrBelow(std::string_view inner, std::string_view outer);

/*
 * Why a mount on `path` would reach into rbd-volume's own state (its
 * configuration, intents, ownership records, drivers' files), or cover it;
 * nullopt when it would not. A staging path may lie below StagingRoot.
 */
std::optional<std::string> ownStateProblem(std::string_view path, bool staging);

} /* namespace rbdvolume::paths */
