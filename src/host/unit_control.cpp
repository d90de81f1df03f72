/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "host/unit_control.hpp"

namespace rbdvolume {

std::string unitName(const std::string &templateName, const std::string &instance)
{
	return templateName + "@" + instance + ".service";
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
