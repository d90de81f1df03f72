/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* `rbd-volumectl plan NAME | --spec FILE [--config FILE] [--json]`: the dry run against this host; changes nothing. */
#include <cstdio>
#include <optional>
#include <string>

#include "cli/daemon_rules.hpp"
#include "cli/exit_codes.hpp"
#include "cli/plan_json.hpp"
#include "cli/verb_options.hpp"
#include "cli/verbs.hpp"
#include "common/fs_util.hpp"
#include "common/paths.hpp"
#include "config/spec_locate.hpp"
#include "config/spec_parser.hpp"
#include "engine/reconcile.hpp"
#include "host/drivers/dry_run_host.hpp"
#include "host/intent_files.hpp"

namespace rbdvolume::cli {

namespace {

struct PlanArgs {
	std::string name;
	std::string specFile;
	std::string configFile; /* the daemon's settings; "" for its default */
	std::optional<Intent> intent;
	bool json = false;
};

int usage(const std::string &problem)
{
	return usageError("plan", problem,
			  "NAME | --spec FILE [--intent up|down] [--config FILE] [--json]");
}

std::optional<PlanArgs> parse(std::span<const std::string_view> args, std::string &problem)
{
	PlanArgs parsed;
	for (size_t i = 0; i < args.size(); i++) {
		const std::string_view arg = args[i];
		if ((arg == "--spec" || arg == "--intent" || arg == "--config") &&
		    i + 1 >= args.size()) {
			problem = std::string(arg) + " needs a value";
			return std::nullopt;
		}
		if (arg == "--json") {
			parsed.json = true;
		} else if (arg == "--spec") {
			parsed.specFile = args[++i];
		} else if (arg == "--config") {
			parsed.configFile = args[++i];
		} else if (arg == "--intent") {
			const std::string_view value = args[++i];
			parsed.intent = intentFromName(value);
			if (!parsed.intent) {
				problem = "--intent is 'up' or 'down', not '" + std::string(value) +
					  "'";
				return std::nullopt;
			}
		} else if (!arg.empty() && arg.front() == '-') {
			problem = "unknown option '" + std::string(arg) + "'";
			return std::nullopt;
		} else if (parsed.name.empty()) {
			parsed.name = arg;
		} else {
			problem = "one volume at a time";
			return std::nullopt;
		}
	}
	if (parsed.name.empty() == parsed.specFile.empty()) {
		problem = "name a volume or give --spec FILE (not both)";
		return std::nullopt;
	}
	return parsed;
}

/* The intent the daemon keeps for the volume; a volume with none would be brought up. */
Intent recordedIntent(const std::string &name)
{
	return IntentFiles(std::string(paths::IntentDir)).load(name).value_or(Intent::Up);
}

} /* namespace */

int verbPlan(std::span<const std::string_view> args)
{
	std::string problem;
	const auto parsed = parse(args, problem);
	if (!parsed)
		return usage(problem);

	std::string file = parsed->specFile;
	if (file.empty()) {
		auto located = locateSpec(parsed->name, defaultSpecDirs());
		if (!located && located.error().code == Errc::InvalidArgument)
			return usage(located.error().message); /* not a volume name */
		if (!located) /* no spec of that name: exit 5, as the bus verbs' */
			return reportFailure("plan " + parsed->name, located.error(), parsed->json);
		file = *located;
	}
	/* What the daemon would refuse has no plan: its settings' rules apply too. */
	const DaemonRules rules = loadDaemonRules(parsed->configFile);
	for (const Diagnostic &diagnostic : rules.problems)
		std::fprintf(stderr, "%s\n", diagnostic.format().c_str());
	if (!rules.ok())
		return reportFailure("plan",
				     Error{ Errc::InvalidArgument,
					    rules.file + " is invalid: rbd-volumed would not start",
					    0 },
				     parsed->json);
	const SpecOutcome outcome = loadSpecAsDaemon(file, rules);
	for (const Diagnostic &diagnostic : outcome.diagnostics)
		std::fprintf(stderr, "%s\n", diagnostic.format().c_str());
	if (!outcome.ok())
		return reportFailure("plan",
				     Error{ Errc::InvalidArgument,
					    file + " is invalid: the problems are above", 0 },
				     parsed->json);
	const VolumeSpec &spec = outcome.spec;

	DryRunHost dryRun{ std::string(paths::OwnershipDir), SystemRoots{} };
	Host &host = dryRun.host();
	auto snapshot = takeSnapshot(host);
	const Intent intent = parsed->intent.value_or(recordedIntent(spec.name));
	auto pass = snapshot ? planPass(host, *snapshot, DesiredVolume{ spec, intent })
			     : Result<PassOutcome>(tl::make_unexpected(snapshot.error()));
	if (!pass) /* exit 1, whatever kept the host from being read */
		return reportFailure("plan " + spec.name,
				     Error{ Errc::Io,
					    "cannot observe the host: " + pass.error().message,
					    pass.error().sysErrno },
				     parsed->json);
	const std::string text =
		parsed->json ? formatPlanJson(pass->plan, spec) : formatPlan(pass->plan, spec);
	std::fputs(text.c_str(), stdout);
	return ExitOk;
}

} /* namespace rbdvolume::cli */
