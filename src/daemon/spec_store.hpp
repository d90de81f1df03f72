/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * SpecStore: the volume specs of the spec directories, as last read. A
 * rescan reports which volumes changed, so only they are reconciled. A spec
 * that turns invalid or disappears keeps its last valid version (a volume
 * that is up can still be taken down), flagged so status shows the problem.
 */
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "config/diagnostic.hpp"
#include "config/volume_spec.hpp"

namespace rbdvolume::daemon {

struct SpecEntry {
	std::string file;			/* the file read last; kept when it disappears */
	std::shared_ptr<const VolumeSpec> spec; /* the last valid version; null if never */
	std::vector<Diagnostic> problems;	/* of the file as it is now */
	bool missing = false;			/* no file any more */
	size_t contentHash = 0;
};

class SpecStore
{
public:
	/* `dirs` in priority order: a name in an earlier directory hides a later one. */
	SpecStore(std::vector<std::string> dirs, std::vector<std::string> allowedMountRoots)
		: dirs_(std::move(dirs)), allowedRoots_(std::move(allowedMountRoots))
	{
	}

	/* Reads the directories again; returns the names whose entry changed or appeared. */
	std::vector<std::string> rescan();
	/*
	 * Reads only NAME's file again: a client that just wrote it (the CSI
	 * shim) must not race inotify's settle delay. Returns {NAME} when its
	 * entry changed, appeared or disappeared.
	 */
	std::vector<std::string> rescanOne(const std::string &name);

	const std::map<std::string, SpecEntry> &entries() const { return entries_; }
	const SpecEntry *find(const std::string &name) const;
	/* Forgets a volume whose file is gone (when nothing of it is left on the host). */
	void forget(const std::string &name) { entries_.erase(name); }

private:
	/* NAME -> file, the first directory winning. */
	std::map<std::string, std::string> listFiles() const;
	/* NAME's file in the first directory that has one; "" when none does. */
	std::string locate(const std::string &name) const;
	/* Reads `file` into NAME's entry; false when it is unchanged. */
	bool load(const std::string &name, const std::string &file);
	/* NAME's file is gone; false when that was already known. */
	bool markMissing(const std::string &name);

	std::vector<std::string> dirs_;
	std::vector<std::string> allowedRoots_;
	std::map<std::string, SpecEntry> entries_;
};

} /* namespace rbdvolume::daemon */
