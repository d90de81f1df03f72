/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "csi/csi_errors.hpp"

namespace rbdvolume::csi {

grpc::Status statusFor(const Error &error)
{
	switch (error.code) {
	case Errc::Unreachable:
	case Errc::ShuttingDown:
		return { grpc::StatusCode::UNAVAILABLE, error.message };
	case Errc::NotFound:
		return { grpc::StatusCode::NOT_FOUND, error.message };
	case Errc::InvalidArgument:
		return { grpc::StatusCode::INVALID_ARGUMENT, error.message };
	case Errc::Conflict:
		return { grpc::StatusCode::FAILED_PRECONDITION, error.message };
	case Errc::Timeout:
		return { grpc::StatusCode::DEADLINE_EXCEEDED,
			 error.message + "; rbd-volumed carries on, a retry waits for it" };
	case Errc::Busy:
		return { grpc::StatusCode::ABORTED, error.message };
	case Errc::PermissionDenied:
		return { grpc::StatusCode::PERMISSION_DENIED, error.message };
	default:
		return { grpc::StatusCode::INTERNAL, error.message };
	}
}

grpc::Status invalidArgument(const std::string &message)
{
	return { grpc::StatusCode::INVALID_ARGUMENT, message };
}

} /* namespace rbdvolume::csi */
