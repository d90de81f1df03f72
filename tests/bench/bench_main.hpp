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

/* Runs argv (no shell), abandoning the benchmark when it fails. */
void mustRun(const std::vector<std::string> &argv);

/* Leaves the sandbox, if entered, and exits 1. */
[[noreturn]] void abandon();

/* How many runs each figure is the median of: $BENCH_RUNS, else 30. */
int runs();

} /* namespace rbdvolume::bench */
