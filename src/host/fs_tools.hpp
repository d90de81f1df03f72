/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The Filesystems port over mkfs, fsck and the grow tools, run through a CommandRunner. */
#pragma once

#include "config/tool_config.hpp"
#include "engine/ports.hpp"
#include "host/command_runner.hpp"

namespace rbdvolume {

/* The exact command lines, exposed so unit tests can pin them. */
Command mkfsCommand(const ToolConfig &tools, const std::string &device, const FilesystemSpec &fs,
		    DeviceContents contents);
Command fsckCommand(const ToolConfig &tools, const std::string &device);
/* The commands that grow a filesystem, in order; `mountPoint` "" means offline. */
std::vector<Command> growCommands(const ToolConfig &tools, const std::string &device,
				  const std::string &mountPoint, const FilesystemSpec &fs);

class ToolFilesystems : public Filesystems
{
public:
	ToolFilesystems(CommandRunner &runner, ToolConfig tools)
		: runner_(runner), tools_(std::move(tools))
	{
	}

	Result<std::string> format(const std::string &device, const FilesystemSpec &fs,
				   DeviceContents contents) override;
	Result<std::string> check(const std::string &device, const FilesystemSpec &fs) override;
	Result<Change> grow(const std::string &device, const std::string &mountPoint,
			    const FilesystemSpec &fs) override;

private:
	CommandRunner &runner_;
	ToolConfig tools_;
};

} /* namespace rbdvolume */
