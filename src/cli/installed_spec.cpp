/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "cli/installed_spec.hpp"

#include "config/spec_locate.hpp"
#include "config/spec_parser.hpp"

namespace rbdvolume::cli {

Result<VolumeSpec> installedSpec(const std::string &name)
{
	auto file = locateSpec(name, defaultSpecDirs());
	if (!file)
		return tl::make_unexpected(file.error());
	SpecOutcome outcome = loadVolumeSpec(*file);
	if (!outcome.ok())
		return fail(Errc::InvalidArgument,
			    "the spec is invalid: " + outcome.diagnostics.front().format());
	return std::move(outcome.spec);
}

} /* namespace rbdvolume::cli */
