/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "daemon/spec_store.hpp"

#include <algorithm>
#include <filesystem>
#include <functional>

#include "common/paths.hpp"
#include "common/text_escape.hpp"
#include "common/volume_name.hpp"
#include "config/mount_roots.hpp"
#include "config/spec_locate.hpp"
#include "config/spec_parser.hpp"

namespace rbdvolume::daemon {

std::map<std::string, std::string> SpecStore::listFiles() const
{
	std::map<std::string, std::string> files;
	for (const std::string &dir : dirs_) {
		std::error_code ec;
		for (const auto &entry : std::filesystem::directory_iterator(dir, ec)) {
			const std::string fileName = entry.path().filename().string();
			if (!isSpecFileName(fileName) || entry.is_directory(ec))
				continue;
			/*
			 * A stem that is no volume name is a spec in error; its key
			 * is escaped so that it can be shown (on the bus, in a log)
			 * and never equals a valid name.
			 */
			const std::string stem = fileName.substr(0, fileName.size() - 5);
			files.emplace(isValidVolumeName(stem) ? stem : terminalSafe(stem),
				      entry.path().string());
		}
	}
	return files;
}

std::string SpecStore::locate(const std::string &name) const
{
	for (const std::string &dir : dirs_) {
		std::string file = dir + "/" + name + ".toml";
		std::error_code ec;
		if (std::filesystem::exists(file, ec) && !std::filesystem::is_directory(file, ec))
			return file;
	}
	return {};
}

bool SpecStore::load(const std::string &name, const std::string &file)
{
	/* Bounded, non-blocking, a regular file only: a FIFO or /dev/zero here is a bad spec. */
	const Result<std::optional<std::string>> text = readSpecFile(file);
	const std::string content = !text ? "\n" + text.error().message : text->value_or("");
	const size_t hash = std::hash<std::string>{}(content);
	SpecEntry &entry = entries_[name];
	if (!entry.missing && entry.file == file && entry.contentHash == hash &&
	    (entry.spec || !entry.problems.empty()))
		return false;
	SpecOutcome outcome = volumeSpecFrom(text, file);
	if (outcome.ok())
		checkMountRoots(outcome.spec, allowedRoots_, outcome.diagnostics);
	entry.file = file;
	entry.contentHash = hash;
	entry.missing = false;
	entry.problems = std::move(outcome.diagnostics);
	if (entry.problems.empty())
		entry.spec = std::make_shared<const VolumeSpec>(std::move(outcome.spec));
	return true;
}

bool SpecStore::markMissing(const std::string &name)
{
	const auto found = entries_.find(name);
	if (found == entries_.end() || found->second.missing)
		return false;
	found->second.missing = true;
	found->second.problems.clear();
	return true;
}

std::vector<std::string> SpecStore::rescan()
{
	std::vector<std::string> changed;
	const std::map<std::string, std::string> files = listFiles();
	for (const auto &[name, file] : files) {
		if (load(name, file))
			changed.push_back(name);
	}
	std::vector<std::string> gone;
	for (const auto &[name, entry] : entries_) {
		if (!files.contains(name) && !entry.missing)
			gone.push_back(name);
	}
	for (const std::string &name : gone) {
		if (markMissing(name))
			changed.push_back(name);
	}
	std::sort(changed.begin(), changed.end());
	return changed;
}

std::vector<std::string> SpecStore::rescanOne(const std::string &name)
{
	const std::string file = locate(name);
	const bool changed = file.empty() ? markMissing(name) : load(name, file);
	if (changed)
		return { name };
	return {};
}

const SpecEntry *SpecStore::find(const std::string &name) const
{
	const auto found = entries_.find(name);
	return found == entries_.end() ? nullptr : &found->second;
}

} /* namespace rbdvolume::daemon */
