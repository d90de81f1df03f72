/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "host/libmount_mounter.hpp"

#include <array>
#include <cstring>

#include <sys/stat.h>

#include "common/errno_text.hpp"
#include "engine/observer.hpp"
#include "host/fs_util.hpp"
#include "host/libmount_mount_table.hpp"
#include "host/libmount_ptr.hpp"
#include "host/mount_marker.hpp"

namespace rbdvolume {

namespace {

std::string joinOptions(const std::vector<std::string> &parts)
{
	std::string out;
	for (const std::string &part : parts) {
		if (part.empty())
			continue;
		if (!out.empty())
			out += ',';
		out += part;
	}
	return out;
}

std::string ourOptions(const MountRequest &request)
{
	return "_netdev," + std::string(MarkerOption) + "=" + request.owner;
}

bool isBlockDevice(const std::string &path)
{
	struct stat st {
	};
	return stat(path.c_str(), &st) == 0 && S_ISBLK(st.st_mode);
}

/* libmount's own mount(8)-style message for a failed call. */
std::string contextMessage(libmnt_context *context, int rc)
{
	std::array<char, 512> buffer{};
	mnt_context_get_excode(context, rc, buffer.data(), buffer.size());
	if (buffer.front() != '\0')
		return buffer.data();
	return rc > 0 ? errnoText(rc) : "libmount error " + std::to_string(rc);
}

Errc errcFor(int syscallErrno)
{
	switch (syscallErrno) {
	case EBUSY:
		return Errc::Busy;
	case EPERM:
	case EACCES:
		return Errc::PermissionDenied;
	case ENOENT:
	case ENODEV:
	case ENXIO:
		return Errc::NotFound;
	default:
		return Errc::Io;
	}
}

/*
 * For a target that is already a mount point: Unchanged when it shows the
 * wanted mount, Conflict when it shows anything else. Callers ask only after
 * isMountPoint(), so the common case reads no table.
 */
Result<Change> existingMount(const std::string &target, const std::string &device, bool readOnly)
{
	auto visible = visibleMount(target);
	if (!visible)
		return tl::make_unexpected(visible.error());
	if (*visible && !device.empty() && mountDevice(**visible) == device &&
	    (*visible)->readOnly == readOnly)
		return Change::Unchanged;
	const std::string what = !*visible		      ? std::string("something")
				 : (*visible)->source.empty() ? (*visible)->fsType
							      : (*visible)->source;
	return fail(Errc::Conflict, "'" + target + "' already shows a mount of " + what +
					    "; refusing to mount over it");
}

/* The device behind the mount on `path`, read from the table only when needed. */
std::string sourceDevice(const std::string &path)
{
	auto visible = visibleMount(path);
	return visible && *visible ? mountDevice(**visible) : std::string();
}

Result<Change> runMount(const MountRequest &request, const std::string &options, const char *fsType)
{
	MntContextPtr context(mnt_new_context());
	if (!context)
		return fail(Errc::Io, "out of memory", ENOMEM);
	mnt_context_disable_helpers(context.get(), 1);
	mnt_context_set_source(context.get(), request.source.c_str());
	mnt_context_set_target(context.get(), request.target.c_str());
	if (fsType)
		mnt_context_set_fstype(context.get(), fsType);
	mnt_context_set_options(context.get(), options.c_str());

	const int rc = mnt_context_mount(context.get());
	if (rc == 0)
		return Change::Changed;
	const int err = mnt_context_syscall_called(context.get())
				? mnt_context_get_syscall_errno(context.get())
				: (rc > 0 ? rc : -rc);
	return fail(errcFor(err),
		    "cannot mount '" + request.source + "' on '" + request.target +
			    "': " + contextMessage(context.get(), rc),
		    err);
}

} /* namespace */

Result<Change> LibmountMounter::mount(const MountRequest &request)
{
	if (isMountPoint(request.target))
		return existingMount(request.target, request.source, request.readOnly);
	if (auto made = makeDirectories(request.target); !made)
		return tl::make_unexpected(made.error());

	std::vector<std::string> parts = request.options;
	parts.emplace_back(request.readOnly ? "ro" : "rw");
	/* Clones and snapshots share an XFS UUID; without nouuid they cannot mount side by side. */
	if (request.fsType == "xfs")
		parts.emplace_back("nouuid");
	parts.push_back(ourOptions(request));
	return runMount(request, joinOptions(parts), request.fsType.c_str());
}

Result<Change> LibmountMounter::bind(const MountRequest &request)
{
	/* Binding an unmounted directory would publish the empty directory beneath. */
	const bool blockDevice = isBlockDevice(request.source);
	if (!blockDevice && !isMountPoint(request.source))
		return fail(Errc::NotFound,
			    "nothing is mounted on '" + request.source + "'; refusing to bind it");
	if (isMountPoint(request.target))
		return existingMount(request.target,
				     blockDevice ? request.source : sourceDevice(request.source),
				     request.readOnly);

	auto made = isDirectory(request.source) ? makeDirectories(request.target)
						: ensureFile(request.target);
	if (!made)
		return tl::make_unexpected(made.error());

	/* libmount turns "bind,ro" into bind plus a read-only remount. */
	std::vector<std::string> parts = { "bind" };
	if (request.readOnly)
		parts.emplace_back("ro");
	parts.insert(parts.end(), request.options.begin(), request.options.end());
	parts.push_back(ourOptions(request));
	return runMount(request, joinOptions(parts), nullptr);
}

Result<Change> LibmountMounter::unmount(const std::string &target)
{
	if (!isMountPoint(target))
		return Change::Unchanged;

	MntContextPtr context(mnt_new_context());
	if (!context)
		return fail(Errc::Io, "out of memory", ENOMEM);
	mnt_context_disable_helpers(context.get(), 1);
	mnt_context_set_target(context.get(), target.c_str());
	const int rc = mnt_context_umount(context.get());
	if (rc == 0)
		return Change::Changed;

	const int err = mnt_context_syscall_called(context.get())
				? mnt_context_get_syscall_errno(context.get())
				: (rc > 0 ? rc : -rc);
	if (err == EBUSY) {
		const std::string holders = processesUsing(target);
		return fail(Errc::Busy,
			    "'" + target + "' is busy" +
				    (holders.empty() ? "" : ": in use by " + holders) +
				    "; left mounted",
			    err);
	}
	/* Unmounted by someone else meanwhile (systemd at shutdown): the goal is reached. */
	if (!isMountPoint(target))
		return Change::Unchanged;
	return fail(errcFor(err),
		    "cannot unmount '" + target + "': " + contextMessage(context.get(), rc), err);
}

} /* namespace rbdvolume */
