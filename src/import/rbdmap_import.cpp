/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Ceph's rbdmap file and its /etc/fstab entries turned into volume specs: text in, specs out. */
#include "import/rbdmap_import.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "common/volume_name.hpp"
#include "config/spec_parser.hpp"
#include "config/spec_render.hpp"
#include "import/draft.hpp"
#include "import/fstab_file.hpp"
#include "import/fstab_match.hpp"
#include "import/rbdmap_file.hpp"
#include "import/spec_builder.hpp"

namespace rbdvolume::importer {

namespace {

class NameTable
{
public:
	/* `base` itself, or base_2, base_3, ... : the first one nobody took. */
	std::string claim(const std::string &base)
	{
		std::string name = base;
		for (unsigned n = 2; taken_.contains(name); ++n) {
			const std::string suffix = '_' + std::to_string(n);
			name = base.substr(0, MaxVolumeNameLength - suffix.size()) + suffix;
		}
		taken_.insert(name);
		return name;
	}

private:
	std::set<std::string> taken_;
};

/* The import's messages, each with the rbdmap line it belongs to, so they come out in file order. */
class MessageLog
{
public:
	static constexpr unsigned AfterAll = ~0U;

	void add(unsigned order, ImportMessage message)
	{
		entries_.emplace_back(order, std::move(message));
	}

	std::vector<ImportMessage> sorted()
	{
		std::stable_sort(entries_.begin(), entries_.end(),
				 [](const auto &a, const auto &b) { return a.first < b.first; });
		std::vector<ImportMessage> out;
		out.reserve(entries_.size());
		for (auto &entry : entries_)
			out.push_back(std::move(entry.second));
		return out;
	}

private:
	std::vector<std::pair<unsigned, ImportMessage>> entries_;
};

std::string header(const Draft &draft)
{
	std::string out = "Imported by `rbd-volumectl import-rbdmap` from:\n";
	for (const std::string &source : draft.sources)
		out += "  " + source + '\n';
	for (const ImportMessage &message : draft.messages)
		out += message.format() + '\n';
	return out;
}

/* The images of the rbdmap file, one draft each; bad and repeated lines go to `log`. */
std::vector<Draft> readDrafts(const ImportSource &rbdmap, MessageLog &log, ImportOutcome &outcome)
{
	std::vector<Draft> drafts;
	std::map<std::string, unsigned> listed; /* image spec -> its first line */
	for (const RbdmapLine &line : readRbdmapLines(rbdmap.text)) {
		if (line.dev.empty() || line.dev.starts_with('#'))
			continue;
		++outcome.lines;
		const auto say = [&log, &rbdmap, &line](ImportLevel level, std::string text) {
			log.add(line.line, { level, rbdmap.path, line.line, std::move(text), {} });
		};
		Result<ImageSpec> image = parseRbdmapImage(line.dev);
		Result<RbdmapParams> params =
			image ? parseRbdmapParams(line.params) : Result<RbdmapParams>();
		if (!image || !params) {
			say(ImportLevel::Error, (image ? params.error() : image.error()).message);
			++outcome.failedLines;
			continue;
		}
		const std::string display = image->display();
		if (const auto first = listed.find(display); first != listed.end()) {
			say(ImportLevel::Warning,
			    display + " is listed already at " + place(rbdmap.path, first->second) +
				    "; rbdmap maps it once, this line is ignored");
			continue;
		}
		listed.emplace(display, line.line);

		Draft &draft = drafts.emplace_back();
		draft.line = line.line;
		draft.spec.image = std::move(*image);
		draft.spec.map.driver = Driver::Krbd;
		draft.params = std::move(params->params);
		draft.sources.push_back(place(rbdmap.path, line.line) + ": " + display);
		for (std::string &warning : params->warnings)
			draft.messages.push_back({ ImportLevel::Warning,
						   rbdmap.path,
						   line.line,
						   std::move(warning),
						   {} });
	}
	return drafts;
}

/* Names a built draft, renders it and parses the text back; a problem is an error. */
void finish(Draft &draft, NameTable &names, const ImportSource &rbdmap, const ImportSource &fstab,
	    MessageLog &log, ImportOutcome &outcome)
{
	const std::string base = volumeNameForImage(draft.spec.image);
	draft.spec.name = names.claim(base);
	log.add(draft.line, { ImportLevel::Note,
			      rbdmap.path,
			      draft.line,
			      draft.spec.image.display() + " -> volume '" + draft.spec.name + "'" +
				      (draft.spec.name != base ? " ('" + base + "' is taken)" : ""),
			      {} });
	if (draft.noautoLine > 0)
		draft.messages.push_back(
			{ ImportLevel::Note,
			  fstab.path,
			  draft.noautoLine,
			  "'noauto' was rbdmap's idiom, not 'stay down': rbdmap mounted the entry "
			  "itself at boot (rbdmap(8)); `systemctl enable rbd-volume@" +
				  draft.spec.name + "` keeps it mounted at boot",
			  {} });

	const std::string text = renderVolumeSpec(draft.spec, header(draft));
	const SpecOutcome parsed = parseVolumeSpec(text, draft.spec.name + ".toml");
	for (const Diagnostic &diagnostic : parsed.diagnostics)
		draft.messages.push_back({ ImportLevel::Error,
					   rbdmap.path,
					   draft.line,
					   "the spec for " + draft.spec.image.display() +
						   " would be invalid: " + diagnostic.format(),
					   {} });
	if (parsed.ok())
		outcome.volumes.push_back({ parsed.spec, text });
	else
		++outcome.failedLines;
}

} /* namespace */

std::string volumeNameForImage(const ImageSpec &image)
{
	std::string raw = image.name;
	if (!image.snapshot.empty())
		raw += '.' + image.snapshot;
	std::string name;
	for (const char c : raw) {
		const bool alnum =
			(c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
		if (name.empty() && !alnum)
			continue; /* a name starts with a letter or digit */
		name += alnum || c == '.' || c == '_' ? c : '_';
	}
	if (name.empty())
		name = "volume";
	name.resize(std::min(name.size(), MaxVolumeNameLength));
	return name;
}

ImportOutcome importRbdmap(const ImportSource &rbdmap, const ImportSource &fstab)
{
	ImportOutcome outcome;
	MessageLog log;
	std::vector<Draft> drafts = readDrafts(rbdmap, log, outcome);
	outcome.images = static_cast<unsigned>(drafts.size());
	FstabFile fstabFile = readFstab(fstab);
	std::vector<ImportMessage> fstabMessages = std::move(fstabFile.messages);
	matchFstab(fstabFile.entries, drafts, rbdmap, fstab, fstabMessages);
	std::stable_sort(fstabMessages.begin(), fstabMessages.end(),
			 [](const auto &a, const auto &b) { return a.line < b.line; });
	for (ImportMessage &message : fstabMessages)
		log.add(MessageLog::AfterAll, std::move(message));

	NameTable names;
	for (Draft &draft : drafts) {
		buildSpec(draft, rbdmap, fstab);
		if (draft.skipped)
			++outcome.failedLines;
		else
			finish(draft, names, rbdmap, fstab, log, outcome);
		for (ImportMessage &message : draft.messages) {
			message.volume = draft.spec.name;
			log.add(draft.line, std::move(message));
		}
	}
	outcome.messages = log.sorted();
	return outcome;
}

} /* namespace rbdvolume::importer */
