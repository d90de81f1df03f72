/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "cli/daemon_rules.hpp"

#include <filesystem>

#include "common/paths.hpp"
#include "config/mount_roots.hpp"

namespace rbdvolume::cli {

DaemonRules loadDaemonRules(const std::string &file)
{
	DaemonRules rules;
	rules.file = file.empty() ? std::string(paths::DaemonConfig) : file;
	DaemonConfigOutcome loaded = loadDaemonConfig(rules.file);
	rules.config = std::move(loaded.config);
	rules.problems = std::move(loaded.diagnostics);
	return rules;
}

SpecOutcome loadSpecAsDaemon(const std::string &path, const DaemonRules &rules)
{
	SpecOutcome outcome = loadVolumeSpec(path);
	if (outcome.ok())
		checkMountRoots(outcome.spec, rules.config.allowedMountRoots, outcome.diagnostics);
	return outcome;
}

std::optional<std::string> daemonSettingsHint(const std::string &path)
{
	if (std::filesystem::path(path).filename() != "rbd-volumed.toml")
		return std::nullopt;
	return "the daemon's settings, not a volume spec: check them with 'rbd-volumectl "
	       "check --config " +
	       path + "' or 'rbd-volumed --check-config " + path + "'";
}

} /* namespace rbdvolume::cli */
