/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The entries of an fstab file, read by libmount's fstab parser as mount(8) reads them. */
#pragma once

#include <string>
#include <vector>

#include "import/import_message.hpp"

namespace rbdvolume::importer {

struct FstabEntry {
	unsigned line = 0;
	std::string device;
	std::string mountPoint;		  /* "" for a line that names a device alone */
	std::string type;		  /* "auto" for a line without one */
	std::vector<std::string> options; /* NAME or NAME=VALUE, as libmount splits them */
	int passno = 0;
};

struct FstabFile {
	std::vector<FstabEntry> entries;     /* in file order */
	std::vector<ImportMessage> messages; /* the lines libmount cannot read, in file order */
};

/*
 * Every entry of `fstab`, each line through libmount's parser: comments,
 * blank lines, octal escapes (\040) and CRLF as mount(8) reads them. A line
 * libmount refuses is skipped with a warning at FILE:LINE, as mount(8) skips
 * it; but one that names only DEVICE [MOUNTPOINT] is kept (mount point "",
 * type "auto"), so that an rbd device's short entry is still reported
 * against its image.
 */
FstabFile readFstab(const ImportSource &fstab);

} /* namespace rbdvolume::importer */
