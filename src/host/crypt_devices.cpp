/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "host/crypt_devices.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <fcntl.h>
#include <unistd.h>

#include "common/bounded_call.hpp"
#include "common/errno_text.hpp"
#include "common/file_io.hpp"
#include "common/fs_util.hpp"
#include "common/unique_fd.hpp"
#include "host/blkid_block_probe.hpp"
#include "host/crypt/luks_device.hpp"

namespace rbdvolume {

namespace {

constexpr std::string_view OurPrefix = "rbdv-";
constexpr std::string_view LuksUuidPrefix = "CRYPT-LUKS";

bool startsWith(const std::string &text, std::string_view prefix)
{
	return text.compare(0, prefix.size(), prefix) == 0;
}

/* "aes-xts-plain64": cipher "aes", mode "xts-plain64", as cryptsetup splits it. */
LuksFormat luksFormatOf(const EncryptionSpec &spec)
{
	LuksFormat format;
	const size_t dash = spec.cipher.find('-');
	format.cipher = spec.cipher.substr(0, dash);
	format.cipherMode =
		dash == std::string::npos ? std::string() : spec.cipher.substr(dash + 1);
	format.keyBits = spec.keyBits;
	format.pbkdf = pbkdfName(spec.pbkdf);
	format.pbkdfTimeMs = static_cast<uint32_t>(spec.pbkdfTime.count());
	return format;
}

/* LUKS2's default header area: its two headers and key slots, before the data. */
constexpr uint64_t LuksHeaderAreaBytes = uint64_t{ 16 } << 20;

/* Zeroes `ranges` of `device` (each clipped to its size), then syncs it. */
Result<void> zeroRanges(const std::string &device, std::vector<ByteRange> ranges,
			std::chrono::milliseconds limit)
{
	return boundedCall<void>(
		device, limit, "zeroing " + device,
		[device, ranges = std::move(ranges)]() -> Result<void> {
			const UniqueFd fd(::open(device.c_str(), O_WRONLY | O_CLOEXEC));
			if (!fd.valid())
				return failErrno("cannot open " + device, errno);
			const off_t end = lseek(fd.get(), 0, SEEK_END);
			if (end < 0)
				return failErrno("cannot size " + device, errno);
			const auto size = static_cast<uint64_t>(end);
			const std::vector<char> zeros(size_t{ 64 } * 1024, 0);
			for (const ByteRange &range : ranges) {
				const uint64_t stop = std::min(size, range.offset + range.length);
				for (uint64_t at = range.offset; at < stop;) {
					const size_t want = static_cast<size_t>(
						std::min<uint64_t>(zeros.size(), stop - at));
					const ssize_t n = pwrite(fd.get(), zeros.data(), want,
								 static_cast<off_t>(at));
					if (n <= 0)
						return fail(
							Errc::Io,
							"cannot write " + device + " at offset " +
								std::to_string(at) + ": " +
								(n == 0 ? std::string(
										  "nothing written")
									: errnoText(errno)),
							n == 0 ? EIO : errno);
					at += static_cast<uint64_t>(n);
				}
			}
			if (fsync(fd.get()) < 0)
				return failErrno("cannot sync " + device, errno);
			return {};
		});
}

Result<void> zeroRange(const std::string &device, uint64_t bytes, std::chrono::milliseconds limit)
{
	return zeroRanges(device, { ByteRange{ 0, bytes } }, limit);
}

/*
 * A new header decrypts the image's zeros to noise, which a probe rightly
 * calls data: zero, through the mapping, where the probe looks for it.
 */
Result<void> zeroBlankRegions(const std::string &device, std::chrono::milliseconds limit)
{
	auto size = blockDeviceSize(device);
	if (!size)
		return tl::make_unexpected(size.error());
	return zeroRanges(device, blankRegions(*size), limit);
}

std::string describe(const EncryptionSpec &spec)
{
	return "LUKS2, " + spec.cipher + ", " + std::to_string(spec.keyBits) + "-bit key, " +
	       pbkdfName(spec.pbkdf);
}

} /* namespace */

std::vector<CryptMapping> listCryptMappings(const std::string &sysfs)
{
	std::vector<CryptMapping> found;
	const std::string block = sysfs + "/block";
	for (const std::string &entry : sortedEntries(block)) {
		if (!startsWith(entry, "dm-"))
			continue;
		const std::string dir = block + "/" + entry;
		const std::string name = attributeText(dir + "/dm/name");
		if (!startsWith(name, OurPrefix) ||
		    !startsWith(attributeText(dir + "/dm/uuid"), LuksUuidPrefix))
			continue;
		/* A LUKS mapping decrypts exactly one device; anything else is not ours to touch. */
		const std::vector<std::string> slaves = sortedEntries(dir + "/slaves");
		if (slaves.size() != 1)
			continue;
		found.push_back(CryptMapping{ name, "/dev/mapper/" + name, "/dev/" + slaves.front(),
					      attributeText(dir + "/ro") == "1" });
	}
	std::sort(found.begin(), found.end(),
		  [](const CryptMapping &a, const CryptMapping &b) { return a.name < b.name; });
	return found;
}

Result<std::vector<CryptMapping>> HostCryptDevices::opened()
{
	return listCryptMappings(sysfs_);
}

Result<std::optional<std::string>> HostCryptDevices::openedOver(const CryptRequest &request,
								const std::string &device) const
{
	const std::string name = cryptNameOf(request.volume);
	for (const CryptMapping &mapping : listCryptMappings(sysfs_)) {
		if (mapping.name != name)
			continue;
		if (mapping.backing != device)
			return fail(Errc::Conflict, mapping.device + " is open over " +
							    mapping.backing + ", not " + device);
		return std::optional<std::string>(mapping.device);
	}
	return std::optional<std::string>();
}

Result<std::string> HostCryptDevices::formatHeader(const CryptRequest &request,
						   const std::string &device)
{
	const LuksLimits limits{ deviceTimeout_ };
	auto header = readLuksHeader(device, limits);
	if (!header && header.error().code != Errc::NotFound)
		return tl::make_unexpected(header.error());
	/* A format of ours cut short between the header and its key slot: nothing to keep. */
	if (header && header->keyslots.empty()) {
		if (auto zeroed = zeroRange(device, LuksHeaderAreaBytes, deviceTimeout_); !zeroed)
			return tl::make_unexpected(zeroed.error());
		header = fail(Errc::NotFound, "no key slot");
	}
	auto mapped = openedOver(request, device);
	if (!mapped)
		return tl::make_unexpected(mapped.error());
	/* A format cut short after its open needs no key to be finished. */
	if (!header || !*mapped) {
		auto key = header ? keys_.existing(request) : keys_.forFormat(request);
		if (!key)
			return tl::make_unexpected(key.error());
		if (!header) {
			if (auto made = formatLuks(device, luksFormatOf(request.encryption), *key,
						   limits);
			    !made)
				return tl::make_unexpected(made.error());
		}
		if (!*mapped) {
			auto opened = openWith(request, device, *key);
			if (!opened)
				return tl::make_unexpected(opened.error());
			*mapped = std::move(*opened);
		}
	}
	if (auto zeroed = zeroBlankRegions(**mapped, deviceTimeout_); !zeroed)
		return tl::make_unexpected(zeroed.error());
	if (auto marked = keys_.formatted(request); !marked)
		return tl::make_unexpected(marked.error());
	return describe(request.encryption);
}

Result<std::string> HostCryptDevices::open(const CryptRequest &request, const std::string &device)
{
	auto already = openedOver(request, device);
	if (!already)
		return tl::make_unexpected(already.error());
	if (*already)
		return **already;
	auto key = keys_.existing(request);
	if (!key)
		return tl::make_unexpected(key.error());
	return openWith(request, device, *key);
}

Result<std::string> HostCryptDevices::openWith(const CryptRequest &request,
					       const std::string &device, const Secret &key)
{
	const std::string name = cryptNameOf(request.volume);
	if (auto opened =
		    openLuks(device, name, key, request.readOnly, LuksLimits{ deviceTimeout_ });
	    !opened)
		return tl::make_unexpected(opened.error());
	return cryptDeviceOf(request.volume);
}

Result<Change> HostCryptDevices::close(const std::string &volume)
{
	auto closed = closeLuks(cryptNameOf(volume), LuksLimits{ deviceTimeout_ });
	if (!closed)
		return tl::make_unexpected(closed.error());
	return *closed ? Change::Changed : Change::Unchanged;
}

Result<Change> HostCryptDevices::resize(const std::string &volume)
{
	if (auto grown = resizeLuks(cryptNameOf(volume), LuksLimits{ deviceTimeout_ }); !grown)
		return tl::make_unexpected(grown.error());
	return Change::Changed;
}

} /* namespace rbdvolume */
