/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Ceph's rbdmap file and its /etc/fstab entries turned into volume specs: text in, specs out. */
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"
#include "config/volume_spec.hpp"

namespace rbdvolume::importer {

enum class ImportLevel : uint8_t {
	Note,	 /* something changed in translation, on purpose */
	Warning, /* something not carried over, or an image left out */
	Error,	 /* a line that could not be read, a spec that would be invalid */
};

/* One message of the import, tied to a line of an input file when it has one. */
struct ImportMessage {
	ImportLevel level = ImportLevel::Note;
	std::string file; /* "" when it concerns no file */
	unsigned line = 0;
	std::string text;
	std::string volume; /* the volume it concerns (and whose header repeats it), or "" */

	/* "FILE:LINE: warning: TEXT" ("FILE: ..." without a line, "warning: ..." without a file). */
	std::string format() const;
};

/* A spec built from one rbdmap line and its fstab entries, rendered and parsed back without a problem. */
struct ImportedVolume {
	VolumeSpec spec;
	std::string text; /* the spec file: a header naming its sources, then renderVolumeSpec() */
};

struct ImportOutcome {
	std::vector<ImportedVolume> volumes; /* in rbdmap order */
	std::vector<ImportMessage> messages; /* in the order they were found */
	unsigned lines = 0;		     /* rbdmap lines naming an image */
	unsigned images = 0;		     /* distinct images among them */
	unsigned failedLines = 0; /* lines that gave no spec (a repeated line is no failure) */

	bool complete() const { return failedLines == 0; }
};

/* An input file: the name messages use, and its text. */
struct ImportSource {
	std::string path;
	std::string_view text;
};

/*
 * Every image of `rbdmap` as a VolumeSpec (driver krbd, as rbdmap maps), in
 * filesystem mode when `fstab` mounts its /dev/rbd/POOL/[NS/]IMAGE, else in
 * block mode. Each spec was rendered and checked with parseVolumeSpec().
 */
ImportOutcome importRbdmap(const ImportSource &rbdmap, const ImportSource &fstab);

/* The parts, for tests. */

/* One RBDOPTS entry: "key=value", or a bare "key" (value unset). */
struct RbdmapParam {
	std::string key;
	std::optional<std::string> value;

	bool operator==(const RbdmapParam &) const = default;
};

struct RbdmapParams {
	std::vector<RbdmapParam> params;
	std::vector<std::string> warnings; /* quoting rbdmap itself would have got wrong */
};

/*
 * RBDOPTS as rbdmap's create_cmd_params() reads them: ',' separates entries,
 * the first unquoted '=' splits key and value, single quotes protect both,
 * and '#' ends the list (even inside quotes). Also read here, with a
 * warning, because rbdmap could not have used them: double quotes as quotes,
 * and blanks inside quotes. An unquoted blank, a second unquoted '=' and an
 * unterminated quote are errors.
 */
Result<RbdmapParams> parseRbdmapParams(std::string_view params);

/* IMAGESPEC: "POOL/[NAMESPACE/]IMAGE[@SNAP]", or "IMAGE" in pool "rbd". */
Result<ImageSpec> parseRbdmapImage(std::string_view spec);

/*
 * The volume name an image is imported as, before collisions are resolved:
 * the image name (plus '.SNAP' for a snapshot), every character outside
 * [A-Za-z0-9_.] made '_', leading '_' and '.' removed, at most 63
 * characters; "volume" when nothing is left.
 */
std::string volumeNameForImage(const ImageSpec &image);

} /* namespace rbdvolume::importer */
