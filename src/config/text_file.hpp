/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Reading a small text file (a spec, the daemon config), bounded in size. */
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "common/result.hpp"

namespace rbdvolume {

/*
 * The file's text; std::nullopt when it does not exist. A directory, a FIFO, a device, an
 * unreadable file, or one over `maxBytes` is an error whose message reads
 * after "FILE: " ("expected `what` of at most 1 MiB, found a larger file").
 */
Result<std::optional<std::string>> readSmallTextFile(const std::string &path, size_t maxBytes,
						     std::string_view what);

} /* namespace rbdvolume */
