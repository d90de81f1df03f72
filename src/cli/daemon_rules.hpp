/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The daemon's own settings as the offline verbs (check, plan --spec) apply
 * them: what they pass, rbd-volumed accepts. rbd-volumed.toml is read as the
 * daemon reads it (missing: the defaults); a spec is then held to its rules
 * beyond the spec's own, today allowed-mount-roots.
 */
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "config/daemon_config.hpp"
#include "config/spec_parser.hpp"

namespace rbdvolume::cli {

struct DaemonRules {
	std::string file;		  /* the settings file read */
	DaemonConfig config;		  /* its values; the defaults when it is missing */
	std::vector<Diagnostic> problems; /* why the daemon would not start with it */

	bool ok() const { return problems.empty(); }
};

/* `file`, or the daemon's default (/etc/rbd-volume/rbd-volumed.toml) when empty. */
DaemonRules loadDaemonRules(const std::string &file);

/* loadVolumeSpec(path), then the daemon's rules: its diagnostics hold both. */
SpecOutcome loadSpecAsDaemon(const std::string &path, const DaemonRules &rules);

/* What to say of a file that is the daemon's settings, not a spec (nullopt when it is not one). */
std::optional<std::string> daemonSettingsHint(const std::string &path);

} /* namespace rbdvolume::cli */
