/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SpecBuilder: valid VolumeSpecs in a line of C++, so engine tests need no TOML. */
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/paths.hpp"
#include "config/volume_spec.hpp"

namespace rbdvolume::testing {

inline constexpr uint64_t GiB = uint64_t{ 1 } << 30;

/*
 * Defaults follow the spec's: image rbd/NAME, driver auto, ext4 formatted if
 * blank, staging at /run/rbd-volume/staging/NAME. A target is read-only when
 * the volume is, unless the test says otherwise (as the parser resolves it).
 */
class SpecBuilder
{
public:
	explicit SpecBuilder(std::string name = "vol") : name_(std::move(name))
	{
		image_.pool = "rbd";
		image_.name = name_;
	}

	SpecBuilder &image(std::string pool, std::string name)
	{
		image_.pool = std::move(pool);
		image_.name = std::move(name);
		return *this;
	}
	/* A snapshot maps read-only. */
	SpecBuilder &snapshot(std::string snapshot)
	{
		image_.snapshot = std::move(snapshot);
		readOnly_ = true;
		return *this;
	}
	SpecBuilder &create(uint64_t sizeBytes)
	{
		image_.create = CreateSpec{ sizeBytes, {} };
		return *this;
	}
	SpecBuilder &readOnly(bool readOnly = true)
	{
		readOnly_ = readOnly;
		return *this;
	}
	SpecBuilder &block(bool block = true)
	{
		block_ = block;
		return *this;
	}
	SpecBuilder &fsType(FsType type)
	{
		fs_.type = type;
		return *this;
	}
	SpecBuilder &format(FormatPolicy policy)
	{
		fs_.format = policy;
		return *this;
	}
	SpecBuilder &check(CheckPolicy policy)
	{
		fs_.check = policy;
		return *this;
	}
	SpecBuilder &grow(GrowPolicy policy)
	{
		fs_.grow = policy;
		return *this;
	}
	SpecBuilder &driver(Driver driver)
	{
		driver_ = driver;
		return *this;
	}
	/* LUKS2 keyed by `keyfile` (the fake world's key is the path itself). */
	SpecBuilder &encrypted(std::string keyfile = "/etc/rbd-volume/keys/vol.key")
	{
		EncryptionSpec encryption;
		encryption.keyfile = std::move(keyfile);
		encryption_ = std::move(encryption);
		return *this;
	}
	SpecBuilder &stagingOptions(std::vector<std::string> options)
	{
		stagingOptions_ = std::move(options);
		return *this;
	}
	SpecBuilder &target(std::string path, std::optional<bool> readOnly = std::nullopt,
			    std::vector<std::string> options = {})
	{
		targets_.push_back(Target{ std::move(path), readOnly, std::move(options) });
		return *this;
	}

	VolumeSpec build() const
	{
		VolumeSpec spec;
		spec.name = name_;
		spec.sourceFile = "/etc/rbd-volume/volumes/" + name_ + ".toml";
		spec.image = image_;
		spec.map.driver = driver_;
		spec.map.readOnly = readOnly_;
		spec.mode = block_ ? VolumeMode::Block : VolumeMode::Filesystem;
		if (!block_)
			spec.filesystem = fs_;
		spec.encryption = encryption_;
		spec.staging.path = paths::defaultStagingPath(name_);
		spec.staging.options = stagingOptions_;
		for (const Target &t : targets_)
			spec.publish.push_back(
				PublishTarget{ t.path, t.readOnly.value_or(readOnly_), t.options });
		return spec;
	}

private:
	struct Target {
		std::string path;
		std::optional<bool> readOnly;
		std::vector<std::string> options;
	};

	std::string name_;
	ImageSpec image_;
	Driver driver_ = Driver::Auto;
	bool readOnly_ = false;
	bool block_ = false;
	FilesystemSpec fs_;
	std::optional<EncryptionSpec> encryption_;
	std::vector<std::string> stagingOptions_;
	std::vector<Target> targets_;
};

} /* namespace rbdvolume::testing */
