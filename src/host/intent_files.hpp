/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Intent files: /run/rbd-volume/intent/NAME holds "up" or "down". In /run,
 * a daemon restart keeps them and a reboot clears them, as the intent of a
 * started rbd-volume@NAME unit should.
 */
#pragma once

#include <map>
#include <optional>
#include <string>

#include "common/result.hpp"
#include "engine/model.hpp"

namespace rbdvolume {

class IntentFiles
{
public:
	explicit IntentFiles(std::string directory) : directory_(std::move(directory)) {}

	/* Every recorded intent; unreadable or unknown contents are skipped. */
	std::map<std::string, Intent> loadAll() const;
	/* One volume's recorded intent; nullopt when none is, or it cannot be read. */
	std::optional<Intent> load(const std::string &volume) const;
	/* Atomic: written to a temporary file, then renamed. */
	Result<void> save(const std::string &volume, Intent intent) const;
	/* For a volume the daemon forgets: its spec is gone and nothing of it is left. */
	void remove(const std::string &volume) const;

private:
	std::string directory_;
};

} /* namespace rbdvolume */
