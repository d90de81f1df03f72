/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "host/io_stall_watch.hpp"

#include <algorithm>
#include <array>
#include <sstream>

#include "common/clock_time.hpp"
#include "common/fs_util.hpp"

namespace rbdvolume {

namespace {

/* /sys/block/NAME/stat: 17 counters at most (Documentation/block/stat.rst). */
constexpr size_t StatBytes = 4096;

/*
 * The fields of stat that count completed requests: reads, writes, discards
 * and flushes (1, 5, 12 and 16, counted from 1; the last two are missing on
 * old kernels), and the one that counts requests in flight (9).
 */
constexpr std::array<size_t, 4> CompletedFields = { 0, 4, 11, 15 };
constexpr size_t InFlightField = 8;

std::string blockName(const std::string &device)
{
	const size_t slash = device.rfind('/');
	return slash == std::string::npos ? device : device.substr(slash + 1);
}

} /* namespace */

IoStallWatch::IoStallWatch(SystemRoots roots, std::chrono::milliseconds after, Clock clock)
	: roots_(std::move(roots)), after_(after), clock_(std::move(clock))
{
}

IoInstant IoStallWatch::now()
{
	return { std::chrono::steady_clock::now(), std::chrono::system_clock::now() };
}

bool IoStallWatch::sample(const std::string &device, Progress &progress, bool &waiting)
{
	const std::string name = blockName(device);
	if (name.empty() || name == "." || name == "..")
		return false;
	auto text = readFile(roots_.sysfs + "/block/" + name + "/stat", StatBytes);
	if (!text || !*text)
		return false;
	std::istringstream fields(**text);
	std::vector<uint64_t> counters;
	uint64_t value = 0;
	while (fields >> value)
		counters.push_back(value);
	if (counters.size() <= InFlightField)
		return false;
	uint64_t completed = 0;
	for (const size_t field : CompletedFields) {
		if (field < counters.size())
			completed += counters[field];
	}
	waiting = counters[InFlightField] > 0;
	if (!waiting || completed != progress.completed) {
		progress.completed = completed;
		progress.since = clock_();
	}
	return true;
}

bool IoStallWatch::stalledNow(const Progress &progress, bool waiting) const
{
	return waiting && clock_().steady - progress.since.steady >= after_;
}

std::string IoStallWatch::look(const std::string &device)
{
	const std::lock_guard lock(mutex_);
	auto [found, added] = devices_.try_emplace(device);
	Progress &progress = found->second;
	if (added)
		progress.since = clock_();
	bool waiting = false;
	if (!sample(device, progress, waiting)) {
		devices_.erase(found);
		return {};
	}
	progress.stalled = stalledNow(progress, waiting);
	if (!progress.stalled)
		return {};
	return "no answer from the cluster since " + clockTime(progress.since.wall) +
	       " (requests wait on " + device + ")";
}

void IoStallWatch::keepOnly(const std::vector<std::string> &devices)
{
	const std::lock_guard lock(mutex_);
	std::erase_if(devices_, [&](const auto &entry) {
		return std::find(devices.begin(), devices.end(), entry.first) == devices.end();
	});
}

bool IoStallWatch::watching()
{
	const std::lock_guard lock(mutex_);
	return !devices_.empty();
}

bool IoStallWatch::changed()
{
	const std::lock_guard lock(mutex_);
	bool any = false;
	for (auto &[device, progress] : devices_) {
		bool waiting = false;
		if (!sample(device, progress, waiting))
			continue;
		any = any || stalledNow(progress, waiting) != progress.stalled;
	}
	return any;
}

} /* namespace rbdvolume */
