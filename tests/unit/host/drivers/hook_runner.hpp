/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A FakeRunner whose commands can also act, as a tool would, on a fake sysfs tree. */
#pragma once

#include <functional>
#include <optional>

#include "fake_runner.hpp"

namespace rbdvolume::testing {

class HookRunner : public FakeRunner
{
public:
	Result<CommandOutput> run(const Command &command) override
	{
		if (onRun)
			onRun(command);
		if (error) {
			commands.push_back(command);
			return tl::make_unexpected(*error);
		}
		return FakeRunner::run(command);
	}

	std::function<void(const Command &)> onRun; /* before the scripted answer */
	std::optional<Error> error;		    /* every run fails with it (a timeout, ...) */
};

} /* namespace rbdvolume::testing */
