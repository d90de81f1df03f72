/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Cross-field rules of spec v1 and the defaults that depend on other fields. */
#include "config/spec_validate.hpp"

#include <optional>
#include <string>
#include <vector>

#include "common/paths.hpp"
#include "common/text_escape.hpp"

namespace rbdvolume {

namespace {

std::string publishField(size_t index, std::string_view key)
{
	return "publish[" + std::to_string(index) + "]." + std::string(key);
}

/* Written and well-formed: only such fields take part in cross-field rules. */
bool usable(const SpecReport &report, std::string_view field)
{
	return report.has(field) && !report.failed(field);
}

bool mapsSnapshot(const VolumeSpec &spec, const SpecReport &report)
{
	return !spec.image.snapshot.empty() || report.has("image.snapshot");
}

std::string effectiveStagingPath(const VolumeSpec &spec)
{
	return spec.staging.path.empty() ? paths::defaultStagingPath(spec.name) : spec.staging.path;
}

void checkImage(const VolumeSpec &spec, SpecReport &report)
{
	if (report.has("image.create") && mapsSnapshot(spec, report))
		report.error("image.create",
			     "cannot create an image and map a snapshot of it: remove "
			     "[image.create] or image.snapshot");
}

void checkCluster(SpecReport &report)
{
	if (report.has("cluster.keyring") && report.has("cluster.keyfile"))
		report.error("cluster.keyfile",
			     "expected at most one of 'keyring' and 'keyfile', found both");
}

void checkDriverSection(const VolumeSpec &spec, SpecReport &report, Driver own)
{
	const Driver driver = spec.map.driver;
	const std::string field = std::string("map.") + driverName(own);
	if (!report.has(field) || report.failed("map.driver") || driver == Driver::Auto ||
	    driver == own)
		return;
	report.error(field, "[" + field + "] is only allowed with driver '" + driverName(own) +
				    "' or 'auto', found driver '" + driverName(driver) +
				    "': driver-specific options belong to the chosen driver");
}

void checkEncryption(const VolumeSpec &spec, SpecReport &report)
{
	/* The mapping's node is a udev link that a bind would have to follow: not yet. */
	if (spec.encryption && spec.mode == VolumeMode::Block && !report.failed("encryption"))
		report.error("encryption",
			     "[encryption] with mode = 'block' is not supported by this build yet");
	/*
	 * The key's state is written to the image's metadata while it is mapped,
	 * which takes the exclusive lock from the mapping: one that keeps it
	 * never lets go.
	 */
	if (spec.encryption &&
	    (spec.encryption->source == KeySource::ImageMetadata || spec.encryption->givenAtUp) &&
	    spec.map.exclusive && usable(report, "map.exclusive"))
		report.error("map.exclusive",
			     "exclusive = true cannot be combined with a key kept in the image's "
			     "metadata or given at up: rbd-volume writes the image's metadata "
			     "while it is mapped, which needs the lock an exclusive mapping keeps");
	/* Two hosts could each find the image blank and write a header of their own. */
	if (spec.encryption && spec.map.multiWriter && usable(report, "map.multi-writer"))
		report.error("map.multi-writer",
			     "multi-writer = true cannot be encrypted: each host could write a "
			     "LUKS header of its own on a blank image");
	if (!spec.encryption || !usable(report, "encryption.volume-id") ||
	    report.failed("encryption.passphrase"))
		return;
	if (spec.encryption->source != KeySource::ImageMetadata)
		report.error("encryption.volume-id",
			     "volume-id names the volume a data key in the image's metadata is "
			     "wrapped for: it needs passphrase = 'image-metadata'");
}

void checkReadOnly(const VolumeSpec &spec, SpecReport &report)
{
	if (mapsSnapshot(spec, report) && usable(report, "map.read-only") && !spec.map.readOnly)
		report.error("map.read-only",
			     "expected true (a snapshot maps read-only) or no read-only key, "
			     "found false");
}

void checkMode(const VolumeSpec &spec, SpecReport &report)
{
	if (report.failed("mode"))
		return;
	if (spec.mode != VolumeMode::Block) {
		if (usable(report, "map.multi-writer") && spec.map.multiWriter)
			report.error("map.multi-writer",
				     "multi-writer = true needs mode = 'block': a filesystem "
				     "cannot be mounted by writers on several hosts");
		return;
	}

	const std::string notHere = " only allowed in filesystem mode, and mode is 'block'";
	if (report.has("filesystem"))
		report.error("filesystem", "[filesystem] is" + notHere);
	if (report.has("staging.options"))
		report.error("staging.options", "mount options are" + notHere);
	for (size_t i = 0; i < spec.publish.size(); ++i) {
		if (report.has(publishField(i, "options")))
			report.error(publishField(i, "options"), "mount options are" + notHere);
	}
}

/* The first conflict of publish[index].path with the staging path or an earlier target. */
std::optional<std::string> targetProblem(const VolumeSpec &spec, const SpecReport &report,
					 size_t index, const std::vector<size_t> &earlier)
{
	const std::string &path = spec.publish[index].path;
	for (const size_t other : earlier) {
		const std::string &otherPath = spec.publish[other].path;
		const std::string otherField = publishField(other, "path");
		if (path == otherPath)
			return "expected a target not listed before, found " + quoted(path) +
			       " again (" + otherField + ")";
		if (paths::isSameOrBelow(path, otherPath))
			return "expected a target outside " + otherField + " " + quoted(otherPath) +
			       ", found " + quoted(path);
		if (paths::isSameOrBelow(otherPath, path))
			return "expected a target that does not contain " + otherField + " " +
			       quoted(otherPath) + ", found " + quoted(path);
	}

	if (report.failed("staging.path"))
		return {};
	const std::string staging = effectiveStagingPath(spec);
	if (paths::isSameOrBelow(path, staging))
		return "expected a target outside the staging path " + quoted(staging) +
		       ", found " + quoted(path);
	if (paths::isSameOrBelow(staging, path))
		return "expected a target that does not contain the staging path " +
		       quoted(staging) + ", found " + quoted(path);
	return {};
}

/* A mount there would hide or replace the records that say what is ours. */
void checkOwnState(const VolumeSpec &spec, SpecReport &report)
{
	if (usable(report, "staging.path")) {
		if (auto problem = paths::ownStateProblem(spec.staging.path, true))
			report.error("staging.path", *problem);
	}
	for (size_t i = 0; i < spec.publish.size(); ++i) {
		const std::string field = publishField(i, "path");
		if (!usable(report, field))
			continue;
		if (auto problem = paths::ownStateProblem(spec.publish[i].path, false))
			report.error(field, *problem);
	}
}

void checkPublish(const VolumeSpec &spec, SpecReport &report)
{
	const bool snapshot = mapsSnapshot(spec, report);
	const bool volumeReadOnly = spec.map.readOnly || snapshot;
	std::vector<size_t> checked;
	for (size_t i = 0; i < spec.publish.size(); ++i) {
		const std::string readOnlyField = publishField(i, "read-only");
		if (volumeReadOnly && usable(report, readOnlyField) && !spec.publish[i].readOnly)
			report.error(readOnlyField,
				     snapshot ? "expected true (the volume maps a snapshot, "
						"read-only), found false"
					      : "expected true (the volume is read-only: "
						"map.read-only = true), found false");

		const std::string pathField = publishField(i, "path");
		if (!usable(report, pathField))
			continue;
		const auto problem = targetProblem(spec, report, i, checked);
		if (problem)
			report.error(pathField, *problem);
		else
			checked.push_back(i);
	}
}

} /* namespace */

void validateSpec(const VolumeSpec &spec, SpecReport &report)
{
	checkImage(spec, report);
	checkCluster(report);
	checkDriverSection(spec, report, Driver::Krbd);
	checkDriverSection(spec, report, Driver::Nbd);
	checkReadOnly(spec, report);
	checkEncryption(spec, report);
	checkMode(spec, report);
	checkPublish(spec, report);
	checkOwnState(spec, report);
}

void completeSpec(VolumeSpec &spec, const SpecReport &report)
{
	if (mapsSnapshot(spec, report))
		spec.map.readOnly = true;
	for (size_t i = 0; i < spec.publish.size(); ++i) {
		if (!report.has(publishField(i, "read-only")))
			spec.publish[i].readOnly = spec.map.readOnly;
	}
	spec.staging.path = effectiveStagingPath(spec);
	if (spec.mode == VolumeMode::Filesystem) {
		if (!spec.filesystem)
			spec.filesystem.emplace();
	} else {
		spec.filesystem.reset();
	}
}

} /* namespace rbdvolume */
