/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* ImageHolder: runs rbdv-ceph-holder, a second client that keeps an image open read-write. */
#pragma once

#include <string>

#include <sys/types.h>

#include "common/unique_fd.hpp"

namespace rbdvolume::testing {

class ImageHolder
{
public:
	ImageHolder() = default;
	~ImageHolder() { release(); }
	ImageHolder(const ImageHolder &) = delete;
	ImageHolder &operator=(const ImageHolder &) = delete;
	ImageHolder(ImageHolder &&) = delete;
	ImageHolder &operator=(ImageHolder &&) = delete;

	/* Opens IMAGE (in the test pool, as client.test) and waits for "ready"; "" or why not. */
	std::string hold(const std::string &image);
	/* Closes its input: it closes the image and exits; killed if it lingers. */
	void release();
	/* SIGKILL: its watch stays until the OSD's watch timeout (5 s here). */
	void kill();

private:
	void reap(int seconds);

	pid_t pid_ = -1;
	UniqueFd input_;
	UniqueFd output_;
};

} /* namespace rbdvolume::testing */
