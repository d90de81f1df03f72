/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The one errno -> Errc table, and the error failErrno() makes of it. */
#include "common/errno_text.hpp"

#include <cerrno>
#include <utility>

#include <gtest/gtest.h>

namespace rbdvolume {

namespace {

TEST(ErrnoTable, EachErrnoHasItsClass)
{
	const std::pair<int, Errc> table[] = {
		{ ENOENT, Errc::NotFound },
		{ ENXIO, Errc::NotFound },
		{ EEXIST, Errc::Conflict },
		{ ENOTEMPTY, Errc::Conflict },
		{ EBUSY, Errc::Busy },
		{ ETXTBSY, Errc::Busy },
		{ EPERM, Errc::PermissionDenied },
		{ EACCES, Errc::PermissionDenied },
		{ ENODEV, Errc::Unsupported },
		{ EOPNOTSUPP, Errc::Unsupported },
		{ ENOSYS, Errc::Unsupported },
		{ EINVAL, Errc::Io },
		{ ETIMEDOUT, Errc::Io },
		{ EIO, Errc::Io },
		{ 0, Errc::Io },
	};
	for (const auto &[err, code] : table)
		EXPECT_EQ(errcFromErrno(err), code) << errnoText(err);
}

TEST(ErrnoTable, FailErrnoSaysWhatAndWhy)
{
	const Result<void> failed = failErrno("cannot open '/srv/x'", ENOENT);
	EXPECT_EQ(failed.error().code, Errc::NotFound);
	EXPECT_EQ(failed.error().message, "cannot open '/srv/x': No such file or directory");
	EXPECT_EQ(failed.error().sysErrno, ENOENT);
}

} /* namespace */

} /* namespace rbdvolume */
