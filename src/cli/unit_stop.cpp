/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "cli/unit_stop.hpp"

#include <cstdlib>
#include <string_view>

namespace rbdvolume::cli {

bool startWasCancelled(const char *serviceResult, const char *exitCode, const char *exitStatus)
{
	if (serviceResult == nullptr || exitCode == nullptr || exitStatus == nullptr)
		return false;
	const std::string_view result = serviceResult;
	const std::string_view signal = exitStatus;
	return (result == "signal" || result == "success") &&
	       std::string_view(exitCode) == "killed" && (signal == "TERM" || signal == "INT");
}

bool startWasCancelled()
{
	/* NOLINTBEGIN(concurrency-mt-unsafe): nothing in this process sets the environment */
	const char *result = std::getenv("SERVICE_RESULT");
	const char *code = std::getenv("EXIT_CODE");
	const char *status = std::getenv("EXIT_STATUS");
	/* NOLINTEND(concurrency-mt-unsafe) */
	return startWasCancelled(result, code, status);
}

} /* namespace rbdvolume::cli */
