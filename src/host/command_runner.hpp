/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* CommandRunner: external tools run as argv (never a shell), bounded in time and output. */
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "common/result.hpp"

namespace rbdvolume {

struct Command {
	std::vector<std::string> argv; /* argv[0] is the tool's path */
	std::chrono::milliseconds timeout{ std::chrono::seconds(60) };
	std::vector<std::string> env; /* "KEY=VALUE" added to PATH and LC_ALL=C */
};

struct CommandOutput {
	int exitStatus = -1; /* the exit code, or -1 when a signal ended it */
	int termSignal = 0;
	std::string out; /* stdout and stderr, each cut at OutputLimit */
	std::string err;

	static constexpr size_t OutputLimit = size_t{ 64 } * 1024;

	bool succeeded() const { return termSignal == 0 && exitStatus == 0; }
	/* "exit status 4: <last line of stderr, before any usage text>", for error messages. */
	std::string describe() const;
};

class CommandRunner
{
public:
	virtual ~CommandRunner() = default;
	/*
	 * Runs the command to completion. A non-zero exit is not an error here
	 * (callers know their tool's codes); Errc::Timeout when it outlived its
	 * timeout and its process group was killed; NotFound/Io when it could
	 * not be started.
	 */
	virtual Result<CommandOutput> run(const Command &command) = 0;
};

/* posix_spawn in its own process group; SIGKILL to the group on timeout. */
class PosixCommandRunner : public CommandRunner
{
public:
	Result<CommandOutput> run(const Command &command) override;
};

/* "'/sbin/mkfs.xfs' '-q' '/dev/rbd0'", for messages and logs. */
std::string quoteArgv(const std::vector<std::string> &argv);

} /* namespace rbdvolume */
