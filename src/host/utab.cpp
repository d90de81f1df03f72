/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "host/utab.hpp"

#include <memory>

#include <sys/mount.h>

#include <libmount/libmount.h>

#include "common/errno_text.hpp"
#include "host/libmount_ptr.hpp"

namespace rbdvolume {

namespace {

Result<void> apply(libmnt_update *update, int prepared, const std::string &what)
{
	if (prepared == 1)
		return {}; /* nothing to keep in utab */
	int r = prepared;
	if (r == 0)
		r = mnt_update_table(update, nullptr);
	if (r < 0)
		return failErrno("cannot update libmount's utab for " + what, -r);
	return {};
}

} /* namespace */

Result<void> recordUtabEntry(const UtabEntry &entry)
{
	const MntUpdatePtr update(mnt_new_update());
	const MntFsPtr fs(mnt_new_fs());
	if (!update || !fs)
		return fail(Errc::Io, "out of memory", ENOMEM);
	mnt_fs_set_source(fs.get(), entry.source.c_str());
	mnt_fs_set_target(fs.get(), entry.target.c_str());
	if (!entry.fsType.empty())
		mnt_fs_set_fstype(fs.get(), entry.fsType.c_str());
	mnt_fs_set_options(fs.get(), entry.userOptions.c_str());
	/* For a bind, libmount finds the root it shows in /proc/self/mountinfo. */
	const unsigned long flags = entry.bind ? MS_BIND : 0;
	return apply(update.get(), mnt_update_set_fs(update.get(), flags, nullptr, fs.get()),
		     "'" + entry.target + "'");
}

Result<void> forgetUtabEntry(const std::string &target)
{
	const MntUpdatePtr update(mnt_new_update());
	if (!update)
		return fail(Errc::Io, "out of memory", ENOMEM);
	return apply(update.get(), mnt_update_set_fs(update.get(), 0, target.c_str(), nullptr),
		     "'" + target + "'");
}

} /* namespace rbdvolume */
