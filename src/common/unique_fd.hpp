/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* UniqueFd: a file descriptor closed when its owner goes. */
#pragma once

#include <unistd.h>

namespace rbdvolume {

class UniqueFd
{
public:
	UniqueFd() = default;
	explicit UniqueFd(int fd) : fd_(fd) {}
	~UniqueFd() { reset(); }
	UniqueFd(const UniqueFd &) = delete;
	UniqueFd &operator=(const UniqueFd &) = delete;
	UniqueFd(UniqueFd &&other) noexcept : fd_(other.release()) {}
	UniqueFd &operator=(UniqueFd &&other) noexcept
	{
		if (this != &other)
			reset(other.release());
		return *this;
	}

	int get() const { return fd_; }
	bool valid() const { return fd_ >= 0; }
	[[nodiscard]] int release()
	{
		const int fd = fd_;
		fd_ = -1;
		return fd;
	}
	void reset(int fd = -1)
	{
		if (fd_ >= 0)
			close(fd_);
		fd_ = fd;
	}

private:
	int fd_ = -1;
};

} /* namespace rbdvolume */
