/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* "Did you mean ...?" for a value or a key that is almost one we know. */
#include "config/near_miss.hpp"

#include <algorithm>
#include <cctype>
#include <vector>

#include "common/text_escape.hpp"

namespace rbdvolume {

std::string oneOfProblem(std::span<const std::string_view> choices, std::string_view found)
{
	std::string message = "expected one of " + quotedList(choices) + ", found " + quoted(found);
	/* Case first: "KRBD" is no typo of "krbd", but still meant it. */
	std::string lowered(found);
	std::transform(lowered.begin(), lowered.end(), lowered.begin(),
		       [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
	const std::string_view hint = closestMatch(lowered, choices);
	if (!hint.empty())
		message += "; did you mean " + quoted(hint) + "?";
	return message;
}

size_t editDistance(std::string_view a, std::string_view b)
{
	/* Three rolling rows are enough for the transposition case. */
	std::vector<size_t> before(b.size() + 1);
	std::vector<size_t> previous(b.size() + 1);
	std::vector<size_t> current(b.size() + 1);
	for (size_t j = 0; j <= b.size(); ++j)
		previous[j] = j;
	for (size_t i = 1; i <= a.size(); ++i) {
		current[0] = i;
		for (size_t j = 1; j <= b.size(); ++j) {
			const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
			current[j] = std::min(
				{ previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost });
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
				current[j] = std::min(current[j], before[j - 2] + 1);
		}
		std::swap(before, previous);
		std::swap(previous, current);
	}
	return previous[b.size()];
}

std::string_view closestMatch(std::string_view unknown, std::span<const std::string_view> known)
{
	constexpr size_t MaxDistance = 2;
	std::string_view best;
	size_t bestDistance = MaxDistance + 1;
	for (const std::string_view candidate : known) {
		const size_t distance = editDistance(unknown, candidate);
		/* "x" is two edits from "id", but that is no hint. */
		if (distance < bestDistance && distance < candidate.size()) {
			best = candidate;
			bestDistance = distance;
		}
	}
	return best;
}

std::string unknownKeyProblem(std::string_view key, std::span<const std::string_view> known)
{
	std::string message = "unknown key " + quoted(key);
	const std::string_view hint = closestMatch(key, known);
	if (!hint.empty())
		return message + "; did you mean " + quoted(hint) + "?";
	if (known.empty())
		return message + "; this table takes no keys";
	return message + "; expected one of " + quotedList(known);
}

} /* namespace rbdvolume */
