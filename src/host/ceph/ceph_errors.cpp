/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "host/ceph/ceph_errors.hpp"

#include <cerrno>

#include "common/errno_text.hpp"

namespace rbdvolume {

namespace {

std::string seconds(std::chrono::seconds value)
{
	return std::to_string(value.count()) + " s";
}

} /* namespace */

Error callError(int ret, const std::string &what, const CallContext &context)
{
	const int err = ret < 0 ? -ret : ret;
	const std::string text = errnoText(err);
	switch (err) {
	case ETIMEDOUT:
		return { Errc::Timeout,
			 what + ": no answer from the cluster at " + context.monitors + " within " +
				 seconds(context.timeout),
			 err };
	case EACCES:
	case EPERM:
		return { Errc::PermissionDenied,
			 what + ": " + context.client + " is not allowed to (" + text +
				 "): check its caps (profile rbd)",
			 err };
	case ESHUTDOWN: /* librados' EBLOCKLISTED */
		return { Errc::Blocklisted,
			 what + ": the cluster has blocklisted this " + context.client +
				 " session (" + text + ")",
			 err };
	case ENOENT:
		return { Errc::NotFound, what + ": " + text, err };
	case EEXIST:
		return { Errc::Conflict, what + ": " + text, err };
	case EBUSY:
		return { Errc::Busy, what + ": " + text, err };
	default:
		return { Errc::Io, what + ": " + text, err };
	}
}

bool isConnectionFault(const Error &error)
{
	return error.code == Errc::Timeout || error.code == Errc::PermissionDenied ||
	       error.code == Errc::Blocklisted;
}

} /* namespace rbdvolume */
