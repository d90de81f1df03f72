/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * HostCryptDevices: the CryptDevices port over this machine's device mapper,
 * through libcryptsetup (host/crypt/luks_device, every call bounded). Our
 * LUKS mappings are found in sysfs alone (no ioctl, no device read), by the
 * name prefix we give them and the UUID libcryptsetup gives a LUKS mapping.
 * The key (VolumeKeys: the operator's keyfile, or the data key in the
 * image's metadata) is read into memory for each format or open and wiped
 * after it; closing and growing need none.
 */
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "engine/ports.hpp"
#include "host/volume_keys.hpp"

namespace rbdvolume {

/* /sys/block/dm-N with dm/name "rbdv-*", dm/uuid "CRYPT-LUKS*", one slave; sorted by name. */
std::vector<CryptMapping> listCryptMappings(const std::string &sysfs = "/sys");

class HostCryptDevices : public CryptDevices
{
public:
	explicit HostCryptDevices(
		Images &images, const GivenPassphrases &given, std::string sysfs = "/sys",
		std::chrono::milliseconds deviceTimeout = std::chrono::seconds(60))
		: keys_(images, given), sysfs_(std::move(sysfs)), deviceTimeout_(deviceTimeout)
	{
	}

	Result<std::vector<CryptMapping>> opened() override;
	/*
	 * Keeps a header it finds (a format of ours cut short: the engine calls it
	 * on a header only then) unless it has no key slot. Leaves the mapping
	 * open: the open that follows finds it there.
	 */
	Result<std::string> formatHeader(const CryptRequest &request,
					 const std::string &device) override;
	Result<std::string> open(const CryptRequest &request, const std::string &device) override;
	Result<Change> close(const std::string &volume) override;
	Result<Change> resize(const std::string &volume) override;

private:
	/* Our mapping of the volume when it is open: the device it shows, or a conflict. */
	Result<std::optional<std::string>> openedOver(const CryptRequest &request,
						      const std::string &device) const;

	/* Opens `device` as the volume's mapping with `key`. */
	Result<std::string> openWith(const CryptRequest &request, const std::string &device,
				     const Secret &key);

	VolumeKeys keys_;
	std::string sysfs_;
	std::chrono::milliseconds deviceTimeout_;
};

} /* namespace rbdvolume */
