/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "cli/exit_codes.hpp"

#include <cstdio>
#include <string>

#include "cli/verbs.hpp"
#include "common/text_escape.hpp"

namespace rbdvolume::cli {

int exitCodeFor(const Error &error)
{
	switch (error.code) {
	case Errc::Unreachable:
		return ExitNoDaemon;
	case Errc::PermissionDenied:
		return ExitDenied;
	case Errc::NotFound:
		return ExitNoVolume;
	case Errc::Timeout:
		return ExitTryAgain;
	default:
		return ExitFailure;
	}
}

int reportFailure(std::string_view subject, const Error &error, bool json)
{
	/* A message may have several lines (SpecInvalid lists every problem); nothing else. */
	std::string message = terminalSafe(error.message, true);
	while (!message.empty() && message.back() == '\n')
		message.pop_back();
	std::fprintf(stderr, "rbd-volumectl: %s: %s\n", terminalSafe(subject).c_str(),
		     message.c_str());
	const int code = exitCodeFor(error);
	if (json)
		std::printf("{\"error\":{\"class\":%s,\"message\":%s,\"exit\":%d}}\n",
			    jsonQuote(errcName(error.code)).c_str(),
			    jsonQuote(error.message).c_str(), code);
	return code;
}

} /* namespace rbdvolume::cli */
