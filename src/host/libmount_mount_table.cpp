/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "host/libmount_mount_table.hpp"

#include <algorithm>
#include <cstring>

#include "common/errno_text.hpp"
#include "host/libmount_ptr.hpp"
#include "host/mount_marker.hpp"

namespace rbdvolume {

namespace {

std::string text(const char *s)
{
	return s ? std::string(s) : std::string();
}

bool hasOption(const char *options, const char *name)
{
	return options && mnt_optstr_get_option(options, name, nullptr, nullptr) == 0;
}

std::string optionValue(const char *options, const char *name)
{
	char *value = nullptr;
	size_t size = 0;
	if (!options || mnt_optstr_get_option(options, name, &value, &size) != 0 || !value)
		return {};
	return { value, size };
}

MountEntry toEntry(libmnt_fs *fs)
{
	MountEntry entry;
	entry.target = text(mnt_fs_get_target(fs));
	entry.source = text(mnt_fs_get_source(fs));
	entry.root = text(mnt_fs_get_root(fs));
	entry.fsType = text(mnt_fs_get_fstype(fs));
	entry.readOnly = hasOption(mnt_fs_get_vfs_options(fs), "ro");
	const std::string marker(MarkerOption);
	entry.owner = optionValue(mnt_fs_get_user_options(fs), marker.c_str());
	return entry;
}

} /* namespace */

Result<std::vector<MountEntry>> LibmountMountTable::read()
{
	MntTablePtr table(mnt_new_table());
	MntIterPtr iter(mnt_new_iter(MNT_ITER_FORWARD));
	if (!table || !iter)
		return fail(Errc::Io, "out of memory reading the mount table", ENOMEM);
	/* mtab = /proc/self/mountinfo plus utab, where our userspace markers live. */
	if (const int r = mnt_table_parse_mtab(table.get(), nullptr); r < 0)
		return fail(Errc::Io, std::string("cannot read the mount table: ") + errnoText(-r),
			    -r);

	std::vector<MountEntry> entries;
	entries.reserve(static_cast<size_t>(mnt_table_get_nents(table.get())));
	libmnt_fs *fs = nullptr;
	while (mnt_table_next_fs(table.get(), iter.get(), &fs) == 0)
		entries.push_back(toEntry(fs));
	return entries;
}

Result<std::optional<MountEntry>> visibleMount(const std::string &target)
{
	LibmountMountTable table;
	auto entries = table.read();
	if (!entries)
		return tl::make_unexpected(entries.error());
	const auto top = std::find_if(entries->rbegin(), entries->rend(),
				      [&](const MountEntry &e) { return e.target == target; });
	if (top == entries->rend())
		return std::optional<MountEntry>();
	return std::optional<MountEntry>(std::move(*top));
}

} /* namespace rbdvolume */
