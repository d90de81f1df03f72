/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "host/drivers/krbd/krbd_mapper.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <fcntl.h>
#include <memory>
#include <string_view>
#include <thread>
#include <unistd.h>

#include "common/bounded_call.hpp"
#include "common/errno_text.hpp"
#include "common/file_io.hpp"
#include "common/unique_fd.hpp"
#include "host/device_holders.hpp"
#include "host/drivers/krbd/kernel_key.hpp"
#include "host/drivers/krbd/krbd_add.hpp"
#include "host/drivers/krbd/udev_disk_watch.hpp"
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

/* ROOT/bus/rbd/NAME_single_major where the kernel has it, else ROOT/bus/rbd/NAME; "" without rbd. */
std::string busFile(const SystemRoots &roots, const std::string &name)
{
	const std::string bus = roots.sysfs + "/bus/rbd/";
	if (access((bus + name + "_single_major").c_str(), W_OK) == 0)
		return bus + name + "_single_major";
	if (access((bus + name).c_str(), W_OK) == 0)
		return bus + name;
	return {};
}

/* The feature bits this kernel's rbd maps ("0x1bd"); all of them when it does not say. */
uint64_t supportedFeatures(const SystemRoots &roots)
{
	auto text = readFileBounded(roots.sysfs + "/bus/rbd/supported_features", 64);
	uint64_t bits = 0;
	if (!text || !*text || !(*text)->starts_with("0x") ||
	    std::from_chars((*text)->data() + 2, (*text)->data() + (*text)->size(), bits, 16).ec !=
		    std::errc())
		return ~uint64_t{ 0 };
	return bits;
}

/* One write(2) of `line` to a sysfs control file; the kernel's errno when it refuses. */
Result<void> writeControl(const std::string &file, const std::string &line)
{
	const UniqueFd fd(open(file.c_str(), O_WRONLY | O_CLOEXEC));
	if (!fd.valid())
		return failErrno("opening " + file, errno);
	if (write(fd.get(), line.data(), line.size()) < 0) {
		const int err = errno;
		return fail(errcForErrno(err), file + ": " + errnoText(err), err);
	}
	return {};
}

/* "/dev/rbd12" -> "12", the id the remove file takes; "" for any other name. */
std::string krbdId(const std::string &device)
{
	constexpr std::string_view Prefix = "/dev/rbd";
	if (!device.starts_with(Prefix) || device.size() == Prefix.size() ||
	    device.find_first_not_of("0123456789", Prefix.size()) != std::string::npos)
		return {};
	return device.substr(Prefix.size());
}

/* Listening to udev for the map's (unmap's) event, unless the spec says the host has none. */
Result<UdevDiskWatch> udevWatchFor(const MapRequest &request)
{
	return hasOption(request, "noudev") ? Result<UdevDiskWatch>(UdevDiskWatch())
					    : UdevDiskWatch::start();
}

/* The refusal for `features` ("journaling data-pool"), in rbd's words and with its way out. */
std::string featuresRefused(const std::string &image, const std::string &features)
{
	return "unsupported by krbd: this kernel's rbd cannot map " + image + "'s " + features +
	       "; map it with driver = \"nbd\", or `rbd feature disable " + image + " " + features +
	       "`";
}

} /* namespace */

std::string unsupportedText(const std::string &image, const std::string &output)
{
	const std::string features = unsupportedFeatures(output);
	if (features.empty())
		return "unsupported by krbd: this kernel's rbd refused to map " + image +
		       " (an image feature it lacks? see dmesg); map it with driver = \"nbd\"";
	return featuresRefused(image, features);
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
	if (auto mapped = mapInKernel(request))
		return *mapped;
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
	return mappedDevice(request, output->out);
}

/*
 * The map `rbd device map` makes, made here: the same add line, without
 * its process (a second start of librbd and librados, a second cluster
 * connection, a wait of its own). nullopt leaves the map to the rbd tool:
 * a kernel without rbd loaded (the tool loads it), a key the spec's files
 * do not hold (the tool reads ceph.conf for it), caps that do not let the
 * client read the monitor map, a kernel without the "ceph" key type.
 */
std::optional<Result<std::string>> KrbdMapper::mapInKernel(const MapRequest &request)
{
	const std::string addFile = busFile(roots_, "add");
	if (addFile.empty() || cluster_ == nullptr)
		return std::nullopt;
	auto key = cephxKeyOf(request.cluster);
	if (!key && key.error().code == Errc::NotFound)
		return std::nullopt;
	if (!key)
		return tl::make_unexpected(key.error());
	const std::string image = request.image.display();
	auto facts = cluster_->kernelMapFacts(ImageRequest{ request.volume, request.image,
							    request.cluster, request.map.readOnly,
							    request.map.multiWriter });
	if (!facts && facts.error().code == Errc::PermissionDenied)
		return std::nullopt; /* caps without `mon dump`: rbd reads ceph.conf's monitors */
	if (!facts)
		return tl::make_unexpected(facts.error());
	if (const std::string missing = missingFeatures(facts->features, supportedFeatures(roots_),
							request.map.readOnly);
	    !missing.empty())
		return fail(Errc::Unsupported, featuresRefused(image, missing), ENXIO);
	const std::string keyName = KernelKey::newName();
	auto line = krbdAddLine(request, *facts, krbdKernelOptions(tools_, request), keyName);
	if (!line)
		return tl::make_unexpected(line.error());
	auto watch = udevWatchFor(request);
	if (!watch)
		return tl::make_unexpected(watch.error());
	const auto started = std::chrono::steady_clock::now();
	auto secret = std::make_shared<Secret>(std::move(*key));
	/* false: the kernel has no "ceph" key type; the rbd tool passes the secret itself */
	auto written = boundedCall<bool>(
		"krbd-map:" + image, tools_.mapTimeout, "mapping " + image + " through " + addFile,
		[addFile, line = *line, keyName, secret]() -> Result<bool> {
			auto kernelKey = KernelKey::add(*secret, keyName);
			if (!kernelKey && kernelKey.error().code == Errc::Unsupported)
				return false;
			if (!kernelKey)
				return tl::make_unexpected(kernelKey.error());
			auto done = writeControl(addFile, line);
			if (!done)
				return tl::make_unexpected(done.error());
			return true;
		});
	if (written && !*written)
		return std::nullopt;
	if (!written && written.error().sysErrno == ENXIO)
		return fail(Errc::Unsupported,
			    unsupportedText(image, "") + " (" + written.error().message + ")",
			    ENXIO);
	if (!written)
		return fail(written.error().code,
			    "mapping " + image + ": " + written.error().message,
			    written.error().sysErrno);
	auto device = mappedDevice(request, "");
	if (!device)
		return device;
	const auto spent = std::chrono::duration_cast<std::chrono::milliseconds>(
		std::chrono::steady_clock::now() - started);
	auto announced = watch->waitForAdd(
		device->substr(std::string_view("/dev/").size()),
		std::max(tools_.mapTimeout - spent, std::chrono::milliseconds(1000)));
	if (!announced)
		return tl::make_unexpected(announced.error());
	return device;
}

/*
 * The device is what sysfs says maps the image, not what rbd printed: the
 * printed name must be one of those, and without one there must be exactly one.
 */
Result<std::string> KrbdMapper::mappedDevice(const MapRequest &request, const std::string &out)
{
	std::string printed = lastLine(out);
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
	for (unsigned attempt = 1;; attempt++) {
		auto removed = removeOnce(request, device);
		if (removed || removed.error().code != Errc::Busy)
			return removed;
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
			    removed.error().message + ": " +
				    deviceHoldersText(holders, "no holder found") +
				    "; not forcing it (rbd device unmap -o force is an operator's "
				    "decision)",
			    EBUSY);
	}
}

/*
 * One try, by device: no cluster connection, no credentials. Through the
 * remove file where there is one; the kernel tears the watch down within
 * its mount_timeout, and udev's "remove" is awaited as rbd awaits it: when
 * down returns, /dev/rbd/POOL/IMAGE is gone.
 */
Result<Change> KrbdMapper::removeOnce(const MapRequest &request, const std::string &device)
{
	const std::string removeFile = busFile(roots_, "remove");
	const std::string id = krbdId(device);
	if (removeFile.empty() || id.empty()) {
		auto output = runner_.run(krbdUnmapCommand(tools_, request, device));
		if (!output)
			return tl::make_unexpected(output.error());
		if (!output->succeeded())
			return toolFailure("rbd device unmap " + device, *output);
		return Change::Changed;
	}
	auto watch = udevWatchFor(request);
	if (!watch)
		return tl::make_unexpected(watch.error());
	auto written = boundedCall<void>("krbd-unmap:" + device, tools_.unmapTimeout,
					 "unmapping " + device + " through " + removeFile,
					 [removeFile, id] { return writeControl(removeFile, id); });
	if (written) {
		auto announced = watch->waitForRemove("rbd" + id, tools_.unmapTimeout);
		if (!announced)
			return tl::make_unexpected(announced.error());
		return Change::Changed;
	}
	if (written.error().sysErrno == ENOENT)
		return Change::Unchanged; /* gone since the look above */
	return fail(written.error().code, "unmapping " + device + ": " + written.error().message,
		    written.error().sysErrno);
}

} /* namespace rbdvolume */
