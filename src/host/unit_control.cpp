/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "host/unit_control.hpp"

#include <algorithm>

#include "host/fs_util.hpp"

namespace rbdvolume {

std::string unitName(const std::string &templateName, const std::string &instance)
{
	return templateName + "@" + instance + ".service";
}

char processState(pid_t pid)
{
	auto text = readFile("/proc/" + std::to_string(pid) + "/stat");
	if (!text || !*text)
		return '\0';
	/* "PID (COMM) S ...": COMM may hold anything, the state follows its last ')'. */
	const size_t close = (*text)->rfind(')');
	return close == std::string::npos || close + 2 >= (*text)->size() ? '\0'
									  : (**text)[close + 2];
}

Result<void> SystemctlUnits::run(const char *verb, const std::string &unit,
				 std::chrono::milliseconds timeout)
{
	Command command;
	command.argv = { systemctl_, verb, unit };
	command.timeout = timeout;
	auto output = runner_.run(command);
	if (!output)
		return tl::make_unexpected(output.error());
	if (!output->succeeded())
		return fail(Errc::Io, std::string("systemctl ") + verb + " " + unit +
					      " failed: " + output->describe());
	return {};
}

Result<void> SystemctlUnits::start(const std::string &templateName, const std::string &instance)
{
	return run("start", unitName(templateName, instance), timeout_);
}

Result<void> SystemctlUnits::stop(const std::string &templateName, const std::string &instance)
{
	return run("stop", unitName(templateName, instance), timeout_);
}

Result<void> SystemctlUnits::reload(const std::string &templateName, const std::string &instance)
{
	return run("reload", unitName(templateName, instance),
		   std::min<std::chrono::milliseconds>(timeout_, ReloadTimeout));
}

} /* namespace rbdvolume */
