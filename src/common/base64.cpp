/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "common/base64.hpp"

#include <cstdint>

namespace rbdvolume {

namespace {

constexpr std::string_view Alphabet =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

} /* namespace */

std::optional<std::vector<unsigned char>> base64Decode(std::string_view text)
{
	if (text.size() % 4 != 0)
		return std::nullopt;
	size_t padding = 0;
	while (padding < 2 && padding < text.size() && text[text.size() - 1 - padding] == '=')
		++padding;
	std::vector<unsigned char> out;
	out.reserve(text.size() / 4 * 3);
	uint32_t group = 0;
	for (size_t i = 0; i < text.size(); ++i) {
		uint32_t value = 0;
		if (i >= text.size() - padding) {
			value = 0;
		} else if (const size_t at = Alphabet.find(text[i]); at != std::string_view::npos) {
			value = static_cast<uint32_t>(at);
		} else {
			return std::nullopt;
		}
		group = (group << 6) | value;
		if (i % 4 == 3) {
			out.push_back(static_cast<unsigned char>(group >> 16));
			out.push_back(static_cast<unsigned char>(group >> 8));
			out.push_back(static_cast<unsigned char>(group));
			group = 0;
		}
	}
	out.resize(out.size() - padding);
	return out;
}

} /* namespace rbdvolume */
