/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The codes CSI asks for, and our Errors as those codes; no gRPC here. */
#pragma once

#include <cstdint>
#include <string>

#include "common/result.hpp"

namespace rbdvolume::csi {

/* The gRPC status codes the Node calls answer with, same numbers (the journal shows them). */
enum class Code : uint8_t {
	Ok = 0,
	InvalidArgument = 3,
	DeadlineExceeded = 4,
	NotFound = 5,
	AlreadyExists = 6,
	PermissionDenied = 7,
	FailedPrecondition = 9,
	Aborted = 10,
	OutOfRange = 11,
	Internal = 13,
	Unavailable = 14,
};

/* How a node operation ended: OK, or a code and a message for the caller. */
struct OpStatus {
	Code code = Code::Ok;
	std::string message;

	bool ok() const { return code == Code::Ok; }
};

/*
 *   NotFound          NOT_FOUND
 *   InvalidArgument   INVALID_ARGUMENT
 *   Conflict          FAILED_PRECONDITION (the host holds something in the way)
 *   Timeout           DEADLINE_EXCEEDED   (the daemon carries on; a retry waits for it)
 *   Busy              ABORTED
 *   PermissionDenied  PERMISSION_DENIED
 *   daemon unreachable, stopping, or gone mid-call: UNAVAILABLE
 *   anything else     INTERNAL
 */
OpStatus statusFor(const Error &error);

} /* namespace rbdvolume::csi */
