/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Error and Result<T>: how every module reports failure (no exceptions cross modules). */
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include <tl/expected.hpp>

namespace rbdvolume {

enum class Errc : uint8_t {
	InvalidArgument, /* bad input: a spec, a path, an option */
	NotFound,	 /* an image, a device, a volume that does not exist */
	Conflict,	 /* the host holds something we refuse to change */
	Busy,		 /* in use: an open file on a mount, a watcher on an image */
	Timeout,	 /* a command or call ran out of time; the outcome is uncertain */
	PermissionDenied,
	Unsupported,
	Io,	      /* a system call, library or command failed */
	Unreachable,  /* the service asked (rbd-volumed, the cluster) cannot be reached at all */
	ShuttingDown, /* the service asked is stopping: ask again once it is back */
	Disconnected, /* the service asked left mid-call: the outcome is uncertain */
	Blocklisted,  /* the cluster blocklisted (fenced) this client: nothing it sends is served */
	Internal,
	Count, /* keep last */
};

/* A short stable name for an error class ("conflict", "timeout", ...). */
const char *errcName(Errc code);

struct Error {
	Errc code = Errc::Internal;
	std::string message;
	int sysErrno = 0; /* positive errno when a system call or library gave one */
	/* The failed step may have taken effect all the same (a mount made but not
	 * marked, a change made but not recorded): see uncertain(). */
	bool effectUnknown = false;

	/* The step may have happened (after a timeout or a peer that left, it
	 * always may): the next pass observes before it undoes or repeats it. */
	[[nodiscard]] bool uncertain() const
	{
		return effectUnknown || code == Errc::Timeout || code == Errc::Disconnected;
	}
};

template<typename T = void> class [[nodiscard]] Result : public tl::expected<T, Error>
{
public:
	using tl::expected<T, Error>::expected;
};

inline tl::unexpected<Error> fail(Errc code, std::string message, int sysErrno = 0)
{
	return tl::make_unexpected(Error{ code, std::move(message), sysErrno });
}

/* A failure after which the step may have taken effect all the same. */
inline tl::unexpected<Error> failUncertain(Errc code, std::string message, int sysErrno = 0)
{
	return tl::make_unexpected(Error{ code, std::move(message), sysErrno, true });
}

} /* namespace rbdvolume */
