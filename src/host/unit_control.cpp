/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "host/unit_control.hpp"

#include <sstream>

#include <sys/stat.h>

#include "host/fs_util.hpp"

namespace rbdvolume {

std::string unitName(const std::string &templateName, const std::string &instance)
{
	return templateName + "@" + instance + ".service";
}

std::optional<std::vector<pid_t>> cgroupProcesses(const std::string &unit,
						  const std::string &cgroupRoot)
{
	const std::string slice = cgroupRoot + "/system.slice";
	struct stat st {
	};
	if (stat((slice + "/cgroup.procs").c_str(), &st) != 0)
		return std::nullopt; /* no cgroup v2 tree with our slice here */
	auto text = readFile(slice + "/" + unit + "/cgroup.procs");
	std::vector<pid_t> pids;
	if (!text || !*text)
		return pids; /* no cgroup: the unit runs nothing */
	std::istringstream lines(**text);
	long pid = 0;
	while (lines >> pid)
		pids.push_back(static_cast<pid_t>(pid));
	return pids;
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

std::optional<std::vector<pid_t>> SystemctlUnits::processes(const std::string &templateName,
							    const std::string &instance)
{
	return cgroupProcesses(unitName(templateName, instance));
}

Result<void> SystemctlUnits::run(const char *verb, const std::string &unit)
{
	Command command;
	command.argv = { systemctl_, verb, unit };
	command.timeout = timeout_;
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
	return run("start", unitName(templateName, instance));
}

Result<void> SystemctlUnits::stop(const std::string &templateName, const std::string &instance)
{
	return run("stop", unitName(templateName, instance));
}

} /* namespace rbdvolume */
