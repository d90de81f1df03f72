/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Shared by the benchmarks: a private mount namespace with a tmpfs scratch, and timing. */
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace rbdvolume::bench {

/* Enters a private mount namespace and mounts a scratch tmpfs; "" on success. */
std::string enterSandbox();
const std::string &scratch();
void leaveSandbox();

/* Median wall time of `runs` calls of `body`, in microseconds; `setup` runs untimed first. */
double medianMicros(int runs, const std::function<void()> &body,
		    const std::function<void()> &setup = {});

/* Runs argv (no shell), aborting the benchmark when it fails. */
void mustRun(const std::vector<std::string> &argv);

} /* namespace rbdvolume::bench */
