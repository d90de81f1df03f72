/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The MESSAGE_ID of each kind of event an operator searches for
 * (`journalctl MESSAGE_ID=...`), explained in units/rbd-volume.catalog
 * (`journalctl -x`). Stable forever: a new meaning gets a new id.
 */
#pragma once

#include "journal/log.hpp"

namespace rbdvolume::log::ids {

inline constexpr MessageId VolumeUp = "7eb0d271a6b040a898fa189d82c9ab8e";
inline constexpr MessageId VolumeDown = "009d7d2995294b8a91b589f3f0fe3562";
inline constexpr MessageId Formatted = "d6b77c6b471548edb4a874ffd0f7f0bb";
inline constexpr MessageId FormatRefused = "f3b4335fc8e94f91bcdee54d3a02379c";
inline constexpr MessageId MapperLost = "03ab4e33a7964bf98e2e13f54cce26b9";
inline constexpr MessageId OtherWriter = "e853801b213346cab3882bedc76b9573";
inline constexpr MessageId Grown = "b45c7108c6bc456eae33a31cb4a3c63f";
inline constexpr MessageId IoStalled = "4e00908bc33c4ffdb1990302e2924d6a";
inline constexpr MessageId Abandoned = "4d0fa4fa68f54920b2f5edb50a2ae1c4";
inline constexpr MessageId FilesystemErrors = "b3ba18373b8946adb23d1d8b131bea9b";
inline constexpr MessageId PoolFull = "a6540b659070469585fa46a47024505f";

} /* namespace rbdvolume::log::ids */
