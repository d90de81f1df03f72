/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "common/errno_text.hpp"

#include <array>
#include <cerrno>
#include <cstring>

namespace rbdvolume {

std::string errnoText(int err)
{
	std::array<char, 256> buffer{};
	/* The GNU strerror_r returns the message, which may or may not be in buffer. */
	return strerror_r(err, buffer.data(), buffer.size());
}

Errc errcFromErrno(int err)
{
	switch (err) {
	case ENOENT:
	case ENXIO:
		return Errc::NotFound;
	case EEXIST:
	case ENOTEMPTY:
		return Errc::Conflict;
	case EBUSY:
	case ETXTBSY:
		return Errc::Busy;
	case EPERM:
	case EACCES:
		return Errc::PermissionDenied;
	case ENODEV:
	case EOPNOTSUPP:
	case ENOSYS:
		return Errc::Unsupported;
	default:
		return Errc::Io;
	}
}

tl::unexpected<Error> failErrno(const std::string &what, int err)
{
	return fail(errcFromErrno(err), what + ": " + errnoText(err), err);
}

} /* namespace rbdvolume */
