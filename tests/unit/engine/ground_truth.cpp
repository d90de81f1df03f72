/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "ground_truth.hpp"

#include <algorithm>

namespace rbdvolume::testing {

std::vector<const FakeMount *> Truth::stack(const std::string &path) const
{
	std::vector<const FakeMount *> out;
	for (const FakeMount &mount : world_.mounts()) {
		if (mount.entry.target == path)
			out.push_back(&mount);
	}
	return out;
}

const FakeMount *Truth::top(const std::string &path) const
{
	const auto mounts = stack(path);
	return mounts.empty() ? nullptr : mounts.back();
}

const FakeMount *Truth::coveredOurs(const std::string &path) const
{
	const auto mounts = stack(path);
	if (mounts.empty() || !mounts.back()->foreign)
		return nullptr;
	for (size_t i = mounts.size() - 1; i-- > 0;) {
		if (!mounts[i]->foreign)
			return mounts[i];
	}
	return nullptr;
}

std::vector<const FakeMapping *> Truth::mappings() const
{
	std::vector<const FakeMapping *> out;
	for (const FakeMapping &mapping : world_.mappings()) {
		if (imageKey(mapping.mapped) == spec_.image.display())
			out.push_back(&mapping);
	}
	return out;
}

std::string Truth::device(const FakeMount &mount)
{
	return mount.entry.fsType == "devtmpfs" ? "/dev" + mount.entry.root : mount.entry.source;
}

bool Truth::modeMatches(const FakeMount &mount) const
{
	if (spec_.mode == VolumeMode::Block)
		return mount.entry.fsType == "devtmpfs";
	return mount.entry.fsType == fsTypeName(spec_.filesystem->type);
}

bool Truth::formattedByUs() const
{
	return std::any_of(world_.log().begin(), world_.log().end(),
			   [](const std::string &line) { return line.rfind("mkfs ", 0) == 0; });
}

} /* namespace rbdvolume::testing */
