/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "daemon/spec_store.hpp"

#include <algorithm>
#include <filesystem>
#include <functional>

#include "common/paths.hpp"
#include "host/fs_util.hpp"

namespace rbdvolume::daemon {

namespace {

/* Editors' and package managers' leftovers are not specs. */
bool looksLikeSpec(const std::string &fileName)
{
	return fileName.size() > 5 && fileName.ends_with(".toml") && fileName.front() != '.';
}

std::string joined(const std::vector<std::string> &items)
{
	std::string text;
	for (const std::string &item : items)
		text += (text.empty() ? "" : ", ") + item;
	return text;
}

} /* namespace */

std::map<std::string, std::string> SpecStore::listFiles() const
{
	std::map<std::string, std::string> files;
	for (const std::string &dir : dirs_) {
		std::error_code ec;
		for (const auto &entry : std::filesystem::directory_iterator(dir, ec)) {
			const std::string fileName = entry.path().filename().string();
			if (!looksLikeSpec(fileName) || entry.is_directory(ec))
				continue;
			files.emplace(fileName.substr(0, fileName.size() - 5),
				      entry.path().string());
		}
	}
	return files;
}

void SpecStore::checkMountRoots(const VolumeSpec &spec, std::vector<Diagnostic> &problems) const
{
	const auto allowed = [this](const std::string &path) {
		return std::any_of(allowedRoots_.begin(), allowedRoots_.end(),
				   [&](const std::string &root) {
					   return paths::isSameOrBelow(path, root) && path != root;
				   });
	};
	const auto refuse = [&](const std::string &field, const std::string &path) {
		problems.push_back({ spec.sourceFile, 0, 0, field,
				     "'" + path + "' is not below an allowed mount root (" +
					     joined(allowedRoots_) +
					     "; allowed-mount-roots in rbd-volumed.toml)" });
	};
	if (!allowed(spec.staging.path))
		refuse("staging.path", spec.staging.path);
	for (size_t i = 0; i < spec.publish.size(); i++) {
		if (!allowed(spec.publish[i].path))
			refuse("publish[" + std::to_string(i) + "].path", spec.publish[i].path);
	}
}

std::vector<std::string> SpecStore::rescan()
{
	std::vector<std::string> changed;
	const std::map<std::string, std::string> files = listFiles();
	for (const auto &[name, file] : files) {
		auto text = readFile(file);
		const std::string content = text && *text ? **text : std::string();
		const size_t hash = std::hash<std::string>{}(content);
		SpecEntry &entry = entries_[name];
		if (!entry.missing && entry.file == file && entry.contentHash == hash &&
		    (entry.spec || !entry.problems.empty()))
			continue;
		SpecOutcome outcome =
			text && *text ? parseVolumeSpec(content, file) : loadVolumeSpec(file);
		if (outcome.ok())
			checkMountRoots(outcome.spec, outcome.diagnostics);
		entry.file = file;
		entry.contentHash = hash;
		entry.missing = false;
		entry.problems = std::move(outcome.diagnostics);
		if (entry.problems.empty())
			entry.spec = std::make_shared<const VolumeSpec>(std::move(outcome.spec));
		changed.push_back(name);
	}
	for (auto &[name, entry] : entries_) {
		if (files.contains(name) || entry.missing)
			continue;
		entry.missing = true;
		entry.problems.clear();
		changed.push_back(name);
	}
	std::sort(changed.begin(), changed.end());
	return changed;
}

const SpecEntry *SpecStore::find(const std::string &name) const
{
	const auto found = entries_.find(name);
	return found == entries_.end() ? nullptr : &found->second;
}

} /* namespace rbdvolume::daemon */
