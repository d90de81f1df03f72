/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "loop_images.hpp"

#include <algorithm>
#include <cerrno>
#include <fcntl.h>
#include <unistd.h>

#include <sys/stat.h>

#include "common/errno_text.hpp"
#include "common/paths.hpp"
#include "common/unique_fd.hpp"
#include "host/drivers/fuse/loop_device.hpp"
#include "host/proc_mount_table.hpp"

namespace rbdvolume::testing {

namespace {

constexpr char Separator = '#';

/* "rbd#ns#name@snap.img" back to its image. */
std::optional<MappedImage> parseFileName(const std::string &file)
{
	const std::string suffix = ".img";
	if (file.size() <= suffix.size() ||
	    file.compare(file.size() - suffix.size(), suffix.size(), suffix) != 0)
		return std::nullopt;
	std::string stem = file.substr(0, file.size() - suffix.size());
	MappedImage image;
	if (const size_t at = stem.find('@'); at != std::string::npos) {
		image.snapshot = stem.substr(at + 1);
		stem.resize(at);
	}
	std::vector<std::string> parts;
	size_t start = 0;
	for (size_t pos = stem.find(Separator); pos != std::string::npos;
	     pos = stem.find(Separator, start)) {
		parts.push_back(stem.substr(start, pos - start));
		start = pos + 1;
	}
	parts.push_back(stem.substr(start));
	if (parts.size() == 2) {
		image.pool = parts[0];
		image.image = parts[1];
	} else if (parts.size() == 3) {
		image.pool = parts[0];
		image.radosNamespace = parts[1];
		image.image = parts[2];
	} else {
		return std::nullopt;
	}
	return image;
}

} /* namespace */

std::string LoopImages::imagePath(const ImageSpec &image) const
{
	std::string name = image.display();
	std::replace(name.begin(), name.end(), '/', Separator);
	return directory_ + "/" + name + ".img";
}

Result<void> LoopImages::createImage(const ImageSpec &image, uint64_t bytes) const
{
	const std::string path = imagePath(image);
	const UniqueFd fd(open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600));
	if (!fd.valid())
		return fail(Errc::Io, "cannot create '" + path + "': " + errnoText(errno), errno);
	if (ftruncate(fd.get(), static_cast<off_t>(bytes)) < 0)
		return fail(Errc::Io, "cannot size '" + path + "': " + errnoText(errno), errno);
	return {};
}

Result<void> LoopImages::resizeImage(const ImageSpec &image, uint64_t bytes)
{
	const std::string path = imagePath(image);
	if (truncate(path.c_str(), static_cast<off_t>(bytes)) < 0)
		return fail(Errc::Io, "cannot resize '" + path + "': " + errnoText(errno), errno);
	auto mapped = list();
	if (!mapped)
		return tl::make_unexpected(mapped.error());
	for (const MappedImage &m : *mapped) {
		if (mapsImage(m, image))
			return refreshLoopSize(m.device);
	}
	return {};
}

Result<std::vector<MappedImage>> LoopImages::list()
{
	auto loops = listLoops();
	if (!loops)
		return tl::make_unexpected(loops.error());
	std::vector<MappedImage> mapped;
	for (const LoopInfo &loop : *loops) {
		if (!paths::isSameOrBelow(loop.backingFile, directory_))
			continue;
		auto image = parseFileName(loop.backingFile.substr(directory_.size() + 1));
		if (!image)
			continue;
		image->device = loop.device;
		image->driver = Driver::Fuse; /* the production driver that maps through loop */
		image->readOnly = loop.readOnly;
		mapped.push_back(std::move(*image));
	}
	return mapped;
}

Result<std::string> LoopImages::map(const MapRequest &spec)
{
	auto mapped = list();
	if (!mapped)
		return tl::make_unexpected(mapped.error());
	for (const MappedImage &m : *mapped) {
		if (mapsImage(m, spec.image))
			return m.device; /* never map an image twice */
	}
	const std::string path = imagePath(spec.image);
	if (access(path.c_str(), F_OK) != 0)
		return fail(Errc::NotFound, "image " + spec.image.display() + " does not exist");
	return attachLoop(path, spec.readOnly());
}

Result<Change> LoopImages::unmap(const MapRequest &spec, const std::string &device)
{
	(void)spec;
	return detachUnmountedLoop(device);
}

Result<ImageChange> LoopImages::ensureImage(const ImageRequest &spec)
{
	struct stat st {
	};
	if (stat(imagePath(spec.image).c_str(), &st) == 0) {
		/* As librbd's resize would: grow to the spec's size, never shrink. */
		if (!spec.image.create ||
		    spec.image.create->sizeBytes <= static_cast<uint64_t>(st.st_size))
			return ImageChange{};
		if (auto grown = resizeImage(spec.image, spec.image.create->sizeBytes); !grown)
			return tl::make_unexpected(grown.error());
		return ImageChange{ Change::Changed, "grown" };
	}
	if (!spec.image.create)
		return fail(Errc::NotFound, "image " + spec.image.display() + " does not exist");
	if (auto made = createImage(spec.image, spec.image.create->sizeBytes); !made)
		return tl::make_unexpected(made.error());
	return ImageChange{ Change::Changed, "created", true };
}

} /* namespace rbdvolume::testing */
