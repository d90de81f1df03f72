/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * LoopImages: the test stand-in for Ceph. "Images" are sparse files in a
 * directory and "mappings" are loop devices over them, so the real engine and
 * host adapters run end to end without a cluster.
 */
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "engine/ports.hpp"

namespace rbdvolume::testing {

class LoopImages : public Mapper, public Images
{
public:
	explicit LoopImages(std::string directory) : directory_(std::move(directory)) {}

	std::string imagePath(const ImageSpec &image) const;
	Result<void> createImage(const ImageSpec &image, uint64_t bytes) const;
	/* Grows the file and, when mapped, the loop device (as `rbd resize` would). */
	Result<void> resizeImage(const ImageSpec &image, uint64_t bytes);

	Result<std::vector<MappedImage>> list() override;
	Result<std::string> map(const MapRequest &spec) override;
	Result<Change> unmap(const MapRequest &spec, const std::string &device) override;
	Result<std::vector<std::string>> orphans() override { return std::vector<std::string>{}; }
	Result<Change> stopOrphan(const MapRequest & /*spec*/) override
	{
		return Change::Unchanged;
	}
	Result<Change> followImageSize(const MapRequest & /*spec*/) override
	{
		return Change::Unchanged;
	}
	Result<ImageChange> ensureImage(const ImageRequest &spec) override;
	/* Loop "images" have no other clients. */
	Result<void> checkSoleWriter(const ImageRequest & /*spec*/) override { return {}; }
	/* A loop file has no map of what was written: only a file made in the run is known zeroes. */
	Result<bool> readsZeroes(const ImageRequest & /*spec*/) override { return false; }
	/* Nothing maps a loop file through the kernel's rbd client. */
	Result<KernelMapFacts> kernelMapFacts(const ImageRequest &request) override
	{
		return fail(Errc::Unsupported, request.image.display() + " is a loop file");
	}
	/* Kept in memory, for as long as this object lives. */
	Result<std::optional<std::string>> metadata(const ImageRequest &request,
						    const std::string &key) override
	{
		const auto it = metadata_.find(request.image.display() + "\n" + key);
		if (it == metadata_.end())
			return std::optional<std::string>();
		return std::optional<std::string>(it->second);
	}
	Result<void> setMetadata(const ImageRequest &request, const std::string &key,
				 const std::string &value) override
	{
		metadata_[request.image.display() + "\n" + key] = value;
		return {};
	}
	/* Loop files have no pool to fill. */
	std::string poolFull(const ImageRequest & /*request*/) override { return {}; }

private:
	std::string directory_;
	std::map<std::string, std::string> metadata_; /* by "IMAGE\nKEY" */
};

} /* namespace rbdvolume::testing */
