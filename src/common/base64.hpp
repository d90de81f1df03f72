/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Standard base64 (RFC 4648 section 4), decoded strictly: keys come as it. */
#pragma once

#include <optional>
#include <string_view>
#include <vector>

namespace rbdvolume {

/* With padding, nothing else in it: nullopt for anything else. */
std::optional<std::vector<unsigned char>> base64Decode(std::string_view text);

} /* namespace rbdvolume */
