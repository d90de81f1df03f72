/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "host/drivers/dry_run_host.hpp"

#include "host/libmount_mounter.hpp"
#include "host/safe_path.hpp"

namespace rbdvolume {

namespace {

tl::unexpected<Error> refused(const std::string &what)
{
	return fail(Errc::Internal, "dry run: refusing to " + what);
}

} /* namespace */

Result<std::string> DryRunCrypt::formatHeader(const CryptRequest &request,
					      const std::string &device)
{
	return refused("write a LUKS header on " + device + " for " + request.volume);
}

Result<std::string> DryRunCrypt::open(const CryptRequest &request, const std::string &device)
{
	return refused("open " + device + " for " + request.volume);
}

Result<Change> DryRunCrypt::close(const std::string &volume)
{
	return refused("close " + cryptDeviceOf(volume));
}

Result<Change> DryRunCrypt::resize(const std::string &volume)
{
	return refused("grow " + cryptDeviceOf(volume));
}

DryRunHost::DryRunHost(std::string ownershipDir, SystemRoots roots)
	: records_(std::move(ownershipDir)), roots_(std::move(roots)),
	  fuse_(*this, FuseDriverConfig{ .observeOnly = true }),
	  nbd_(*this, *this, DriverTools{}, roots_), host_{ table_, *this, probe_, *this,
							    *this,  *this, *this,  crypt_ }
{
}

Result<Change> DryRunHost::mount(const MountRequest &request)
{
	return refused("mount " + request.target);
}

Result<Change> DryRunHost::bind(const MountRequest &request)
{
	return refused("bind " + request.target);
}

Result<Change> DryRunHost::unmount(const std::string &target)
{
	return refused("unmount " + target);
}

Result<Change> DryRunHost::detach(const std::string &target)
{
	return refused("detach " + target);
}

bool DryRunHost::mountPointLeft(const std::string &path)
{
	return LibmountMounter().mountPointLeft(path);
}

std::optional<std::string> DryRunHost::pathProblem(const std::string &path, MountPointKind kind)
{
	return LibmountMounter().pathProblem(path, kind);
}

/* Mapped images by every driver, as the daemon's MapperSet lists them. */
Result<std::vector<MappedImage>> DryRunHost::list()
{
	std::vector<MappedImage> mapped = listKrbdMappings(roots_);
	auto nbd = nbd_.list();
	if (!nbd)
		return tl::make_unexpected(nbd.error());
	mapped.insert(mapped.end(), nbd->begin(), nbd->end());
	auto fuse = fuse_.list();
	if (!fuse)
		return tl::make_unexpected(fuse.error());
	mapped.insert(mapped.end(), fuse->begin(), fuse->end());
	return mapped;
}

Result<std::vector<std::string>> DryRunHost::orphans()
{
	return fuse_.orphans();
}

Result<Change> DryRunHost::stopOrphan(const MapRequest &request)
{
	return refused("stop the orphan mapper of " + request.volume);
}

Result<void> DryRunHost::start(const std::string &templateName, const std::string &instance)
{
	return refused("start " + unitName(templateName, instance));
}

Result<void> DryRunHost::reload(const std::string &templateName, const std::string &instance)
{
	return refused("reload " + unitName(templateName, instance));
}

Result<std::string> DryRunHost::activeState(const std::string &templateName,
					    const std::string &instance)
{
	return states_.activeState(templateName, instance);
}

Result<std::string> DryRunHost::result(const std::string &templateName, const std::string &instance)
{
	return states_.result(templateName, instance);
}

Result<CommandOutput> DryRunHost::run(const Command &command)
{
	return refused("run " +
		       (command.argv.empty() ? std::string("nothing") : command.argv.front()));
}

Result<void> DryRunHost::stop(const std::string &templateName, const std::string &instance)
{
	return refused("stop " + unitName(templateName, instance));
}

Result<std::string> DryRunHost::map(const MapRequest &request)
{
	return refused("map " + request.image.display());
}

Result<Change> DryRunHost::unmap(const MapRequest &request, const std::string &device)
{
	(void)request;
	return refused("unmap " + device);
}

Result<ImageChange> DryRunHost::ensureImage(const ImageRequest &request)
{
	return refused("create " + request.image.display());
}

Result<void> DryRunHost::checkSoleWriter(const ImageRequest &request)
{
	return refused("inspect " + request.image.display());
}

Result<bool> DryRunHost::readsZeroes(const ImageRequest &request)
{
	return refused("inspect " + request.image.display());
}

Result<KernelMapFacts> DryRunHost::kernelMapFacts(const ImageRequest &request)
{
	return refused("inspect " + request.image.display());
}

Result<std::optional<std::string>> DryRunHost::metadata(const ImageRequest &request,
							const std::string &key)
{
	return refused("read metadata '" + key + "' of " + request.image.display());
}

Result<void> DryRunHost::setMetadata(const ImageRequest &request, const std::string &key,
				     const std::string & /*value*/)
{
	return refused("write metadata '" + key + "' of " + request.image.display());
}

Result<std::string> DryRunHost::format(const std::string &device, const FilesystemSpec &fs,
				       DeviceContents contents)
{
	(void)fs;
	(void)contents;
	return refused("format " + device);
}

Result<std::string> DryRunHost::check(const std::string &device, const FilesystemSpec &fs)
{
	(void)fs;
	return refused("check " + device);
}

Result<Change> DryRunHost::grow(const std::string &device, const std::string &mountPoint,
				const FilesystemSpec &fs)
{
	(void)mountPoint;
	(void)fs;
	return refused("grow " + device);
}

Result<Ownership> DryRunHost::load(const std::string &volume)
{
	return records_.load(volume);
}

Result<void> DryRunHost::save(const std::string &volume, const Ownership &record)
{
	(void)record;
	return refused("write the ownership record of " + volume);
}

} /* namespace rbdvolume */
