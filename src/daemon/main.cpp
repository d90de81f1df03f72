/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* rbd-volumed: reconciles RBD volume specs into mapped, mounted volumes. */
#include <cstdio>
#include <exception>
#include <string>
#include <string_view>

#include <sys/prctl.h>

#include "common/paths.hpp"
#include "daemon/daemon.hpp"
#include "journal/log.hpp"

namespace {

int usage(std::FILE *out, int status)
{
	std::fprintf(out,
		     "Usage: rbd-volumed [--config FILE]\n"
		     "       rbd-volumed --check-config [FILE]\n\n"
		     "Reconciles the volume specs in %s and %s.\n"
		     "Run it as rbd-volumed.service; control it with rbd-volumectl.\n\n"
		     "  --config FILE         daemon settings (default %s; missing: defaults)\n"
		     "  --check-config [FILE] check the settings and exit: 0 valid, 1 with\n"
		     "                        FILE:LINE:COL diagnostics on stdout\n"
		     "  --version             print the version\n",
		     std::string(rbdvolume::paths::AdminSpecDir).c_str(),
		     std::string(rbdvolume::paths::RuntimeSpecDir).c_str(),
		     std::string(rbdvolume::paths::DaemonConfig).c_str());
	return status;
}

/* As `sshd -t`: the settings checked as a start would read them, nothing started. */
int checkConfig(const std::string &configFile)
{
	const rbdvolume::DaemonConfigOutcome config = rbdvolume::loadDaemonConfig(configFile);
	for (const rbdvolume::Diagnostic &problem : config.diagnostics)
		std::printf("%s\n", problem.format().c_str());
	return config.ok() ? 0 : 1;
}

int run(int argc, char *argv[])
{
	std::string configFile(rbdvolume::paths::DaemonConfig);
	for (int i = 1; i < argc; i++) {
		const std::string_view arg = argv[i];
		if (arg == "--help" || arg == "-h")
			return usage(stdout, 0);
		if (arg == "--version") {
			std::printf("rbd-volumed %s\n", RBDV_VERSION);
			return 0;
		}
		if (arg == "--config" && i + 1 < argc) {
			configFile = argv[++i];
			continue;
		}
		if (arg == "--check-config") {
			if (i + 1 < argc)
				configFile = argv[++i];
			return checkConfig(configFile);
		}
		std::fprintf(stderr, "rbd-volumed: unknown argument '%s'\n\n", argv[i]);
		return usage(stderr, 2);
	}
	const rbdvolume::DaemonConfigOutcome config = rbdvolume::loadDaemonConfig(configFile);
	for (const rbdvolume::Diagnostic &problem : config.diagnostics)
		rbdvolume::log::error(problem.format());
	if (!config.ok()) {
		rbdvolume::log::error("rbd-volumed: " + configFile + " is invalid; not starting");
		return 78; /* EX_CONFIG: a restart cannot help */
	}
	rbdvolume::log::setLevel(config.config.logLevel);
	return rbdvolume::daemon::runDaemon(config.config);
}

} /* namespace */

int main(int argc, char *argv[])
{
	/* Encryption passphrases pass through this process: no core dump may write them out. */
	(void)prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	/* The process boundary: nothing escapes as an exception. */
	try {
		return run(argc, argv);
	} catch (const std::exception &error) {
		rbdvolume::log::write({ rbdvolume::log::Level::Crit,
					std::string("rbd-volumed: internal error: ") + error.what(),
					{} });
	} catch (...) {
		rbdvolume::log::write(
			{ rbdvolume::log::Level::Crit, "rbd-volumed: internal error", {} });
	}
	return 1;
}
