/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "host/drivers/nbd/nbd_mapper.hpp"

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <unistd.h>

#include "common/fs_util.hpp"
#include "common/volume_name.hpp"
#include "host/device_claim.hpp"
#include "host/device_holders.hpp"
#include "host/drivers/nbd/nbd_config.hpp"
#include "host/drivers/nbd/nbd_devices.hpp"
#include "host/drivers/nbd/nbd_netlink.hpp"
#include "host/drivers/tools/tool_failure.hpp"

namespace rbdvolume {

namespace {

/* Devices rbd-nbd processes serve with this image, from their command lines. */
std::vector<std::string> devicesServing(const SystemRoots &roots, const ImageSpec &image)
{
	std::vector<std::string> devices;
	for (const MappedImage &mapped : listNbdMappings(roots)) {
		if (mapsImage(mapped, image))
			devices.push_back(mapped.device);
	}
	return devices;
}

} /* namespace */

Command nbdUnmapCommand(const DriverTools &tools, const std::string &device)
{
	Command command;
	command.timeout = tools.unmapTimeout;
	command.argv = { tools.rbdNbd, "unmap", device };
	return command;
}

/*
 * Every device an rbd-nbd serves, and every device that carries one of our
 * cookies while nothing serves it: its server died and the kernel holds its
 * I/O for a new one. Such a device is still the volume's mapping (a pass
 * that took it for unmapped would unmount a volume that is about to heal),
 * healthy while systemd brings a server back, faulty when none is coming.
 */
Result<std::vector<MappedImage>> NbdMapper::list()
{
	std::vector<MappedImage> mapped = listNbdMappings(roots_);
	for (const auto &[volume, config] : configs()) {
		const std::optional<std::string> device =
			nbdDeviceWithCookie(roots_, config.cookie);
		if (!device || std::any_of(mapped.begin(), mapped.end(), [&](const MappedImage &m) {
			    return m.device == *device;
		    }))
			continue;
		MappedImage image;
		if (!parseImageSpec(config.image, image))
			continue;
		image.device = *device;
		image.driver = Driver::Nbd;
		image.readOnly = nbdReadOnly(roots_, nbdDeviceName(*device));
		image.owner = volume;
		image.fault = serverFault(volume, *device);
		mapped.push_back(std::move(image));
	}
	return mapped;
}

std::vector<NbdRequestBound> NbdMapper::boundRequests(uint64_t seconds)
{
	std::vector<NbdRequestBound> bounds;
	for (const auto &[volume, config] : configs()) {
		const std::optional<std::string> device =
			nbdDeviceWithCookie(roots_, config.cookie);
		if (!device)
			continue;
		auto set = setNbdRequestTimeout(*device, config.cookie, seconds);
		bounds.push_back({ volume, *device,
				   set ? std::nullopt : std::optional<Error>(set.error()) });
	}
	return bounds;
}

std::string NbdMapper::serverFault(const std::string &volume, const std::string &device)
{
	const std::string unit = unitName(UnitTemplate, volume);
	auto state = units_.activeState(UnitTemplate, volume);
	/* A restart is under way ("activating"), or the new server is about to connect. */
	if (state && (*state == "activating" || *state == "active" || *state == "reloading"))
		return {};
	/*
	 * Its server failed and systemd is cleaning up after it (ExecStopPost=):
	 * Restart= brings a new one next. A stop someone asked for ends "success".
	 * Should no restart follow after all, the unit settles failed and the
	 * next pass says so.
	 */
	if (state && *state == "deactivating") {
		if (const auto why = units_.result(UnitTemplate, volume); why && *why != "success")
			return {};
	}
	return "nothing serves " + device + ": " + unit +
	       (state ? " is " + *state : " cannot be asked (" + state.error().message + ")") +
	       ". The kernel holds the device's I/O for a new server (failing it after the "
	       "reattach timeout, or sooner with an io-timeout). `systemctl start " +
	       unit +
	       "` attaches one and keeps the mounts and their unwritten data; `rbd-volumectl "
	       "down " +
	       volume + "` gives them up";
}

/* Our volumes' configs, by volume: unreadable ones are left out. */
std::vector<std::pair<std::string, NbdVolumeConfig>> NbdMapper::configs() const
{
	std::vector<std::pair<std::string, NbdVolumeConfig>> found;
	std::error_code ec;
	for (const auto &entry : std::filesystem::directory_iterator(tools_.nbdConfigDir, ec)) {
		const std::string file = entry.path().filename().string();
		if (!file.ends_with(".conf"))
			continue;
		auto text = readFile(entry.path().string());
		if (!text || !*text)
			continue;
		auto config = parseNbdConfig(**text, entry.path().string());
		if (config)
			found.emplace_back(file.substr(0, file.size() - 5), std::move(*config));
	}
	std::sort(found.begin(), found.end(),
		  [](const auto &a, const auto &b) { return a.first < b.first; });
	return found;
}

Result<void> NbdMapper::unmapDevice(const std::string &device)
{
	auto output = runner_.run(nbdUnmapCommand(tools_, device));
	if (!output)
		return tl::make_unexpected(output.error());
	if (!output->succeeded())
		return toolFailure("rbd-nbd unmap " + device, *output);
	return {};
}

/* rbd-nbd, like rbd, maps an image twice when asked: only a missing mapping is mapped. */
Result<std::string> NbdMapper::map(const MapRequest &request)
{
	if (auto problem = volumeNameProblem(request.volume))
		return fail(Errc::InvalidArgument, std::move(*problem));
	if (const auto served = devicesServing(roots_, request.image); !served.empty())
		return served.front();
	if (auto previous = servedBefore(request); !previous)
		return tl::make_unexpected(previous.error());
	/*
	 * A device holding our cookie with no server is one whose rbd-nbd died:
	 * starting the unit attaches a new server to it, as a map would not.
	 */
	if (auto written = writeConfig(request); !written)
		return tl::make_unexpected(written.error());
	/* Under systemd, start returns once the unit's ExecStartPost saw the device. */
	if (auto started = units_.start(UnitTemplate, request.volume); !started)
		return tl::make_unexpected(started.error());
	return awaitDevice(request);
}

/*
 * The unit still serves the image an older spec named (the spec changed
 * while it was mapped): starting it would do nothing, so say what is in the
 * way instead of waiting for a cookie that cannot come.
 */
Result<void> NbdMapper::servedBefore(const MapRequest &request)
{
	const std::string path = nbdConfigPath(tools_.nbdConfigDir, request.volume);
	auto text = readFile(path);
	if (!text || !*text)
		return {};
	auto previous = parseNbdConfig(**text, path);
	if (!previous || previous->cookie == nbdCookie(request))
		return {};
	if (auto device = nbdDeviceWithCookie(roots_, previous->cookie))
		return fail(Errc::Conflict, unitName(UnitTemplate, request.volume) +
						    " still serves " + previous->image + " on " +
						    *device + ": unmap it before mapping " +
						    request.image.display());
	return {};
}

Result<void> NbdMapper::writeConfig(const MapRequest &request)
{
	auto text = formatNbdConfig(nbdConfigFor(request, tools_));
	if (!text)
		return tl::make_unexpected(text.error());
	/* 0700/0600: it names the keyring, and only root's units read it. */
	if (auto made = makeDirectories(tools_.nbdConfigDir, 0700); !made)
		return made;
	return writeFileAtomic(nbdConfigPath(tools_.nbdConfigDir, request.volume), *text, 0600);
}

Result<std::string> NbdMapper::awaitDevice(const MapRequest &request)
{
	const std::string cookie = nbdCookie(request);
	const NbdCheck check = waitForNbd(
		[&] { return checkNbd(roots_, cookie, devicesServing(roots_, request.image)); },
		std::chrono::steady_clock::now() + tools_.nbdReadyTimeout, tools_.nbdPollInterval);
	switch (check.state) {
	case NbdState::Ready:
		return check.device;
	case NbdState::NotNetlink:
		return fail(
			Errc::Unsupported,
			"rbd-nbd mapped " + request.image.display() + " on " + check.device +
				" through the ioctl interface (no netlink nbd, or a kernel "
				"older than 5.14 without /sys/block/nbdN/backend): it could not "
				"survive a restart of rbd-nbd, so it was unmapped again" +
				rollBack(request, check.device));
	case NbdState::Absent:
		break;
	}
	return fail(Errc::Timeout, unitName(UnitTemplate, request.volume) +
					   " started, but no /dev/nbd* carries cookie " + cookie +
					   " within " +
					   std::to_string(tools_.nbdReadyTimeout.count()) + " ms");
}

std::string NbdMapper::rollBack(const MapRequest &request, const std::string &device)
{
	std::string problems;
	if (auto unmapped = unmapDevice(device); !unmapped)
		problems += "; " + unmapped.error().message;
	if (auto stopped = units_.stop(UnitTemplate, request.volume); !stopped)
		problems += "; " + stopped.error().message;
	return problems;
}

bool NbdMapper::isOrphan(const NbdVolumeConfig &config) const
{
	if (nbdDeviceWithCookie(roots_, config.cookie))
		return false;
	MappedImage image;
	if (!parseImageSpec(config.image, image))
		return false;
	const std::vector<MappedImage> served = listNbdMappings(roots_);
	return std::none_of(served.begin(), served.end(), [&](const MappedImage &m) {
		return m.pool == image.pool && m.radosNamespace == image.radosNamespace &&
		       m.image == image.image && m.snapshot == image.snapshot;
	});
}

Result<std::vector<std::string>> NbdMapper::orphans()
{
	std::vector<std::string> found;
	for (const auto &[volume, config] : configs()) {
		if (isOrphan(config))
			found.push_back(volume);
	}
	return found;
}

Result<Change> NbdMapper::stopOrphan(const MapRequest &request)
{
	const std::string path = nbdConfigPath(tools_.nbdConfigDir, request.volume);
	auto text = readFile(path);
	if (!text || !*text)
		return Change::Unchanged;
	auto config = parseNbdConfig(**text, path);
	if (config && !isOrphan(*config))
		return Change::Unchanged;
	if (auto stopped = units_.stop(UnitTemplate, request.volume); !stopped)
		return tl::make_unexpected(stopped.error());
	(void)unlink(path.c_str());
	return Change::Changed;
}

/*
 * The device is ours when an rbd-nbd serves our image on it, or when it
 * carries our cookie (after a re-attach the kernel's pid attribute still
 * names the dead server, so the command line cannot be found from it).
 */
Result<Change> NbdMapper::unmap(const MapRequest &request, const std::string &device)
{
	const std::string name = nbdDeviceName(device);
	if (name.empty())
		return fail(Errc::InvalidArgument, "'" + device + "' is no nbd device");
	if (auto problem = volumeNameProblem(request.volume))
		return fail(Errc::InvalidArgument, std::move(*problem));
	const std::string cookie = nbdCookie(request);
	const std::optional<std::string> backend = nbdBackend(roots_, name);
	const auto served = devicesServing(roots_, request.image);
	const bool ours = backend == cookie ||
			  std::find(served.begin(), served.end(), device) != served.end();
	if (!ours && !nbdConnected(roots_, name) && !backend) {
		/*
		 * Gone already. A unit still trying to map is stopped, unless our
		 * cookie sits on another device (then the unit serves that one).
		 */
		if (!nbdDeviceWithCookie(roots_, cookie))
			(void)units_.stop(UnitTemplate, request.volume);
		return Change::Unchanged;
	}
	if (!ours)
		return fail(Errc::Conflict, device + " is not rbd-volume's mapping of " +
						    request.image.display() +
						    ": refusing to unmap it");
	/*
	 * An nbd disconnect, unlike a krbd unmap, does not care who has the
	 * device open: a mount on it would just see I/O errors.
	 */
	if (!waitUntilUnclaimed(device))
		return fail(Errc::Busy,
			    device + " is in use: " +
				    deviceHoldersText(deviceHolders(roots_, device),
						      "mounted or held") +
				    "; not unmapping it",
			    EBUSY);
	if (auto unmapped = unmapDevice(device); !unmapped)
		return tl::make_unexpected(unmapped.error());
	/* rbd-nbd has exited 0 (no restart); this settles the unit. */
	if (auto stopped = units_.stop(UnitTemplate, request.volume); !stopped)
		return tl::make_unexpected(stopped.error());
	(void)unlink(nbdConfigPath(tools_.nbdConfigDir, request.volume).c_str());
	return Change::Changed;
}

} /* namespace rbdvolume */
