/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "engine/model.hpp"

#include <algorithm>

namespace rbdvolume {

bool mapsImage(const MappedImage &mapped, const ImageSpec &image)
{
	return mapped.pool == image.pool && mapped.radosNamespace == image.radosNamespace &&
	       mapped.image == image.name && mapped.snapshot == image.snapshot;
}

std::string cryptNameOf(const std::string &volume)
{
	return "rbdv-" + volume;
}

std::string cryptDeviceOf(const std::string &volume)
{
	return "/dev/mapper/" + cryptNameOf(volume);
}

bool Ownership::ownsTarget(const std::string &path) const
{
	return std::find(publishedTargets.begin(), publishedTargets.end(), path) !=
	       publishedTargets.end();
}

bool Ownership::empty() const
{
	return mappedDevice.empty() && !mapPending && !formatted && !luksFormatted &&
	       !luksPending && cryptSpanBytes == 0 && sizedBytes == 0 && !staged &&
	       publishedTargets.empty();
}

const ObservedMount *ObservedVolume::target(const std::string &path) const
{
	const auto it = std::find_if(targets.begin(), targets.end(),
				     [&](const ObservedMount &m) { return m.path == path; });
	return it == targets.end() ? nullptr : &*it;
}

bool ObservedVolume::mappingIsOurs() const
{
	if (!mapping)
		return false;
	if (owned.mappedDevice.empty())
		return owned.mapPending;
	return owned.mappedDevice == mapping->device;
}

} /* namespace rbdvolume */
