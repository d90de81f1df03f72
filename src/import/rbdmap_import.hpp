/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Ceph's rbdmap file and its /etc/fstab entries turned into volume specs: text in, specs out. */
#pragma once

#include <string>
#include <vector>

#include "config/volume_spec.hpp"
#include "import/import_message.hpp"

namespace rbdvolume::importer {

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

/*
 * Every image of `rbdmap` as a VolumeSpec (driver krbd, as rbdmap maps), in
 * filesystem mode when `fstab` mounts its /dev/rbd/POOL/[NS/]IMAGE, else in
 * block mode. Each spec was rendered and checked with parseVolumeSpec().
 */
ImportOutcome importRbdmap(const ImportSource &rbdmap, const ImportSource &fstab);

/*
 * The volume name an image is imported as, before collisions are resolved:
 * the image name (plus '.SNAP' for a snapshot), every character outside
 * [A-Za-z0-9_.] made '_', leading '_' and '.' removed, at most 63
 * characters; "volume" when nothing is left.
 */
std::string volumeNameForImage(const ImageSpec &image);

} /* namespace rbdvolume::importer */
