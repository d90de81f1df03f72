/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "host/libmount_mounter.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <memory>
#include <sched.h>
#include <unistd.h>

#include <linux/mount.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include <libmount/libmount.h>

#include "common/bounded_call.hpp"
#include "common/errno_text.hpp"
#include "common/fs_util.hpp"
#include "common/paths.hpp"
#include "engine/observer.hpp"
#include "host/mount_marker.hpp"
#include "host/proc_mount_table.hpp"
#include "host/safe_path.hpp"
#include "host/utab.hpp"

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

/* A mount option string split as mount(8) does: kernel flags, filesystem data, userspace. */
struct SplitOptions {
	unsigned long flags = 0;
	std::string data;
	std::string user;
};

Result<SplitOptions> splitOptions(const std::string &options)
{
	char *user = nullptr;
	char *vfs = nullptr;
	char *fs = nullptr;
	if (mnt_split_optstr(options.c_str(), &user, &vfs, &fs, 0, 0) != 0)
		return fail(Errc::InvalidArgument,
			    "cannot parse the mount options '" + options + "'");
	/* NOLINTBEGIN(cppcoreguidelines-no-malloc): libmount allocated them */
	const std::unique_ptr<char, decltype(&free)> ownUser(user, free);
	const std::unique_ptr<char, decltype(&free)> ownVfs(vfs, free);
	const std::unique_ptr<char, decltype(&free)> ownFs(fs, free);
	/* NOLINTEND(cppcoreguidelines-no-malloc) */
	SplitOptions split;
	if (vfs &&
	    mnt_optstr_get_flags(vfs, &split.flags, mnt_get_builtin_optmap(MNT_LINUX_MAP)) != 0)
		return fail(Errc::InvalidArgument,
			    "cannot parse the mount options '" + options + "'");
	split.data = fs ? fs : "";
	split.user = user ? user : "";
	return split;
}

/* A bind takes per-mount flags only; filesystem options belong to the staging mount. */
Result<uint64_t> bindAttributes(const SplitOptions &split, bool readOnly)
{
	if (!split.data.empty())
		return fail(Errc::InvalidArgument,
			    "'" + split.data +
				    "' are filesystem options: they belong to the staging mount, "
				    "not to a bind");
	uint64_t attributes = readOnly ? MOUNT_ATTR_RDONLY : 0;
	const unsigned long flags = split.flags;
	if ((flags & MS_NOSUID) != 0)
		attributes |= MOUNT_ATTR_NOSUID;
	if ((flags & MS_NODEV) != 0)
		attributes |= MOUNT_ATTR_NODEV;
	if ((flags & MS_NOEXEC) != 0)
		attributes |= MOUNT_ATTR_NOEXEC;
	if ((flags & MS_NODIRATIME) != 0)
		attributes |= MOUNT_ATTR_NODIRATIME;
	if ((flags & MS_NOATIME) != 0)
		attributes |= MOUNT_ATTR_NOATIME;
	else if ((flags & MS_STRICTATIME) != 0)
		attributes |= MOUNT_ATTR_STRICTATIME;
	else if ((flags & MS_RELATIME) != 0)
		attributes |= MOUNT_ATTR_RELATIME;
	return attributes;
}

/*
 * For a target that is already a mount point: Unchanged when it shows the
 * wanted mount, Conflict when it shows anything else. Callers ask only after
 * isMountRoot(), so the common case reads no table.
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

tl::unexpected<Error> mountFailed(const MountRequest &request, const std::string &what, int err)
{
	return failErrno("cannot " + what + " '" + request.source + "' on '" + request.target + "'",
			 err);
}

/*
 * The mount is in the kernel's table; without its utab line it would not
 * carry our marker. The record written before the step still names it, so
 * it is adopted by its device: report the utab failure as uncertain.
 */
Result<Change> markMount(const UtabEntry &entry)
{
	if (auto marked = recordUtabEntry(entry); !marked)
		return failUncertain(marked.error().code, marked.error().message,
				     marked.error().sysErrno);
	return Change::Changed;
}

/*
 * umount2() resolves its path again: from a directory reached without links
 * (this thread's own working directory, CLONE_FS), the last component is all
 * it resolves, and UMOUNT_NOFOLLOW keeps that from being a link too. It runs
 * on a thread of its own that ends with it (boundedCall): the working
 * directory it leaves behind is nobody else's.
 */
int unmountIn(int directory, const std::string &name, int flags)
{
	if (unshare(CLONE_FS) < 0)
		return errno;
	if (fchdir(directory) < 0 || umount2(name.c_str(), UMOUNT_NOFOLLOW | flags) < 0)
		return errno;
	return 0;
}

/* The directory we made for a staging mount goes with it; any other stays (it was asked for). */
void removeStagingDirectory(int parent, const std::string &name, const std::string &target)
{
	if (paths::isSameOrBelow(target, paths::StagingRoot) && target != paths::StagingRoot)
		(void)unlinkat(parent, name.c_str(), AT_REMOVEDIR);
}

} /* namespace */

Result<Change> LibmountMounter::mount(const MountRequest &request)
{
	auto target = makeNoSymlinks(request.target, PathKind::Directory);
	if (!target)
		return tl::make_unexpected(target.error());
	if (isMountRoot(target->get()))
		return existingMount(request.target, request.source, request.readOnly);

	std::vector<std::string> parts = request.options;
	parts.emplace_back(request.readOnly ? "ro" : "rw");
	/* Clones and snapshots share an XFS UUID; without nouuid they cannot mount side by side. */
	if (request.fsType == "xfs")
		parts.emplace_back("nouuid");
	parts.push_back(ourOptions(request));
	auto split = splitOptions(joinOptions(parts));
	if (!split)
		return tl::make_unexpected(split.error());

	/*
	 * Onto the directory opened above, whatever its path shows by now. The
	 * mount reads the device: bounded, on a descriptor of its own.
	 */
	auto directory = std::make_shared<UniqueFd>(std::move(*target));
	const unsigned long flags = split->flags;
	const std::string data = split->data;
	auto mounted = boundedCall<int>(
		request.source, deviceTimeout_, "mounting " + request.source,
		[request, directory, flags, data]() -> Result<int> {
			if (::mount(request.source.c_str(), procFdPath(directory->get()).c_str(),
				    request.fsType.c_str(), flags,
				    data.empty() ? nullptr : data.c_str()) < 0)
				return errno;
			return 0;
		});
	if (!mounted)
		return tl::make_unexpected(mounted.error());
	if (*mounted != 0)
		return mountFailed(request, "mount", *mounted);
	return markMount(
		UtabEntry{ request.source, request.target, request.fsType, split->user, false });
}

Result<Change> LibmountMounter::bind(const MountRequest &request)
{
	/* Binding an unmounted directory would publish the empty directory beneath. */
	auto source = openNoSymlinks(request.source, PathKind::Any);
	if (!source)
		return tl::make_unexpected(source.error());
	struct stat st {
	};
	if (fstat(source->get(), &st) < 0)
		return mountFailed(request, "bind", errno);
	const bool blockDevice = S_ISBLK(st.st_mode);
	if (!blockDevice && !isMountRoot(source->get()))
		return fail(Errc::NotFound,
			    "nothing is mounted on '" + request.source + "'; refusing to bind it");

	auto target = makeNoSymlinks(request.target,
				     S_ISDIR(st.st_mode) ? PathKind::Directory : PathKind::File);
	if (!target)
		return tl::make_unexpected(target.error());
	if (isMountRoot(target->get()))
		return existingMount(request.target,
				     blockDevice ? request.source : sourceDevice(request.source),
				     request.readOnly);

	std::vector<std::string> parts = request.options;
	parts.push_back(ourOptions(request));
	auto split = splitOptions(joinOptions(parts));
	if (!split)
		return tl::make_unexpected(split.error());
	auto attributes = bindAttributes(*split, request.readOnly);
	if (!attributes)
		return tl::make_unexpected(attributes.error());

	/* A detached copy, made read-only before it is attached: never writable for a moment. */
	const UniqueFd tree(
		open_tree(source->get(), "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH));
	if (!tree.valid())
		return mountFailed(request, "bind", errno);
	mount_attr attr{};
	attr.attr_set = *attributes;
	if (*attributes != 0 &&
	    mount_setattr(tree.get(), "", AT_EMPTY_PATH, &attr, sizeof(attr)) < 0)
		return mountFailed(request, "bind", errno);
	if (move_mount(tree.get(), "", target->get(), "",
		       MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
		return mountFailed(request, "bind", errno);
	return markMount(UtabEntry{ request.source, request.target, "", split->user, true });
}

bool LibmountMounter::mountPointLeft(const std::string &path)
{
	if (!paths::isSameOrBelow(path, paths::StagingRoot) || path == paths::StagingRoot)
		return false;
	auto directory = openNoSymlinks(path);
	if (!directory || isMountRoot(directory->get()))
		return false;
	/* The directory reached above, whatever its path shows by now. */
	std::error_code ec;
	return std::filesystem::is_empty(procFdPath(directory->get()), ec) && !ec;
}

std::optional<std::string> LibmountMounter::pathProblem(const std::string &path,
							MountPointKind kind)
{
	return rbdvolume::pathProblem(path, kind == MountPointKind::File ? PathKind::File
									 : PathKind::Directory);
}

Result<Change> LibmountMounter::unmount(const std::string &target)
{
	return unmountWith(target, 0);
}

Result<Change> LibmountMounter::detach(const std::string &target)
{
	/* A detach takes every mount below the target along, where an unmount
	 * would fail busy: none of them is ours to take. */
	auto table = ProcMountTable().read();
	if (!table)
		return tl::make_unexpected(table.error());
	for (const MountEntry &entry : *table) {
		if (entry.target != target && paths::isSameOrBelow(entry.target, target))
			return fail(Errc::Busy,
				    "'" + target + "' has a mount below it, '" + entry.target +
					    "', that a detach would take along; left mounted");
	}
	return unmountWith(target, MNT_DETACH);
}

Result<Change> LibmountMounter::unmountWith(const std::string &target, int flags)
{
	auto parent = openNoSymlinks(paths::parentOf(target));
	if (!parent && parent.error().code == Errc::NotFound)
		return Change::Unchanged;
	if (!parent)
		return tl::make_unexpected(parent.error());
	const std::string name = target.substr(target.rfind('/') + 1);
	struct statx stx {
	};
	if (statx(parent->get(), name.c_str(), AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT, STATX_TYPE,
		  &stx) != 0) {
		/* An xfs that shut itself down answers a stat of its root with EIO (a
		 * symbolic link would have been answered by the directory holding it):
		 * what the mount table shows there is unmounted all the same. */
		if (errno != EIO)
			return Change::Unchanged; /* nothing there */
		auto shown = visibleMount(target);
		if (!shown || !*shown)
			return Change::Unchanged;
	} else if (S_ISLNK(stx.stx_mode)) {
		return fail(Errc::Conflict,
			    "'" + target +
				    "' is a symbolic link; rbd-volume never unmounts "
				    "through a symbolic link",
			    ELOOP);
	} else if ((stx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) == 0 ||
		   (stx.stx_attributes & STATX_ATTR_MOUNT_ROOT) == 0) {
		removeStagingDirectory(parent->get(), name, target);
		return Change::Unchanged;
	}

	/* An unmount writes back through the device: bounded. So is a detach: the
	 * last reference to a filesystem, dropped on the way out of umount2(),
	 * writes it back too, though the mount has left the tree by then. */
	auto directory = std::make_shared<UniqueFd>(std::move(*parent));
	auto unmounted =
		boundedCall<int>("unmount:" + target, deviceTimeout_, "unmounting '" + target + "'",
				 [directory, name, flags]() -> Result<int> {
					 return unmountIn(directory->get(), name, flags);
				 });
	if (!unmounted && (flags & MNT_DETACH) != 0 && !isMountPoint(target)) {
		(void)forgetUtabEntry(target);
		return Change::Changed;
	}
	if (!unmounted)
		return tl::make_unexpected(unmounted.error());
	const int err = *unmounted;
	if (err == 0) {
		(void)forgetUtabEntry(target);
		removeStagingDirectory(directory->get(), name, target);
		return Change::Changed;
	}
	if (err == EBUSY) {
		const std::string holders = processesUsing(target);
		return fail(Errc::Busy,
			    "'" + target + "' is busy" +
				    (holders.empty() ? "" : ": in use by " + holders) +
				    "; left mounted",
			    err);
	}
	/* Unmounted by someone else meanwhile (systemd at shutdown): the goal is reached. */
	if (err == EINVAL && !isMountPoint(target)) {
		(void)forgetUtabEntry(target);
		return Change::Unchanged;
	}
	return failErrno("cannot unmount '" + target + "'", err);
}

} /* namespace rbdvolume */
