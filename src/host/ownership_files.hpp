/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The OwnershipStore port as one small file per volume, written atomically. */
#pragma once

#include <string>

#include "engine/ports.hpp"

namespace rbdvolume {

/* Text of a record ("key=value" lines) and back; exposed for tests. */
Result<std::string> formatOwnership(const Ownership &record);
Result<Ownership> parseOwnership(const std::string &text, const std::string &path);

class OwnershipFiles : public OwnershipStore
{
public:
	/* `directory` is created on the first save (default /run/rbd-volume/owned). */
	explicit OwnershipFiles(std::string directory) : directory_(std::move(directory)) {}

	Result<Ownership> load(const std::string &volume) override;
	Result<void> save(const std::string &volume, const Ownership &record) override;

private:
	std::string path(const std::string &volume) const { return directory_ + '/' + volume; }

	std::string directory_;
};

} /* namespace rbdvolume */
