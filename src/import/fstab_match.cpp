/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Which image each fstab entry mounts: the /dev/rbd/ path that rbdmap's mount(8) call names. */
#include "import/fstab_match.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <string>
#include <utility>

namespace rbdvolume::importer {

namespace {

bool allDigits(std::string_view text)
{
	return !text.empty() &&
	       std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

/* /dev/rbd0, /dev/rbd12p1: kernel names, which follow the order of mapping. */
bool isKernelRbdName(std::string_view device)
{
	constexpr std::string_view Prefix = "/dev/rbd";
	if (!device.starts_with(Prefix))
		return false;
	device.remove_prefix(Prefix.size());
	const size_t part = device.find('p');
	return allDigits(device.substr(0, part)) &&
	       (part == std::string_view::npos || allDigits(device.substr(part + 1)));
}

} /* namespace */

void matchFstab(const std::vector<FstabEntry> &entries, std::vector<Draft> &drafts,
		const ImportSource &rbdmap, const ImportSource &fstab,
		std::vector<ImportMessage> &unmatched)
{
	std::map<std::string, Draft *, std::less<>> byDevice;
	for (Draft &draft : drafts)
		byDevice.emplace(draft.spec.image.display(), &draft);
	const auto say = [&unmatched, &fstab](ImportLevel level, unsigned line, std::string text) {
		unmatched.push_back({ level, fstab.path, line, std::move(text), {} });
	};

	for (const FstabEntry &entry : entries) {
		if (isKernelRbdName(entry.device)) {
			const std::string why = "' is a kernel device name, which follows the "
						"order of mapping: not matched";
			say(ImportLevel::Warning, entry.line,
			    "'" + entry.device + why + " (use /dev/rbd/POOL/IMAGE)");
			continue;
		}
		if (!entry.device.starts_with(RbdDeviceDir))
			continue;
		const std::string_view path =
			std::string_view(entry.device).substr(RbdDeviceDir.size());
		if (const auto whole = byDevice.find(path); whole != byDevice.end()) {
			if (entry.mountPoint.empty()) {
				const std::string text =
					"expected DEVICE MOUNTPOINT [TYPE ...]; this "
					"entry mounts nothing and is not imported";
				whole->second->messages.push_back(
					{ ImportLevel::Warning, fstab.path, entry.line, text, {} });
				continue;
			}
			whole->second->mounts.push_back(&entry);
			continue;
		}
		const size_t part = path.rfind("-part");
		if (part != std::string_view::npos && allDigits(path.substr(part + 5))) {
			if (const auto image = byDevice.find(path.substr(0, part));
			    image != byDevice.end()) {
				image->second->partitions.push_back(&entry);
				continue;
			}
		}
		say(ImportLevel::Note, entry.line,
		    "'" + entry.device + "' is not listed in " + rbdmap.path + "; not imported");
	}
}

} /* namespace rbdvolume::importer */
