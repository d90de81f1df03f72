/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Our Errors as gRPC statuses, the codes CSI asks for. */
#pragma once

#include <string>

#include "common/result.hpp"

#include <grpcpp/support/status.h>

namespace rbdvolume::csi {

/*
 *   NotFound          NOT_FOUND
 *   InvalidArgument   INVALID_ARGUMENT
 *   Conflict          FAILED_PRECONDITION (the host holds something in the way)
 *   Timeout           DEADLINE_EXCEEDED   (the daemon carries on; a retry waits for it)
 *   Busy              ABORTED
 *   PermissionDenied  PERMISSION_DENIED
 *   daemon unreachable, or stopping: UNAVAILABLE
 *   anything else     INTERNAL
 */
grpc::Status statusFor(const Error &error);

grpc::Status invalidArgument(const std::string &message);

} /* namespace rbdvolume::csi */
