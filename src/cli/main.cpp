/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* rbd-volumectl: the operator's command line; a table of verbs. */
#include <algorithm>
#include <array>
#include <cstdio>
#include <exception>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cli/verbs.hpp"

namespace rbdvolume::cli {

namespace {

struct Verb {
	std::string_view name;
	std::string_view arguments;
	std::string_view summary;
	VerbFunction run;
};

constexpr std::array<Verb, 10> Verbs = { {
	{ "check", "FILE|DIR...",
	  "Validate volume specs offline, as rbd-volumed would (DIR: its *.toml)", verbCheck },
	{ "plan", "NAME|--spec FILE", "Show what reconciling would do here; change nothing",
	  verbPlan },
	{ "import-rbdmap", "[FILE]",
	  "Print Ceph's rbdmap (default /etc/ceph/rbdmap) and its fstab lines as specs",
	  verbImportRbdmap },
	{ "list", "", "List the volumes rbd-volumed knows: name, intent, phase", verbList },
	{ "status", "[NAME]", "Show every property of one volume or of all", verbStatus },
	{ "up", "NAME", "Bring a volume up and wait until it is (or failed)", verbUp },
	{ "down", "NAME", "Take a volume down and wait until it is (or failed)", verbDown },
	{ "reconcile", "[NAME]", "Run a pass now for one volume or all, and wait for it",
	  verbReconcile },
	{ "reload", "", "Make rbd-volumed re-read its spec directories", verbReload },
	{ "rotate-key", "NAME --new-keyfile FILE",
	  "Replace the key of a volume keyed by a keyfile (the volume up)", verbRotateKey },
} };

void printUsage(std::FILE *out)
{
	std::fprintf(out, "Usage: rbd-volumectl [--help] [--version] VERB [ARGS...]\n\n"
			  "Verbs:\n");
	for (const Verb &verb : Verbs) {
		const std::string left = std::string(verb.name) + ' ' + std::string(verb.arguments);
		std::fprintf(out, "  %-24s %.*s\n", left.c_str(),
			     static_cast<int>(verb.summary.size()), verb.summary.data());
	}
	std::fprintf(
		out,
		"\nOptions of the bus verbs:\n"
		"  --json             list, status: print JSON (docs/cli.md has the schema)\n"
		"  --no-wait          up, down: return once rbd-volumed accepted the intent\n"
		"  --timeout SECONDS  up, down, reconcile, reload: stop waiting after SECONDS\n"
		"                     (0, the default: wait as long as it takes)\n"
		"  --progress         up, down, reconcile: print each step on stderr\n"
		"                     (the default when stderr is a terminal)\n"
		"  -v, --verbose      up, down, reconcile, reload: print one line on success\n"
		"\nOptions of check and plan:\n"
		"  --config FILE      check, plan: the daemon's settings, whose rules apply too\n"
		"                     (default /etc/rbd-volume/rbd-volumed.toml; missing: its\n"
		"                     defaults); check --config FILE alone checks that file\n"
		"  --spec FILE        plan: plan this spec file instead of an installed NAME\n"
		"  --intent up|down   plan: plan for this intent instead of the daemon's\n"
		"\nOptions of rotate-key:\n"
		"  --new-keyfile FILE rotate-key: the file that holds the new key\n"
		"\nOptions of import-rbdmap:\n"
		"  --fstab FILE       import-rbdmap: where the /dev/rbd/ mounts are (/etc/fstab)\n"
		"  --write            import-rbdmap: write the specs instead of printing them;\n"
		"                     never over a file\n"
		"  --dir DIR          import-rbdmap: with --write, where "
		"(/etc/rbd-volume/volumes)\n");
	std::fprintf(
		out,
		"\nExit status:\n"
		"  0  success (check: every spec is valid; plan: the plan is printed;\n"
		"     status: the volumes are shown, even failed, degraded or invalid ones)\n"
		"  1  failure (an invalid or unreadable spec, a failed operation, a conflict,\n"
		"     no reply within --timeout; plan: the host cannot be read;\n"
		"     import-rbdmap: an rbdmap line gave no spec, or a spec was not written)\n"
		"  2  usage error (no verb, unknown verb or option, not a volume name)\n"
		"  3  rbd-volumed cannot be reached (not running, no system bus)\n"
		"  4  permission denied (changing a volume needs root)\n"
		"  5  no such volume (the daemon knows none of that name)\n");
}

bool isHelp(std::string_view arg)
{
	return arg == "--help" || arg == "-h";
}

int run(std::span<const std::string_view> args)
{
	if (args.empty()) {
		printUsage(stderr);
		return ExitUsage;
	}
	if (isHelp(args.front())) {
		printUsage(stdout);
		return ExitOk;
	}
	if (args.front() == "--version") {
		std::printf("rbd-volumectl %s\n", RBDV_VERSION);
		return ExitOk;
	}
	const auto *const verb = std::find_if(Verbs.begin(), Verbs.end(), [&args](const Verb &v) {
		return v.name == args.front();
	});
	if (verb == Verbs.end()) {
		std::fprintf(stderr, "rbd-volumectl: unknown verb '%.*s'\n\n",
			     static_cast<int>(args.front().size()), args.front().data());
		printUsage(stderr);
		return ExitUsage;
	}
	const std::span<const std::string_view> verbArgs = args.subspan(1);
	/* "--help" anywhere among the options asks for help; after "--" it is a file name. */
	const auto options = std::find(verbArgs.begin(), verbArgs.end(), "--");
	if (std::any_of(verbArgs.begin(), options, isHelp)) {
		printUsage(stdout);
		return ExitOk;
	}
	return verb->run(verbArgs);
}

} /* namespace */

} /* namespace rbdvolume::cli */

int main(int argc, char *argv[])
{
	/* The process boundary: nothing escapes as an exception. */
	try {
		const std::vector<std::string_view> args(argv + 1, argv + argc);
		return rbdvolume::cli::run(args);
	} catch (const std::exception &error) {
		std::fprintf(stderr, "rbd-volumectl: internal error: %s\n", error.what());
	} catch (...) {
		std::fprintf(stderr, "rbd-volumectl: internal error\n");
	}
	return rbdvolume::cli::ExitFailure;
}
