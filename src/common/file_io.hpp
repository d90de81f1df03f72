/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * File I/O for every file rbd-volume reads or writes: reads are bounded in
 * size and never block (a FIFO, a device or a socket where a file should be
 * is refused, never read), writes are atomic.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <sys/types.h>

#include "common/result.hpp"

namespace rbdvolume {

/* The state files under /run/rbd-volume are a few hundred bytes. */
inline constexpr size_t SmallFileBytes = size_t{ 64 } * 1024;

enum class Symlinks : bool {
	Follow, /* an administrator's file (a spec, the daemon config) may be a link to one */
	Refuse, /* our own state files never are: a link there was planted */
};

/*
 * The whole of a regular file, or nullopt when it does not exist. It is
 * opened non-blocking, checked to be a regular file before a byte is read,
 * and read to at most `maxBytes`: anything else is an error whose message
 * reads after "PATH: " ("expected a file, found a FIFO").
 * /proc and /sys attributes are regular files too.
 */
Result<std::optional<std::string>> readFileBounded(const std::string &path, size_t maxBytes,
						   Symlinks symlinks = Symlinks::Refuse);

/*
 * The size of the block device at `path` in bytes, from sysfs
 * (/sys/dev/block/MAJ:MIN/size): the device is never opened, since an open
 * may rescan its partitions through a server that no longer answers.
 */
Result<uint64_t> blockDeviceSize(const std::string &path);

/* "a FIFO", "a directory", "a block device", ... for a stat mode. */
std::string fileTypeName(mode_t mode);

/*
 * Writes `data` to `path` atomically: temp file (mode 0600 until it is
 * complete, then `mode`), fsync, rename, fsync the directory. `data` is
 * written from where it is, never copied: a Secret's view() may be given.
 */
Result<void> writeFileAtomic(const std::string &path, std::string_view data, mode_t mode);

/*
 * Writes `data` to `path` only if nothing is there: a hidden temporary file
 * beside it, synced, then link(2)ed to its name, so a reader sees all of it
 * or nothing, and a file already there is Errc::Conflict, never replaced.
 */
Result<void> writeFileNew(const std::string &path, std::string_view data, mode_t mode);

/* A name writeFileAtomic() gives its temporary file (NAME.tmpXXXXXX): left by a crash. */
bool isAtomicWriteTemporary(std::string_view name);

} /* namespace rbdvolume */
