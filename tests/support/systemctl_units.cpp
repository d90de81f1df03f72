/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "systemctl_units.hpp"

#include <algorithm>

namespace rbdvolume::testing {

Result<CommandOutput> SystemctlUnits::run(const std::vector<std::string> &args,
					  const std::string &unit,
					  std::chrono::milliseconds timeout)
{
	Command command;
	command.argv = { systemctl_ };
	command.argv.insert(command.argv.end(), args.begin(), args.end());
	command.argv.push_back(unit);
	command.timeout = timeout;
	auto output = runner_.run(command);
	if (!output)
		return tl::make_unexpected(output.error());
	if (!output->succeeded()) {
		std::string verb;
		for (const std::string &arg : args)
			verb += arg + " ";
		return fail(Errc::Io,
			    "systemctl " + verb + unit + " failed: " + output->describe());
	}
	return output;
}

Result<void> SystemctlUnits::start(const std::string &templateName, const std::string &instance)
{
	auto done = run({ "start" }, unitName(templateName, instance), timeout_);
	return done ? Result<void>() : tl::make_unexpected(done.error());
}

Result<void> SystemctlUnits::stop(const std::string &templateName, const std::string &instance)
{
	auto done = run({ "stop" }, unitName(templateName, instance), timeout_);
	return done ? Result<void>() : tl::make_unexpected(done.error());
}

Result<void> SystemctlUnits::reload(const std::string &templateName, const std::string &instance)
{
	auto done = run({ "reload" }, unitName(templateName, instance),
			std::min<std::chrono::milliseconds>(timeout_, ReloadTimeout));
	return done ? Result<void>() : tl::make_unexpected(done.error());
}

Result<std::string> SystemctlUnits::activeState(const std::string &templateName,
						const std::string &instance)
{
	return shownProperty("ActiveState", templateName, instance);
}

Result<std::string> SystemctlUnits::result(const std::string &templateName,
					   const std::string &instance)
{
	return shownProperty("Result", templateName, instance);
}

Result<std::string> SystemctlUnits::shownProperty(const char *property,
						  const std::string &templateName,
						  const std::string &instance)
{
	auto shown = run({ "show", "-P", property }, unitName(templateName, instance),
			 std::min<std::chrono::milliseconds>(timeout_, StateTimeout));
	if (!shown)
		return tl::make_unexpected(shown.error());
	std::string value = shown->out.substr(0, shown->out.find('\n'));
	if (value.empty())
		return fail(Errc::Io, "systemctl show printed no " + std::string(property) +
					      " for " + unitName(templateName, instance));
	return value;
}

} /* namespace rbdvolume::testing */
