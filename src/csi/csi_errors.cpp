/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "csi/csi_errors.hpp"

namespace rbdvolume::csi {

OpStatus statusFor(const Error &error)
{
	switch (error.code) {
	case Errc::Unreachable:
	case Errc::ShuttingDown:
	case Errc::Disconnected:
		return { Code::Unavailable, error.message };
	case Errc::NotFound:
		return { Code::NotFound, error.message };
	case Errc::InvalidArgument:
		return { Code::InvalidArgument, error.message };
	case Errc::Conflict:
		return { Code::FailedPrecondition, error.message };
	case Errc::Timeout:
		return { Code::DeadlineExceeded,
			 error.message + "; rbd-volumed carries on, a retry waits for it" };
	case Errc::Busy:
		return { Code::Aborted, error.message };
	case Errc::PermissionDenied:
		return { Code::PermissionDenied, error.message };
	default:
		return { Code::Internal, error.message };
	}
}

} /* namespace rbdvolume::csi */
