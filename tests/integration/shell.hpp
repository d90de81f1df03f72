/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Test helpers: run a tool (argv, with a timeout) and fail the test when it fails. */
#pragma once

#include <string>
#include <vector>

namespace rbdvolume::testing {

/* Runs argv through PosixCommandRunner; returns stdout; ADD_FAILUREs on any failure. */
std::string runOk(const std::vector<std::string> &argv, int timeoutSeconds = 60);

/* Runs `/bin/sh -c script` — test set-up only, never product code. */
std::string shellOk(const std::string &script, int timeoutSeconds = 60);

/* sha256 of a file or device, for "byte-for-byte intact" checks. */
std::string checksum(const std::string &path);

} /* namespace rbdvolume::testing */
