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

Result<MapperView> MapperSet::view()
{
	MapperView all;
	for (Mapper *mapper : { &krbd_, &nbd_, &fuse_ }) {
		auto seen = mapper->view();
		if (!seen)
			return tl::make_unexpected(seen.error());
		all.mappings.insert(all.mappings.end(), seen->mappings.begin(),
				    seen->mappings.end());
		all.orphans.insert(all.orphans.end(), seen->orphans.begin(), seen->orphans.end());
	}
	if (stalls_ != nullptr) {
		std::vector<std::string> devices;
		for (MappedImage &image : all.mappings) {
			image.stall = stalls_->look(image.device);
			devices.push_back(image.device);
		}
		stalls_->keepOnly(devices);
	}
	return all;
}

/* `call` on every driver, each Unchanged for what is not its own: Changed when one changed. */
Result<Change> MapperSet::onEveryDriver(Result<Change> (Mapper::*call)(const MapRequest &),
					const MapRequest &request)
{
	Change change = Change::Unchanged;
	for (Mapper *mapper : { &krbd_, &nbd_, &fuse_ }) {
		auto done = (mapper->*call)(request);
		if (!done)
			return done;
		if (*done == Change::Changed)
			change = Change::Changed;
	}
	return change;
}

Result<Change> MapperSet::stopOrphan(const MapRequest &request)
{
	return onEveryDriver(&Mapper::stopOrphan, request);
}

Result<Change> MapperSet::followImageSize(const MapRequest &request)
{
	return onEveryDriver(&Mapper::followImageSize, request);
}

/*
 * An auto volume whose image has a feature the kernel's rbd cannot map goes
 * to the next driver the host has: the choice depends on the image's
 * features, which change only when someone changes them.
 */
Result<std::string> MapperSet::map(const MapRequest &request)
{
	const Driver chosen = chooseDriver(roots_, request.map.driver);
	auto device = driver(chosen).map(request);
	if (device || request.map.driver != Driver::Auto || chosen != Driver::Krbd ||
	    device.error().code != Errc::Unsupported)
		return device;
	return driver(driverAfterKrbd(roots_)).map(request);
}

Result<Change> MapperSet::unmap(const MapRequest &request, const std::string &device)
{
	auto mapped = list();
	if (!mapped)
		return tl::make_unexpected(mapped.error());
	const auto owner = std::find_if(mapped->begin(), mapped->end(),
					[&](const MappedImage &m) { return m.device == device; });
	if (owner == mapped->end())
		return Change::Unchanged;
	return driver(owner->driver).unmap(request, device);
}

} /* namespace rbdvolume */
