/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "host/drivers/mapper_set.hpp"

#include <algorithm>

#include "host/drivers/choose_driver.hpp"

namespace rbdvolume {

Mapper &MapperSet::driver(Driver which)
{
	switch (which) {
	case Driver::Krbd:
		return krbd_;
	case Driver::Nbd:
		return nbd_;
	case Driver::Fuse:
	case Driver::Auto:
		break;
	}
	return fuse_;
}

Result<std::vector<MappedImage>> MapperSet::list()
{
	std::vector<MappedImage> all;
	for (Mapper *mapper : { &krbd_, &nbd_, &fuse_ }) {
		auto mapped = mapper->list();
		if (!mapped)
			return tl::make_unexpected(mapped.error());
		all.insert(all.end(), mapped->begin(), mapped->end());
	}
	return all;
}

Result<std::vector<std::string>> MapperSet::orphans()
{
	std::vector<std::string> all;
	for (Mapper *mapper : { &krbd_, &nbd_, &fuse_ }) {
		auto found = mapper->orphans();
		if (!found)
			return tl::make_unexpected(found.error());
		all.insert(all.end(), found->begin(), found->end());
	}
	return all;
}

Result<Change> MapperSet::stopOrphan(const VolumeSpec &spec)
{
	Change change = Change::Unchanged;
	for (Mapper *mapper : { &krbd_, &nbd_, &fuse_ }) {
		auto stopped = mapper->stopOrphan(spec);
		if (!stopped)
			return stopped;
		if (*stopped == Change::Changed)
			change = Change::Changed;
	}
	return change;
}

Result<Change> MapperSet::followImageSize(const VolumeSpec &spec)
{
	/* Each driver says Unchanged for what is not its own. */
	Change change = Change::Unchanged;
	for (Mapper *mapper : { &krbd_, &nbd_, &fuse_ }) {
		auto followed = mapper->followImageSize(spec);
		if (!followed)
			return followed;
		if (*followed == Change::Changed)
			change = Change::Changed;
	}
	return change;
}

Result<std::string> MapperSet::map(const VolumeSpec &spec)
{
	return driver(chooseDriver(roots_, spec.map.driver)).map(spec);
}

Result<Change> MapperSet::unmap(const VolumeSpec &spec, const std::string &device)
{
	auto mapped = list();
	if (!mapped)
		return tl::make_unexpected(mapped.error());
	const auto owner = std::find_if(mapped->begin(), mapped->end(),
					[&](const MappedImage &m) { return m.device == device; });
	if (owner == mapped->end())
		return Change::Unchanged;
	return driver(owner->driver).unmap(spec, device);
}

} /* namespace rbdvolume */
