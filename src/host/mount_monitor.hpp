/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * MountMonitor: a file descriptor that becomes readable when the mount table
 * changes (libmount's kernel monitor over /proc/self/mountinfo), to plug into
 * an event loop. It says only "something changed": the reader re-reads the
 * table and marks volumes dirty.
 */
#pragma once

#include <memory>
#include <utility>

#include "common/result.hpp"
#include "host/libmount_ptr.hpp"

namespace rbdvolume {

class MountMonitor
{
public:
	static Result<std::unique_ptr<MountMonitor>> create();
	~MountMonitor() = default;
	MountMonitor(const MountMonitor &) = delete;
	MountMonitor &operator=(const MountMonitor &) = delete;
	MountMonitor(MountMonitor &&) = delete;
	MountMonitor &operator=(MountMonitor &&) = delete;

	/* Poll it for EPOLLIN; it stays owned by the monitor. */
	int fd() const;

	/* Consumes the pending events; true when the mount table changed. */
	bool drain();

private:
	MountMonitor(MntMonitorPtr monitor, int fd) : monitor_(std::move(monitor)), fd_(fd) {}

	MntMonitorPtr monitor_;
	int fd_;
};

} /* namespace rbdvolume */
