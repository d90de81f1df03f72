/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Errors from librados and librbd calls, in words an operator can act on. */
#pragma once

#include <chrono>
#include <string>

#include "common/result.hpp"

namespace rbdvolume {

/* Who asked which cluster, and how long we waited: what a message must name. */
struct CallContext {
	std::string client;   /* "client.test" */
	std::string monitors; /* the mon_host in force */
	std::chrono::seconds timeout{ 0 };
};

/*
 * An Error for a call that returned -ret, "WHAT: ...": a timeout names the
 * monitors and the bound, a denial the client and its caps, ENOENT is
 * NotFound; anything else is Io with the errno's text.
 */
Error callError(int ret, const std::string &what, const CallContext &context);

/* The cached connection is suspect after this error: the next call reconnects. */
bool isConnectionFault(const Error &error);

} /* namespace rbdvolume */
