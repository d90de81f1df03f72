/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * MapperSet: the Mapper the engine sees on a real host. It lists the
 * mappings of every driver, maps with the spec's driver (or, for auto, the
 * best the host has), and unmaps through the driver that listed the device.
 * With an IoStallWatch, its view says which devices' requests get no answer.
 */
#pragma once

#include "engine/ports.hpp"
#include "host/io_stall_watch.hpp"
#include "host/mapping_discovery.hpp"

namespace rbdvolume {

class MapperSet : public Mapper
{
public:
	MapperSet(Mapper &krbd, Mapper &nbd, Mapper &fuse, SystemRoots roots,
		  IoStallWatch *stalls = nullptr)
		: krbd_(krbd), nbd_(nbd), fuse_(fuse), roots_(std::move(roots)), stalls_(stalls)
	{
	}

	Result<std::vector<MappedImage>> list() override;
	Result<std::string> map(const MapRequest &request) override;
	Result<Change> unmap(const MapRequest &request, const std::string &device) override;
	Result<std::vector<std::string>> orphans() override;
	Result<MapperView> view() override;
	/* Each driver stops what it left of the volume. */
	Result<Change> stopOrphan(const MapRequest &request) override;
	Result<Change> followImageSize(const MapRequest &request) override;

private:
	Mapper &driver(Driver which);
	Result<Change> onEveryDriver(Result<Change> (Mapper::*call)(const MapRequest &),
				     const MapRequest &request);

	Mapper &krbd_;
	Mapper &nbd_;
	Mapper &fuse_;
	SystemRoots roots_;
	IoStallWatch *stalls_;
};

} /* namespace rbdvolume */
