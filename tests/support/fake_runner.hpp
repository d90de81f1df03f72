/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A CommandRunner that records argv and answers with scripted outputs. */
#pragma once

#include <deque>
#include <vector>

#include "host/command_runner.hpp"

namespace rbdvolume::testing {

class FakeRunner : public CommandRunner
{
public:
	void answer(int exitStatus, std::string out = {}, std::string err = {})
	{
		CommandOutput output;
		output.exitStatus = exitStatus;
		output.out = std::move(out);
		output.err = std::move(err);
		answers_.push_back(std::move(output));
	}

	Result<CommandOutput> run(const Command &command) override
	{
		commands.push_back(command);
		if (answers_.empty())
			return CommandOutput{ 0, 0, {}, {} };
		CommandOutput output = std::move(answers_.front());
		answers_.pop_front();
		return output;
	}

	std::vector<Command> commands;

private:
	std::deque<CommandOutput> answers_;
};

} /* namespace rbdvolume::testing */
