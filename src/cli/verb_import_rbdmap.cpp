/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* `rbd-volumectl import-rbdmap`: Ceph's rbdmap (+ /etc/fstab) as volume specs, printed or written. */
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

#include "cli/verb_options.hpp"
#include "cli/verbs.hpp"
#include "common/file_io.hpp"
#include "common/paths.hpp"
#include "config/text_file.hpp"
#include "import/rbdmap_import.hpp"

namespace rbdvolume::cli {

namespace {

constexpr std::string_view Synopsis = "[FILE] [--fstab FILE] [--write] [--dir DIR]";
constexpr std::string_view DefaultRbdmap = "/etc/ceph/rbdmap";
constexpr std::string_view DefaultFstab = "/etc/fstab";
constexpr size_t MaxInputBytes = size_t{ 1 } << 20U;

struct ImportArgs {
	std::string rbdmap{ DefaultRbdmap };
	std::string fstab{ DefaultFstab };
	std::string dir{ paths::AdminSpecDir };
	bool fstabGiven = false;
	bool dirGiven = false;
	bool write = false;
};

int usage(const std::string &problem)
{
	return usageError("import-rbdmap", problem, Synopsis);
}

/* The value of `--name VALUE` or `--name=VALUE` at args[i]; nullopt when `arg` is not that option. */
std::optional<std::string> optionValue(std::span<const std::string_view> args, size_t &i,
				       std::string_view name, std::string &problem)
{
	const std::string_view arg = args[i];
	if (arg.starts_with(name) && arg.size() > name.size() && arg[name.size()] == '=')
		return std::string(arg.substr(name.size() + 1));
	if (arg != name)
		return std::nullopt;
	if (i + 1 >= args.size()) {
		problem = std::string(name) + " needs a value";
		return std::string();
	}
	return std::string(args[++i]);
}

std::optional<ImportArgs> parse(std::span<const std::string_view> args, std::string &problem)
{
	ImportArgs parsed;
	bool fileGiven = false;
	bool options = true;
	for (size_t i = 0; i < args.size() && problem.empty(); ++i) {
		const std::string_view arg = args[i];
		if (options && arg == "--") {
			options = false;
		} else if (options && arg == "--write") {
			parsed.write = true;
		} else if (std::optional<std::string> fstab =
				   options ? optionValue(args, i, "--fstab", problem)
					   : std::nullopt) {
			parsed.fstab = *fstab;
			parsed.fstabGiven = true;
		} else if (std::optional<std::string> dir =
				   options ? optionValue(args, i, "--dir", problem)
					   : std::nullopt) {
			parsed.dir = *dir;
			parsed.dirGiven = true;
		} else if (options && arg.size() > 1 && arg.front() == '-') {
			problem = "unknown option '" + std::string(arg) + "'";
		} else if (fileGiven) {
			problem = "one rbdmap file at a time";
		} else {
			parsed.rbdmap = arg;
			fileGiven = true;
		}
	}
	if (problem.empty() && parsed.dirGiven && !parsed.write)
		problem = "--dir only goes with --write";
	if (problem.empty() &&
	    (parsed.rbdmap.empty() || parsed.fstab.empty() || parsed.dir.empty()))
		problem = "an empty file or directory name";
	if (!problem.empty())
		return std::nullopt;
	return parsed;
}

/* The text of an input file; nullopt (and a message) when it cannot be read. */
std::optional<std::string> readInput(const std::string &path, std::string_view what, bool required)
{
	Result<std::optional<std::string>> text = readSmallTextFile(path, MaxInputBytes, what);
	if (!text) {
		std::fprintf(stderr, "%s: error: %s\n", path.c_str(), text.error().message.c_str());
		return std::nullopt;
	}
	if (!*text) {
		if (required) {
			std::fprintf(stderr, "%s: error: no such file\n", path.c_str());
			return std::nullopt;
		}
		std::fprintf(stderr,
			     "%s: note: no such file: every image becomes a block-mode spec\n",
			     path.c_str());
		return std::string();
	}
	return std::move(**text);
}

void printSpecs(const importer::ImportOutcome &outcome)
{
	bool first = true;
	for (const importer::ImportedVolume &volume : outcome.volumes) {
		std::printf("%s# --- %s.toml\n%s", first ? "" : "\n", volume.spec.name.c_str(),
			    volume.text.c_str());
		first = false;
	}
}

/* Writes every spec it can; the number that could not be written. */
unsigned writeSpecs(const importer::ImportOutcome &outcome, const std::string &dir)
{
	std::error_code error;
	std::filesystem::create_directories(dir, error);
	if (error) {
		std::fprintf(stderr, "%s: error: cannot create the directory: %s\n", dir.c_str(),
			     error.message().c_str());
		return static_cast<unsigned>(outcome.volumes.size());
	}
	unsigned failed = 0;
	for (const importer::ImportedVolume &volume : outcome.volumes) {
		const std::string path = dir + '/' + volume.spec.name + ".toml";
		const Result<void> written = writeFileNew(path, volume.text, 0644);
		if (written) {
			std::fprintf(stderr, "%s: written (%s)\n", path.c_str(),
				     volume.spec.image.display().c_str());
			continue;
		}
		std::fprintf(stderr, "%s: error: %s; %s not written\n", path.c_str(),
			     written.error().message.c_str(), volume.spec.image.display().c_str());
		++failed;
	}
	return failed;
}

} /* namespace */

int verbImportRbdmap(std::span<const std::string_view> args)
{
	std::string problem;
	const std::optional<ImportArgs> parsed = parse(args, problem);
	if (!parsed)
		return usage(problem);

	const std::optional<std::string> rbdmapText =
		readInput(parsed->rbdmap, "an rbdmap file", true);
	if (!rbdmapText)
		return ExitFailure;
	const std::optional<std::string> fstabText =
		readInput(parsed->fstab, "an fstab file", parsed->fstabGiven);
	if (!fstabText)
		return ExitFailure;

	const importer::ImportOutcome outcome = importer::importRbdmap(
		{ parsed->rbdmap, *rbdmapText }, { parsed->fstab, *fstabText });
	for (const importer::ImportMessage &message : outcome.messages)
		std::fprintf(stderr, "%s\n", message.format().c_str());

	unsigned unwritten = 0;
	if (parsed->write)
		unwritten = writeSpecs(outcome, parsed->dir);
	else
		printSpecs(outcome);

	const auto specs = static_cast<unsigned>(outcome.volumes.size());
	std::fprintf(stderr, "%u spec(s) from %u rbdmap line(s)", specs, outcome.lines);
	if (outcome.failedLines > 0)
		std::fprintf(stderr, "; %u line(s) gave none, see above", outcome.failedLines);
	if (parsed->write)
		std::fprintf(stderr, "; %u spec(s) written to %s", specs - unwritten,
			     parsed->dir.c_str());
	std::fprintf(stderr, "\n");
	if (specs > unwritten)
		std::fprintf(stderr,
			     "next: %scheck the specs (rbd-volumectl check %s), systemctl disable "
			     "rbdmap.service, comment out the imported %s lines, then systemctl "
			     "enable --now rbd-volume@NAME for each volume\n",
			     parsed->write ? "" : "write them (--write), ", parsed->dir.c_str(),
			     parsed->fstab.c_str());
	return outcome.complete() && unwritten == 0 ? ExitOk : ExitFailure;
}

} /* namespace rbdvolume::cli */
