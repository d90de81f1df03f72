/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * An org.rbdvolume1.Volume object's properties, as one type for the daemon
 * that serves them, rbd-volumectl and rbd-volume-csi that read them, and one
 * table of them (volumeProperties()) from which the daemon's vtable, its
 * change detection and the clients' readers are all made.
 */
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <systemd/sd-bus.h>

#include "common/result.hpp"

namespace rbdvolume::bus {

enum class Phase : uint8_t {
	Unknown,   /* not observed yet */
	Invalid,   /* the spec does not parse or validate */
	Down,	   /* converged down (or no intent and nothing of ours on the host) */
	Up,	   /* converged up */
	Pending,   /* a pass runs or is due */
	Degraded,  /* something a pass cannot fix: a conflict, a lost mapper */
	Failed,	   /* the last pass failed; it is retried */
	Unmanaged, /* no intent, but our mounts or mappings exist */
};

enum class Stage : uint8_t { Absent, Mapped, Staged, Published };

/* "up", "degraded", ...: the names on the bus; nullopt for a name this build does not know. */
const char *phaseName(Phase phase);
std::optional<Phase> phaseFromName(std::string_view name);
const char *stageName(Stage stage);
std::optional<Stage> stageFromName(std::string_view name);

struct Condition {
	std::string type; /* "SpecInvalid", "Conflict", "MapperLost", "Failed", ... */
	std::string message;

	bool operator==(const Condition &) const = default;
};

struct VolumeProperties {
	std::string name;
	std::string specFile;
	std::string intent; /* "up", "down", "" (never set) */
	Phase phase = Phase::Unknown;
	Stage stage = Stage::Absent;
	bool busy = false;
	std::string activity;
	std::string device;
	std::string stagingPath;
	std::vector<std::string> publishTargets;
	std::vector<Condition> conditions;
	std::string lastErrorName; /* a bus error name; "" after a success */
	std::string lastErrorMessage;
	uint64_t generation = 0;
	uint64_t observedGeneration = 0;
	uint64_t phaseSince = 0; /* when Phase last changed: CLOCK_REALTIME, microseconds */
	uint64_t retries = 0;	 /* failed episodes retried, since the daemon started */
	uint64_t heals = 0;	 /* degraded or failed, then up again, since the daemon started */
	std::map<std::string, uint64_t> stepUsec; /* each step's last run, microseconds */

	bool operator==(const VolumeProperties &) const = default;
};

/* One row of Manager.ListVolumes, a(ssso). */
struct VolumeSummary {
	std::string name;
	std::string intent;
	Phase phase = Phase::Unknown;
	std::string objectPath;
};

/* One property of the Volume interface, and how it crosses the bus. */
struct VolumeProperty {
	const char *name;
	const char *signature;
	bool constant; /* never changes for an object (Name) */
	/* Appends its value (valid UTF-8: the host's bytes are escaped). */
	int (*append)(sd_bus_message *reply, const VolumeProperties &from);
	/* Reads it from a variant ("v") into `into`. */
	int (*read)(sd_bus_message *message, VolumeProperties &into);
	bool (*differs)(const VolumeProperties &a, const VolumeProperties &b);
};

/* Every property of org.rbdvolume1.Volume, in the contract's order. */
std::span<const VolumeProperty> volumeProperties();

/* The object path of a volume (VolumePathPrefix/NAME, escaped) and back ("" when none). */
std::string volumePath(const std::string &name);
std::string volumeName(const char *path);

/* Escapes what sd-bus would refuse (bytes that are no UTF-8) and control characters. */
std::string busText(const std::string &text);

/* A ListVolumes reply, in the order the daemon sent it. */
Result<std::vector<VolumeSummary>> readVolumeList(sd_bus_message *reply);

/* A Properties.GetAll reply for org.rbdvolume1.Volume, a{sv}; unknown properties are skipped. */
Result<VolumeProperties> readVolumeProperties(sd_bus_message *reply);

} /* namespace rbdvolume::bus */
