/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* "key=value" lines: the format of the small state files under /run/rbd-volume. */
#pragma once

#include <string>
#include <vector>

namespace rbdvolume {

struct KeyValue {
	std::string key;
	std::string value; /* everything after the first '=' ("" without one) */
	unsigned line = 0; /* 1-based, for messages */
};

/* Every line but blank ones and '#' comments, in order. */
std::vector<KeyValue> parseKeyValueText(const std::string &text);

} /* namespace rbdvolume */
