/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Truth: what the fake world really holds, read without the engine's observer, for oracles. */
#pragma once

#include <string>
#include <vector>

#include "fake_world.hpp"

namespace rbdvolume::testing {

class Truth
{
public:
	Truth(const FakeWorld &world, const VolumeSpec &spec) : world_(world), spec_(spec) {}

	/* The mounts stacked on a path, bottom first. */
	std::vector<const FakeMount *> stack(const std::string &path) const;
	const FakeMount *top(const std::string &path) const;
	/* The highest mount made by the engine under a planted one, if any. */
	const FakeMount *coveredOurs(const std::string &path) const;
	/* Every mapping of the spec's image, whoever made it. */
	std::vector<const FakeMapping *> mappings() const;
	/* The block device a mount shows: the node of a devtmpfs bind, else the source. */
	static std::string device(const FakeMount &mount);
	/* Mounted the way the spec's mode and filesystem type say. */
	bool modeMatches(const FakeMount &mount) const;
	/* The log shows an mkfs: the engine formatted the (only) image at some point. */
	bool formattedByUs() const;

private:
	const FakeWorld &world_;
	const VolumeSpec &spec_;
};

} /* namespace rbdvolume::testing */
