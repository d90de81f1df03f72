/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * One CSI call per volume at a time. A second call on a busy volume waits
 * (kubelet's calls on one volume are then served in turn) until its own
 * deadline, and only then gives up with ABORTED.
 */
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <set>
#include <string>
#include <utility>

namespace rbdvolume::csi {

class VolumeLocks
{
public:
	class Held
	{
	public:
		Held() = default;
		Held(VolumeLocks *locks, std::string name) : locks_(locks), name_(std::move(name))
		{
		}
		~Held();
		Held(const Held &) = delete;
		Held &operator=(const Held &) = delete;
		Held(Held &&other) noexcept;
		Held &operator=(Held &&other) = delete;

		explicit operator bool() const { return locks_ != nullptr; }

	private:
		VolumeLocks *locks_ = nullptr;
		std::string name_;
	};

	/* The volume's lock, or an empty Held when `until` passed first. */
	Held acquire(const std::string &name, std::chrono::steady_clock::time_point until);

private:
	void release(const std::string &name);

	std::mutex mutex_;
	std::condition_variable released_;
	std::set<std::string> held_;
};

} /* namespace rbdvolume::csi */
