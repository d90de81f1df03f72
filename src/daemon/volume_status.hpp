/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A volume's status as the bus shows it (bus::VolumeProperties), and how it follows from an observation. */
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "bus/volume_properties.hpp"
#include "common/result.hpp"
#include "config/diagnostic.hpp"
#include "engine/observer.hpp"
#include "engine/plan.hpp"

namespace rbdvolume::daemon {

/* A problem shown in status: SpecInvalid, SpecMissing, Conflict, MapperLost, IoStalled,
 * Abandoned, Failed. */
using bus::Condition;

/* What one observation of a volume showed, boiled down on the worker that made it. */
struct Sighting {
	bus::Stage stage = bus::Stage::Absent;
	std::string device;
	std::string stagingPath;
	std::vector<std::string> targets; /* our mounts on publish targets */
	std::vector<Conflict> conflicts;
	Intent intent = Intent::Up; /* what it was observed against */
	bool converged = false;	    /* nothing to do for that intent */
	bool planned = false;	    /* a pass would run steps, or tidy the record */
	bool anythingOurs = false;

	bool operator==(const Sighting &) const = default;
};

Sighting sight(const ObservedVolume &observed, const Plan &plan);

/* The Volume object's properties. */
using VolumeStatus = bus::VolumeProperties;

/* What the daemon knows of a volume besides the host: the inputs of its status. */
struct VolumeFacts {
	std::string specFile;
	bool specUsable = false;	      /* a valid spec is loaded (maybe an older one) */
	std::vector<Diagnostic> specProblems; /* of the file as it is now */
	bool specMissing = false;	      /* the file is gone; the last valid spec stays */
	std::optional<Intent> intent;
	std::optional<Sighting> sighting; /* none before the first observation */
	std::optional<Error> lastError;	  /* of the last finished pass; cleared by a success */
	bool busy = false;
	std::string activity;
	uint64_t generation = 0;
	uint64_t observedGeneration = 0;
	/* Kept by the reconciler as the shown phase changes, and its retries. */
	uint64_t phaseSince = 0;
	uint64_t retries = 0;
	uint64_t heals = 0;
	std::map<std::string, uint64_t> stepUsec; /* each step's last run, in microseconds */
};

/* The status of volume `name`, from what the daemon knows of it. */
VolumeStatus statusOf(const std::string &name, const VolumeFacts &facts);

/* One line per conflict, as conditions and error replies show them. */
std::string conflictText(const Conflict &conflict);

} /* namespace rbdvolume::daemon */
