/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "host/drivers/nbd/nbd_devices.hpp"

#include <algorithm>
#include <filesystem>
#include <thread>

#include "common/fs_util.hpp"

namespace rbdvolume {

namespace {

std::optional<std::string> attribute(const std::string &path)
{
	auto text = readFile(path);
	if (!text || !*text)
		return std::nullopt;
	std::string value = std::move(**text);
	while (!value.empty() && (value.back() == '\n' || value.back() == ' '))
		value.pop_back();
	return value;
}

std::vector<std::string> nbdNames(const SystemRoots &roots)
{
	std::vector<std::string> names = sortedEntries(roots.sysfs + "/block");
	std::erase_if(names, [](const std::string &name) {
		return nbdDeviceName("/dev/" + name).empty();
	});
	return names;
}

} /* namespace */

std::string nbdDeviceName(const std::string &device)
{
	constexpr std::string_view Prefix = "/dev/nbd";
	if (device.size() <= Prefix.size() || device.rfind(Prefix, 0) != 0 ||
	    device.find_first_not_of("0123456789", Prefix.size()) != std::string::npos)
		return {};
	return device.substr(5);
}

std::optional<std::string> nbdBackend(const SystemRoots &roots, const std::string &name)
{
	return attribute(roots.sysfs + "/block/" + name + "/backend");
}

bool nbdReadOnly(const SystemRoots &roots, const std::string &name)
{
	return attribute(roots.sysfs + "/block/" + name + "/ro") == "1";
}

bool nbdConnected(const SystemRoots &roots, const std::string &name)
{
	return attribute(roots.sysfs + "/block/" + name + "/pid").has_value();
}

std::optional<std::string> nbdDeviceWithCookie(const SystemRoots &roots, const std::string &cookie)
{
	if (cookie.empty())
		return std::nullopt;
	for (const std::string &name : nbdNames(roots)) {
		if (nbdBackend(roots, name) == cookie)
			return "/dev/" + name;
	}
	return std::nullopt;
}

std::vector<std::string> nbdDevicesOfPid(const SystemRoots &roots, const std::string &pid)
{
	std::vector<std::string> devices;
	for (const std::string &name : nbdNames(roots)) {
		if (!pid.empty() && attribute(roots.sysfs + "/block/" + name + "/pid") == pid)
			devices.push_back("/dev/" + name);
	}
	return devices;
}

NbdCheck checkNbd(const SystemRoots &roots, const std::string &cookie,
		  const std::vector<std::string> &served)
{
	if (auto device = nbdDeviceWithCookie(roots, cookie))
		return { NbdState::Ready, std::move(*device) };
	for (const std::string &device : served) {
		const std::string name = nbdDeviceName(device);
		if (!name.empty() && nbdConnected(roots, name))
			return { NbdState::NotNetlink, device };
	}
	return {};
}

NbdCheck waitForNbd(const std::function<NbdCheck()> &check,
		    std::chrono::steady_clock::time_point deadline,
		    std::chrono::milliseconds interval)
{
	NbdCheck previous;
	for (;;) {
		NbdCheck now = check();
		if (now.state == NbdState::Ready ||
		    (now.state == NbdState::NotNetlink && now == previous))
			return now;
		if (std::chrono::steady_clock::now() >= deadline)
			return {};
		previous = std::move(now);
		std::this_thread::sleep_for(interval);
	}
}

} /* namespace rbdvolume */
