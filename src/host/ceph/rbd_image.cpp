/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "host/ceph/rbd_image.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include <rbd/librbd.h>

namespace rbdvolume {

namespace {

/* Both list calls return -ERANGE and the count needed when the array is short. */
constexpr size_t FirstGuess = 8;

const char *snapshotOrNull(const ImageRef &ref)
{
	return ref.snapshot.empty() ? nullptr : ref.snapshot.c_str();
}

std::string watcherText(const rbd_image_watcher_t &watcher)
{
	return std::string(watcher.addr ? watcher.addr : "?") + " client." +
	       std::to_string(watcher.id);
}

/* librbd calls the progress callback without checking it for null. */
int noProgress(uint64_t /*offset*/, uint64_t /*total*/, void * /*data*/)
{
	return 0;
}

/* The four out-buffers of rbd_list_lockers; list() resizes them on -ERANGE. */
struct LockerBuffers {
	std::vector<char> tag = std::vector<char>(256);
	std::vector<char> clients = std::vector<char>(1024);
	std::vector<char> cookies = std::vector<char>(1024);
	std::vector<char> addrs = std::vector<char>(1024);

	ssize_t list(rbd_image_t image)
	{
		int exclusive = 0;
		size_t tagSize = tag.size();
		size_t clientsSize = clients.size();
		size_t cookiesSize = cookies.size();
		size_t addrsSize = addrs.size();
		const ssize_t ret = rbd_list_lockers(image, &exclusive, tag.data(), &tagSize,
						     clients.data(), &clientsSize, cookies.data(),
						     &cookiesSize, addrs.data(), &addrsSize);
		if (ret == -ERANGE) {
			tag.resize(std::max(tagSize, tag.size()));
			clients.resize(std::max(clientsSize, clients.size()));
			cookies.resize(std::max(cookiesSize, cookies.size()));
			addrs.resize(std::max(addrsSize, addrs.size()));
		}
		return ret;
	}
};

/* The first `count` NUL-terminated strings in `buffer`. */
std::vector<std::string> splitNulTerminated(const std::vector<char> &buffer, size_t count)
{
	std::vector<std::string> out;
	size_t start = 0;
	while (out.size() < count && start < buffer.size()) {
		size_t end = start;
		while (end < buffer.size() && buffer[end] != '\0')
			++end;
		out.emplace_back(buffer.data() + start, end - start);
		start = end + 1;
	}
	return out;
}

} /* namespace */

RbdImage::RbdImage(ImagePtr image, ImageRef ref, CallContext context)
	: image_(std::move(image)), ref_(std::move(ref)), context_(std::move(context))
{
}

Error RbdImage::error(int ret, const std::string &what) const
{
	return callError(ret, what + " of image " + ref_.display, context_);
}

Result<RbdImage> RbdImage::openReadOnly(rados_ioctx_t ioctx, const ImageRef &ref,
					const CallContext &context)
{
	rbd_image_t image = nullptr;
	const int ret = rbd_open_read_only(ioctx, ref.name.c_str(), &image, snapshotOrNull(ref));
	if (ret < 0)
		return tl::make_unexpected(callError(ret, "opening image " + ref.display, context));
	return RbdImage(ImagePtr(image), ref, context);
}

Result<RbdImage> RbdImage::openReadWrite(rados_ioctx_t ioctx, const ImageRef &ref,
					 const CallContext &context)
{
	rbd_image_t image = nullptr;
	const int ret = rbd_open(ioctx, ref.name.c_str(), &image, snapshotOrNull(ref));
	if (ret < 0)
		return tl::make_unexpected(
			callError(ret, "opening image " + ref.display + " for writing", context));
	return RbdImage(ImagePtr(image), ref, context);
}

Result<uint64_t> RbdImage::size() const
{
	uint64_t bytes = 0;
	const int ret = rbd_get_size(image_.get(), &bytes);
	if (ret < 0)
		return tl::make_unexpected(error(ret, "reading the size"));
	return bytes;
}

Result<uint64_t> RbdImage::features() const
{
	uint64_t bits = 0;
	const int ret = rbd_get_features(image_.get(), &bits);
	if (ret < 0)
		return tl::make_unexpected(error(ret, "reading the features"));
	return bits;
}

namespace {

/* Stops the iteration at the first extent that holds data: one is enough. */
constexpr int FoundData = -EEXIST;

int stopAtData(uint64_t /*offset*/, size_t /*length*/, int exists, void *found)
{
	if (exists == 0)
		return 0;
	*static_cast<bool *>(found) = true;
	return FoundData;
}

} /* namespace */

Result<bool> RbdImage::neverWritten() const
{
	auto bits = features();
	if (!bits)
		return tl::make_unexpected(bits.error());
	uint64_t flags = 0;
	if (const int ret = rbd_get_flags(image_.get(), &flags); ret < 0)
		return tl::make_unexpected(error(ret, "reading the flags"));
	const bool mapped =
		(*bits & RBD_FEATURE_FAST_DIFF) != 0 &&
		(flags & (RBD_FLAG_OBJECT_MAP_INVALID | RBD_FLAG_FAST_DIFF_INVALID)) == 0;
	rbd_image_info_t info{};
	if (const int ret = rbd_stat(image_.get(), &info, sizeof(info)); ret < 0)
		return tl::make_unexpected(error(ret, "reading the size"));
	/*
	 * Without a valid fast-diff object map librbd asks each data object
	 * (its parent's in the overlap too) whether it exists: fine for the few
	 * of a small image, too many round trips for a big one, which stays
	 * unproven.
	 */
	if (!mapped && info.num_objs > MaxObjectsAsked)
		return false;
	const uint64_t length = info.size;
	bool found = false;
	const int ret = rbd_diff_iterate2(image_.get(), nullptr, 0, length, 1 /* include_parent */,
					  1 /* whole_object */, stopAtData, &found);
	if (found)
		return false;
	if (ret < 0)
		return tl::make_unexpected(error(ret, "listing the written objects"));
	return true;
}

Result<std::vector<std::string>> RbdImage::watchers() const
{
	std::vector<rbd_image_watcher_t> list(FirstGuess);
	size_t count = list.size();
	int ret = rbd_watchers_list(image_.get(), list.data(), &count);
	if (ret == -ERANGE) {
		list.resize(count);
		ret = rbd_watchers_list(image_.get(), list.data(), &count);
	}
	if (ret < 0)
		return tl::make_unexpected(error(ret, "listing the watchers"));
	std::vector<std::string> out;
	out.reserve(count);
	for (size_t i = 0; i < count; ++i)
		out.push_back(watcherText(list[i]));
	rbd_watchers_list_cleanup(list.data(), count);
	return out;
}

Result<std::vector<std::string>> RbdImage::lockOwners() const
{
	/*
	 * rbd_lock_get_owners needs the exclusive-lock machinery of a writable
	 * open (-EINVAL when read-only); the header's lock record, which
	 * rbd_list_lockers reads, names the same owner without opening for write.
	 */
	LockerBuffers buffers;
	ssize_t count = -ERANGE;
	for (int attempt = 0; attempt < 3 && count == -ERANGE; ++attempt)
		count = buffers.list(image_.get());
	if (count < 0)
		return tl::make_unexpected(error(static_cast<int>(count), "listing the lockers"));
	return splitNulTerminated(buffers.addrs, static_cast<size_t>(count));
}

Result<void> RbdImage::grow(uint64_t sizeBytes)
{
	const int ret = rbd_resize2(image_.get(), sizeBytes, false, noProgress, nullptr);
	if (ret < 0)
		return tl::make_unexpected(error(ret, "growing"));
	return {};
}

Result<std::optional<std::string>> RbdImage::metadata(const std::string &key) const
{
	std::string value(FirstGuess * 16, '\0');
	for (int attempt = 0; attempt < 3; ++attempt) {
		size_t length = value.size();
		const int ret = rbd_metadata_get(image_.get(), key.c_str(), value.data(), &length);
		if (ret == -ENOENT)
			return std::optional<std::string>();
		if (ret == -ERANGE) {
			value.resize(length);
			continue;
		}
		if (ret < 0)
			return tl::make_unexpected(error(ret, "reading metadata '" + key + "'"));
		/* Copied with its NUL; the length is only set when it did not fit. */
		value.resize(::strnlen(value.data(), value.size()));
		return std::optional<std::string>(std::move(value));
	}
	return tl::make_unexpected(error(-ERANGE, "reading metadata '" + key + "'"));
}

Result<void> RbdImage::setMetadata(const std::string &key, const std::string &value)
{
	const int ret = rbd_metadata_set(image_.get(), key.c_str(), value.c_str());
	if (ret < 0)
		return tl::make_unexpected(error(ret, "writing metadata '" + key + "'"));
	return {};
}

} /* namespace rbdvolume */
