/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "common/bounded_call.hpp"

#include <set>

namespace rbdvolume::bounded {

namespace {

std::mutex &registryMutex()
{
	static std::mutex mutex;
	return mutex;
}

std::set<std::string> &stuckKeys()
{
	static std::set<std::string> keys;
	return keys;
}

} /* namespace */

bool isStuck(const std::string &key)
{
	const std::lock_guard<std::mutex> held(registryMutex());
	return stuckKeys().contains(key);
}

void markStuck(const std::string &key)
{
	const std::lock_guard<std::mutex> held(registryMutex());
	stuckKeys().insert(key);
}

void clearStuck(const std::string &key)
{
	const std::lock_guard<std::mutex> held(registryMutex());
	stuckKeys().erase(key);
}

std::string secondsText(std::chrono::milliseconds limit)
{
	const auto ms = limit.count();
	if (ms % 1000 == 0)
		return std::to_string(ms / 1000) + " s";
	return std::to_string(ms) + " ms";
}

} /* namespace rbdvolume::bounded */
