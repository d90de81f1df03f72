/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The fuse driver: for hosts without the nbd and rbd kernel modules. One
 * rbd-fuse process per volume (rbd-fuse@NAME.service) shows the image as a
 * file in a private 0700 directory; a loop device over that file is the
 * volume's block device. Discovery goes through the loop's backing file.
 * Its limit: if rbd-fuse dies, the loop's file is gone with it and the
 * volume stays degraded until it is staged again (no reattach).
 */
#pragma once

#include <chrono>
#include <map>

#include "engine/ports.hpp"
#include "host/fuse_volume.hpp"
#include "host/loop_device.hpp"
#include "host/unit_control.hpp"

namespace rbdvolume {

struct FuseDriverConfig {
	std::string runtimeDir = "/run/rbd-volume/fuse";
	std::chrono::milliseconds startTimeout{ std::chrono::seconds(30) };
};

class FuseMapper : public Mapper
{
public:
	FuseMapper(UnitControl &units, FuseDriverConfig config)
		: units_(units), config_(std::move(config)), paths_{ config_.runtimeDir }
	{
	}

	Result<std::vector<MappedImage>> list() override;
	Result<std::string> map(const VolumeSpec &spec) override;
	Result<Change> unmap(const VolumeSpec &spec, const std::string &device) override;

	static constexpr const char *UnitTemplate = "rbd-fuse";

private:
	struct LoopRecord {
		std::string volume;
		LoopBacking backing;
	};
	std::map<std::string, LoopRecord> loopRecords() const;
	std::string volumeOf(const LoopInfo &loop, const Result<LoopBacking> &backing,
			     const std::map<std::string, LoopRecord> &records) const;
	std::string faultOf(const std::string &volume, const Result<LoopBacking> &backing) const;
	Result<void> waitForImage(const VolumeSpec &spec);

	UnitControl &units_;
	FuseDriverConfig config_;
	FusePaths paths_;
};

} /* namespace rbdvolume */
