/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * DirectUnits: UnitControl for test suites that have no service manager. It
 * runs what the unit's ExecStart would (the same helper binary) as a child
 * in its own process group, and stops it with SIGTERM, then SIGKILL.
 */
#pragma once

#include <map>
#include <string>
#include <vector>

#include <sys/types.h>

#include "host/unit_control.hpp"

namespace rbdvolume::testing {

class DirectUnits : public UnitControl
{
public:
	/* `template@NAME` runs `argv... NAME`. */
	void define(const std::string &templateName, std::vector<std::string> argv);
	~DirectUnits() override;
	DirectUnits() = default;
	DirectUnits(const DirectUnits &) = delete;
	DirectUnits &operator=(const DirectUnits &) = delete;
	DirectUnits(DirectUnits &&) = delete;
	DirectUnits &operator=(DirectUnits &&) = delete;

	Result<void> start(const std::string &templateName, const std::string &instance) override;
	Result<void> stop(const std::string &templateName, const std::string &instance) override;
	/* Runs `argv... --follow-size NAME` and waits for it, as rbd-fuse@.service's ExecReload=. */
	Result<void> reload(const std::string &templateName, const std::string &instance) override;
	/* "active" while its process runs, else "inactive": nothing here restarts it. */
	Result<std::string> activeState(const std::string &templateName,
					const std::string &instance) override;
	/* "success": nothing here is ever deactivating. */
	Result<std::string> result(const std::string &templateName,
				   const std::string &instance) override;

	/* The running process of a unit, or 0 (to kill it the hard way in a test). */
	pid_t pid(const std::string &templateName, const std::string &instance) const;

private:
	std::map<std::string, std::vector<std::string>> commands_;
	std::map<std::string, pid_t> running_; /* by unit name */
};

} /* namespace rbdvolume::testing */
