/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The operator's keyfile: the one file a passphrase may live in. Read
 * straight into a Secret (no std::string copy), refused unless it is a
 * regular file owned by us that no one else may read or write, itself
 * never a symbolic link, never opened for reading before it is known to be
 * a file (a FIFO or a device node planted there is refused, not opened).
 */
#pragma once

#include <string>

#include "common/result.hpp"
#include "common/secret.hpp"

namespace rbdvolume {

/* LUKS takes up to 8 MiB, cryptsetup's keyfile default; ours are passphrases. */
inline constexpr size_t MaxKeyfileBytes = 4096;

/*
 * The file's bytes, exactly (a trailing newline is part of the key, as
 * cryptsetup --key-file reads it). PermissionDenied for a file others may
 * read or write or that another user owns; InvalidArgument for an empty
 * file, one over MaxKeyfileBytes, or not a regular file; NotFound.
 */
Result<Secret> readKeyfile(const std::string &path);

} /* namespace rbdvolume */
