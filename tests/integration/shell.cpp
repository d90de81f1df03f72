/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "shell.hpp"

#include <gtest/gtest.h>

#include "host/command_runner.hpp"

namespace rbdvolume::testing {

std::string runOk(const std::vector<std::string> &argv, int timeoutSeconds)
{
	PosixCommandRunner runner;
	Command command;
	command.argv = argv;
	command.timeout = std::chrono::seconds(timeoutSeconds);
	auto output = runner.run(command);
	if (!output) {
		ADD_FAILURE() << quoteArgv(argv) << ": " << output.error().message;
		return {};
	}
	if (!output->succeeded())
		ADD_FAILURE() << quoteArgv(argv) << ": " << output->describe() << "\n"
			      << output->err;
	return output->out;
}

std::string shellOk(const std::string &script, int timeoutSeconds)
{
	return runOk({ "/bin/sh", "-c", script }, timeoutSeconds);
}

std::string checksum(const std::string &path)
{
	const std::string out = runOk({ "/usr/bin/sha256sum", path });
	return out.substr(0, out.find(' '));
}

} /* namespace rbdvolume::testing */
