/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "libmount_table.hpp"

#include <string>

#include <libmount/libmount.h>

#include "host/libmount_ptr.hpp"
#include "host/mount_marker.hpp"
#include "host/mountinfo.hpp"

namespace rbdvolume::testing {

namespace {

std::string text(const char *s)
{
	return s != nullptr ? std::string(s) : std::string();
}

} /* namespace */

std::vector<MountEntry> libmountTable()
{
	std::vector<MountEntry> entries;
	const MntTablePtr table(mnt_new_table());
	const MntIterPtr iter(mnt_new_iter(MNT_ITER_FORWARD));
	if (!table || !iter || mnt_table_parse_mtab(table.get(), nullptr) != 0)
		return entries;
	libmnt_fs *fs = nullptr;
	while (mnt_table_next_fs(table.get(), iter.get(), &fs) == 0) {
		MountEntry e;
		e.target = text(mnt_fs_get_target(fs));
		e.source = text(mnt_fs_get_source(fs));
		e.root = text(mnt_fs_get_root(fs));
		e.fsType = text(mnt_fs_get_fstype(fs));
		const char *vfs = mnt_fs_get_vfs_options(fs);
		e.readOnly =
			vfs != nullptr && mnt_optstr_get_option(vfs, "ro", nullptr, nullptr) == 0;
		const std::string marker(MarkerOption);
		char *value = nullptr;
		size_t size = 0;
		const char *user = mnt_fs_get_user_options(fs);
		if (user != nullptr &&
		    mnt_optstr_get_option(user, marker.c_str(), &value, &size) == 0 &&
		    value != nullptr)
			e.owner.assign(value, size);
		entries.push_back(std::move(e));
	}
	return entries;
}

} /* namespace rbdvolume::testing */
