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
	std::string_view example;
	VerbFunction run;
};

constexpr std::array<Verb, 13> Verbs = { {
	{ "check", "FILE|DIR...",
	  "Validate volume specs offline, as rbd-volumed would (DIR: its *.toml)",
	  "rbd-volumectl check /etc/rbd-volume/volumes", verbCheck },
	{ "plan", "NAME|--spec FILE", "Show what reconciling would do here; change nothing",
	  "rbd-volumectl plan db --intent down", verbPlan },
	{ "import-rbdmap", "[FILE]",
	  "Print Ceph's rbdmap (default /etc/ceph/rbdmap) and its fstab lines as specs",
	  "rbd-volumectl import-rbdmap --write", verbImportRbdmap },
	{ "list", "", "List the volumes rbd-volumed knows: name, intent, phase, device",
	  "rbd-volumectl list --no-legend | cut -d' ' -f1", verbList },
	{ "status", "[NAME...]", "Show every property of the volumes named, or of all",
	  "rbd-volumectl status db", verbStatus },
	{ "monitor", "[NAME...]", "Print each phase change as it happens, until Ctrl-C",
	  "rbd-volumectl monitor --json", verbMonitor },
	{ "metrics", "", "Print the volumes' metrics in Prometheus' text format",
	  "rbd-volumectl metrics --output /var/lib/prometheus/node-exporter/rbd-volume.prom",
	  verbMetrics },
	{ "is-up", "NAME...", "Exit 0 when every volume named is up; print each phase",
	  "rbd-volumectl is-up db logs --quiet && echo ready", verbIsUp },
	{ "up", "NAME...", "Bring volumes up, one after the other, each waited for",
	  "rbd-volumectl up db --timeout 600", verbUp },
	{ "down", "NAME...", "Take volumes down, one after the other, each waited for",
	  "rbd-volumectl down db", verbDown },
	{ "reconcile", "[NAME...]", "Run a pass now for the volumes named or all, and wait",
	  "rbd-volumectl reconcile --progress", verbReconcile },
	{ "reload", "", "Make rbd-volumed re-read its spec directories", "rbd-volumectl reload",
	  verbReload },
	{ "rotate-key", "NAME --new-keyfile FILE",
	  "Replace the key of a volume keyed by a keyfile (the volume up)",
	  "rbd-volumectl rotate-key db --new-keyfile /etc/rbd-volume/keys/db.new", verbRotateKey },
} };

/* Each option, the verbs that take it, and what it does (continuation lines indented). */
struct Option {
	std::string_view spelling;
	std::string_view verbs; /* ", "-separated */
	std::string_view text;
};

constexpr std::array<Option, 17> Options = { {
	{ "--json", "check, plan, list, status, monitor",
	  "print JSON (docs/cli.md has the schema)" },
	{ "--no-legend", "list", "print the rows without the header line" },
	{ "--no-wait", "up, down", "return once rbd-volumed accepted the intent" },
	{ "--if-start-cancelled", "down",
	  "do nothing unless systemd stopped the unit while its\nstart ran (rbd-volume@.service's "
	  "ExecStopPost=)" },
	{ "--timeout SECONDS", "up, down, reconcile, reload",
	  "stop waiting after SECONDS\n(0, the default: wait as long as it takes)" },
	{ "--progress", "up, down, reconcile",
	  "print each step on stderr\n(the default when stderr is a terminal)" },
	{ "-v, --verbose", "up, down, reconcile, reload", "print one line on success" },
	{ "-q, --quiet", "is-up", "print nothing: the exit status says it" },
	{ "--config FILE", "check, plan",
	  "the daemon's settings, whose rules apply too\n(default "
	  "/etc/rbd-volume/rbd-volumed.toml; missing: its\ndefaults); check --config FILE "
	  "alone checks that file" },
	{ "--spec FILE", "plan", "plan this spec file instead of an installed NAME" },
	{ "--output FILE", "metrics",
	  "write FILE (whole, by a rename) instead of\nprinting; for node_exporter, a *.prom "
	  "file" },
	{ "--intent up|down", "plan", "plan for this intent instead of the daemon's" },
	{ "--new-keyfile FILE", "rotate-key", "the file that holds the new key" },
	{ "--fstab FILE", "import-rbdmap", "where the /dev/rbd/ mounts are (/etc/fstab)" },
	{ "--write", "import-rbdmap",
	  "write the specs instead of printing them;\nnever over a file" },
	{ "--dir DIR", "import-rbdmap", "with --write, where (/etc/rbd-volume/volumes)" },
	{ "-h, --help", "every verb", "print this help" },
} };

constexpr std::string_view ExitStatuses =
	"\nExit status:\n"
	"  0  success (check: every spec is valid; plan: the plan is printed;\n"
	"     status: the volumes are shown, even failed, degraded or invalid ones)\n"
	"  1  failure (an invalid or unreadable spec, a failed operation, a conflict;\n"
	"     plan: the host cannot be read; import-rbdmap: an rbdmap line gave no\n"
	"     spec, or a spec was not written)\n"
	"  2  usage error (no verb, unknown verb or option, not a volume name)\n"
	"  3  rbd-volumed cannot be reached (not running, no system bus)\n"
	"  4  permission denied (changing a volume needs root)\n"
	"  5  no such volume (no spec of that name, or the daemon knows none)\n"
	"  75 not done in time (no answer from the cluster or a device, no reply\n"
	"     within --timeout): worth a later try; up and down: rbd-volumed goes on\n";

/* The option's lines: "  SPELLING  [VERBS: ]TEXT", its continuation lines aligned. */
void printOption(std::FILE *out, const Option &option, bool withVerbs)
{
	constexpr int Column = 20;
	std::string text = std::string(option.text);
	if (withVerbs)
		text = std::string(option.verbs) + ": " + text;
	std::string_view rest = text;
	std::string_view first = rest.substr(0, rest.find('\n'));
	std::fprintf(out, "  %-*.*s %.*s\n", Column - 1, static_cast<int>(option.spelling.size()),
		     option.spelling.data(), static_cast<int>(first.size()), first.data());
	while (first.size() < rest.size()) {
		rest.remove_prefix(first.size() + 1);
		first = rest.substr(0, rest.find('\n'));
		std::fprintf(out, "  %*s%.*s\n", Column, "", static_cast<int>(first.size()),
			     first.data());
	}
}

bool takes(const Option &option, std::string_view verb)
{
	if (option.verbs == "every verb")
		return true;
	std::string_view verbs = option.verbs;
	while (!verbs.empty()) {
		const size_t comma = verbs.find(", ");
		if (verbs.substr(0, comma) == verb)
			return true;
		verbs.remove_prefix(comma == std::string_view::npos ? verbs.size() : comma + 2);
	}
	return false;
}

void printUsage(std::FILE *out)
{
	std::fprintf(out, "Usage: rbd-volumectl [--help] [--version] VERB [ARGS...]\n\n"
			  "Verbs:\n");
	for (const Verb &verb : Verbs) {
		const std::string left = std::string(verb.name) + ' ' + std::string(verb.arguments);
		std::fprintf(out, "  %-24s %.*s\n", left.c_str(),
			     static_cast<int>(verb.summary.size()), verb.summary.data());
	}
	std::fprintf(out, "\nOptions (VERB --help shows one verb's):\n");
	for (const Option &option : Options)
		printOption(out, option, true);
	std::fwrite(ExitStatuses.data(), 1, ExitStatuses.size(), out);
}

/* `rbd-volumectl VERB --help`: its synopsis, what it does, its options, an example. */
void printVerbUsage(std::FILE *out, const Verb &verb)
{
	std::fprintf(out, "Usage: rbd-volumectl %.*s%s%.*s\n\n%.*s\n\nOptions:\n",
		     static_cast<int>(verb.name.size()), verb.name.data(),
		     verb.arguments.empty() ? "" : " ", static_cast<int>(verb.arguments.size()),
		     verb.arguments.data(), static_cast<int>(verb.summary.size()),
		     verb.summary.data());
	for (const Option &option : Options) {
		if (takes(option, verb.name))
			printOption(out, option, false);
	}
	std::fprintf(out, "\nExample:\n  %.*s\n", static_cast<int>(verb.example.size()),
		     verb.example.data());
	std::fwrite(ExitStatuses.data(), 1, ExitStatuses.size(), out);
}

bool isHelp(std::string_view arg)
{
	return arg == "--help" || arg == "-h";
}

/* Whether `arg` is an option that takes a value: "--timeout SECONDS" in the table. */
bool takesValue(std::string_view arg)
{
	return std::any_of(Options.begin(), Options.end(), [arg](const Option &option) {
		const size_t space = option.spelling.find(' ');
		return space != std::string_view::npos && option.spelling.substr(0, space) == arg;
	});
}

/*
 * Options may come before the verb too (`rbd-volumectl --json list`): they
 * are moved after it, with their values, so each verb parses one order.
 */
std::vector<std::string_view> verbFirst(std::span<const std::string_view> args)
{
	std::vector<std::string_view> leading;
	size_t i = 0;
	while (i < args.size() && args[i].size() > 1 && args[i].front() == '-' && args[i] != "--" &&
	       !isHelp(args[i]) && args[i] != "--version") {
		leading.push_back(args[i]);
		if (takesValue(args[i]) && i + 1 < args.size())
			leading.push_back(args[++i]);
		i++;
	}
	if (leading.empty() || i == args.size())
		return { args.begin(), args.end() };
	std::vector<std::string_view> ordered = { args[i] };
	ordered.insert(ordered.end(), leading.begin(), leading.end());
	ordered.insert(ordered.end(), args.begin() + static_cast<ptrdiff_t>(i) + 1, args.end());
	return ordered;
}

int run(std::span<const std::string_view> given)
{
	const std::vector<std::string_view> ordered = verbFirst(given);
	const std::span<const std::string_view> args = ordered;
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
		std::fprintf(stderr, "rbd-volumectl: %s '%.*s'\n\n",
			     args.front().starts_with('-') ? "expected a verb, found the option"
							   : "unknown verb",
			     static_cast<int>(args.front().size()), args.front().data());
		printUsage(stderr);
		return ExitUsage;
	}
	const std::span<const std::string_view> verbArgs = args.subspan(1);
	/* "--help" anywhere among the options asks for help; after "--" it is a file name. */
	const auto options = std::find(verbArgs.begin(), verbArgs.end(), "--");
	if (std::any_of(verbArgs.begin(), options, isHelp)) {
		printVerbUsage(stdout, *verb);
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
