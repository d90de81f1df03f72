/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "host/drivers/krbd/krbd_mapper.hpp"

#include <algorithm>
#include <charconv>
#include <string_view>
#include <thread>

#include "host/device_holders.hpp"
#include "host/drivers/tools/cluster_args.hpp"
#include "host/drivers/tools/tool_failure.hpp"

namespace rbdvolume {

namespace {

bool hasOption(const MapRequest &request, const char *option)
{
	const auto &options = request.map.krbdOptions;
	return std::find(options.begin(), options.end(), option) != options.end();
}

std::string join(const std::vector<std::string> &parts, char separator)
{
	std::string out;
	for (const std::string &part : parts) {
		if (!out.empty())
			out += separator;
		out += part;
	}
	return out;
}

std::string displayOf(const MappedImage &mapped)
{
	ImageSpec image;
	image.pool = mapped.pool;
	image.radosNamespace = mapped.radosNamespace;
	image.name = mapped.image;
	image.snapshot = mapped.snapshot;
	return image.display();
}

/* The last non-empty line of the tool's stdout: where rbd prints the new device. */
std::string lastLine(std::string text)
{
	while (!text.empty() && (text.back() == '\n' || text.back() == ' '))
		text.pop_back();
	const size_t newline = text.rfind('\n');
	return newline == std::string::npos ? text : text.substr(newline + 1);
}

/*
 * rbd names the features the kernel lacks in its advice, on stdout: 'You
 * can disable features unsupported by the kernel with "rbd feature disable
 * IMAGE F..."'.
 */
std::string unsupportedFeatures(const std::string &output)
{
	constexpr std::string_view Advice = "\"rbd feature disable ";
	const size_t start = output.find(Advice);
	if (start == std::string::npos)
		return {};
	const size_t end = output.find('"', start + Advice.size());
	const std::string command =
		output.substr(start + Advice.size(), end - start - Advice.size());
	const size_t space = command.find(' ');
	return space == std::string::npos ? std::string() : command.substr(space + 1);
}

} /* namespace */

std::string unsupportedText(const std::string &image, const std::string &output)
{
	const std::string features = unsupportedFeatures(output);
	if (features.empty())
		return "unsupported by krbd: this kernel's rbd refused to map " + image +
		       " (an image feature it lacks? see dmesg); map it with driver = \"nbd\"";
	return "unsupported by krbd: this kernel's rbd cannot map " + image + "'s " + features +
	       "; map it with driver = \"nbd\", or `rbd feature disable " + image + " " + features +
	       "`";
}

bool krbdKnowsAbortOnFull(std::string_view release)
{
	unsigned major = 0;
	const auto [end, error] =
		std::from_chars(release.data(), release.data() + release.size(), major);
	return error == std::errc() && end != release.data() && major >= 5;
}

/*
 * No "noudev" of our own: rbd-volumed runs on the host next to udev, and
 * waiting for udev's "add" means the node and its /dev/rbd/POOL/IMAGE link
 * exist and udev's own blkid run is over when map returns, so our probe and
 * mkfs do not race it. A host without udev (a container) says "noudev" in
 * map.krbd.options. --read-only and --exclusive are applied by rbd after
 * -o, so they win over any option there. abort_on_full comes last: a
 * read-only map writes nothing, the spec may have said it already, or
 * asked for writes held on a full pool (map.krbd.abort-on-full = false).
 */
Command krbdMapCommand(const DriverTools &tools, const MapRequest &request)
{
	Command command;
	command.timeout = tools.mapTimeout;
	command.argv = { tools.rbd, "device", "map", "--device-type", "krbd" };
	appendClusterArgs(command.argv, request.cluster);
	if (request.map.readOnly)
		command.argv.emplace_back("--read-only");
	if (request.map.exclusive)
		command.argv.emplace_back("--exclusive");
	std::vector<std::string> options = request.map.krbdOptions;
	if (tools.krbdAbortOnFull && request.map.krbdAbortOnFull && !request.map.readOnly &&
	    !hasOption(request, "abort_on_full"))
		options.emplace_back("abort_on_full");
	if (!options.empty()) {
		command.argv.emplace_back("-o");
		command.argv.push_back(join(options, ','));
	}
	command.argv.push_back(request.image.display());
	return command;
}

/*
 * By device, so no cluster connection and no credentials are needed. Never
 * "-o force": the kernel refuses to unmap an open device, and that refusal
 * is what keeps a foreign mount of it alive; forcing is for an operator.
 * "noudev" follows the map's, since a host without udev would otherwise wait
 * for a "remove" event that never comes.
 */
Command krbdUnmapCommand(const DriverTools &tools, const MapRequest &request,
			 const std::string &device)
{
	Command command;
	command.timeout = tools.unmapTimeout;
	command.argv = { tools.rbd, "device", "unmap", "--device-type", "krbd" };
	if (hasOption(request, "noudev")) {
		command.argv.emplace_back("-o");
		command.argv.emplace_back("noudev");
	}
	command.argv.push_back(device);
	return command;
}

Result<std::vector<MappedImage>> KrbdMapper::list()
{
	return listKrbdMappings(roots_);
}

/* `rbd device map` would map an image twice: only a missing mapping is mapped. */
Result<std::string> KrbdMapper::map(const MapRequest &request)
{
	for (const MappedImage &mapped : listKrbdMappings(roots_)) {
		if (mapsImage(mapped, request.image))
			return mapped.device;
	}
	const Command command = krbdMapCommand(tools_, request);
	auto output = runner_.run(command);
	if (!output)
		return tl::make_unexpected(output.error());
	if (!output->succeeded()) {
		auto failed = toolFailure("rbd device map " + request.image.display(), *output);
		if (failed.value().code == Errc::Unsupported)
			return fail(Errc::Unsupported,
				    unsupportedText(request.image.display(),
						    output->out + output->err) +
					    " (" + failed.value().message + ")",
				    failed.value().sysErrno);
		return failed;
	}
	return mappedDevice(request, *output);
}

/*
 * The device is what sysfs says maps the image, not what rbd printed: the
 * printed name must be one of those, and without one there must be exactly one.
 */
Result<std::string> KrbdMapper::mappedDevice(const MapRequest &request, const CommandOutput &output)
{
	std::string printed = lastLine(output.out);
	std::vector<std::string> devices;
	for (const MappedImage &mapped : listKrbdMappings(roots_)) {
		if (mapsImage(mapped, request.image))
			devices.push_back(mapped.device);
	}
	if (std::find(devices.begin(), devices.end(), printed) != devices.end())
		return printed;
	const std::string what = "rbd device map " + request.image.display() + " succeeded";
	if (devices.empty())
		return fail(Errc::Io, what + " but no device in " + roots_.sysfs +
					      "/bus/rbd/devices maps the image");
	if (devices.size() > 1 || !printed.empty())
		return fail(Errc::Conflict, what + " and printed '" + printed +
						    "', but the image is mapped as " +
						    join(devices, ' '));
	return devices.front();
}

Result<Change> KrbdMapper::unmap(const MapRequest &request, const std::string &device)
{
	const auto mappings = listKrbdMappings(roots_);
	const auto found = std::find_if(mappings.begin(), mappings.end(),
					[&](const MappedImage &m) { return m.device == device; });
	if (found == mappings.end())
		return Change::Unchanged;
	if (!mapsImage(*found, request.image))
		return fail(Errc::Conflict, device + " maps " + displayOf(*found) + ", not " +
						    request.image.display() +
						    ": refusing to unmap it");
	const Command command = krbdUnmapCommand(tools_, request, device);
	for (unsigned attempt = 1;; attempt++) {
		auto output = runner_.run(command);
		if (!output)
			return tl::make_unexpected(output.error());
		if (output->succeeded())
			return Change::Changed;
		auto failed = toolFailure("rbd device unmap " + device, *output);
		if (failed.value().code != Errc::Busy)
			return failed;
		/*
		 * The kernel refuses to unmap an open device. Say who holds it;
		 * with nobody to name, the opener came and went (udev's probe
		 * after our unmount, which rbd itself waits out only with udev
		 * in charge): try again shortly.
		 */
		const std::vector<std::string> holders = deviceHolders(roots_, device);
		if (holders.empty() && attempt < BusyAttempts) {
			std::this_thread::sleep_for(tools_.busyRetryInterval);
			continue;
		}
		return fail(Errc::Busy,
			    failed.value().message + ": " +
				    deviceHoldersText(holders, "no holder found") +
				    "; not forcing it (rbd device unmap -o force is an operator's "
				    "decision)",
			    EBUSY);
	}
}

} /* namespace rbdvolume */
