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

/* A figure over its samples: the median and the spread around it. */
struct Figure {
	double median = 0;
	double q1 = 0; /* the quartiles: half the samples lie between them */
	double q3 = 0;
	double min = 0;
	double max = 0;
};
Figure figureOf(std::vector<double> samples);

/* "1.23 (1.10-1.40)": the median and the interquartile range, divided by `scale`. */
std::string figureText(const Figure &figure, double scale = 1);

/*
 * Times each way in turn, round by round, each round starting one way
 * later (A B C, B C A, C A B, ...), so that a change in the machine's load
 * falls on every way alike and no way always follows the same one. Each way's
 * samples in microseconds, `rounds` of them, in the order taken. When
 * `setups` is given, setups[i] runs untimed before each run of ways[i].
 */
std::vector<std::vector<double>>
interleavedMicros(int rounds, const std::vector<std::function<void()>> &ways,
		  const std::vector<std::function<void()>> &setups = {});

/*
 * The ratio of `a` over `b`, taken round by round from samples taken in
 * turn: "0.41 (0.38-0.45)", or why no ratio is printed when its spread
 * is wider than its distance from 1 (the machine's noise, not an effect).
 */
std::string ratioText(const std::vector<double> &a, const std::vector<double> &b);

/* Runs argv (no shell), abandoning the benchmark when it fails. */
void mustRun(const std::vector<std::string> &argv);

/* Leaves the sandbox, if entered, and exits 1. */
[[noreturn]] void abandon();

/* How many runs each figure is the median of: $BENCH_RUNS, else 30. */
int runs();

} /* namespace rbdvolume::bench */
