/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "bench_main.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sched.h>
#include <string_view>
#include <unistd.h>
#include <vector>

#include <sys/mount.h>

#include "common/errno_text.hpp"
#include "host/command_runner.hpp"
#include "host/drivers/fuse/loop_device.hpp"

namespace rbdvolume::bench {

namespace {

std::string &scratchDir()
{
	static std::string dir;
	return dir;
}

} /* namespace */

std::string enterSandbox()
{
	if (geteuid() != 0)
		return "needs root";
	if (unshare(CLONE_NEWNS) != 0 ||
	    mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0)
		return std::string("private mount namespace: ") + errnoText(errno);
	std::string dir = std::filesystem::temp_directory_path().string() + "/rbdv-bench-XXXXXX";
	if (!mkdtemp(dir.data()))
		return std::string("mkdtemp: ") + errnoText(errno);
	if (mount("rbdv-bench", dir.c_str(), "tmpfs", 0, "mode=0755,size=4g") != 0)
		return std::string("scratch tmpfs: ") + errnoText(errno);
	scratchDir() = dir;
	/* NOLINTNEXTLINE(concurrency-mt-unsafe): the benchmarks run on one thread */
	setenv("LIBMOUNT_UTAB", (dir + "/utab").c_str(), 1);
	return {};
}

const std::string &scratch()
{
	return scratchDir();
}

void leaveSandbox()
{
	/* Never entered: "" + "/" would match every loop device of the host. */
	if (scratch().empty())
		return;
	if (auto loops = listLoops()) {
		for (const LoopInfo &loop : *loops) {
			if (loop.backingFile.rfind(scratch() + "/", 0) == 0)
				(void)detachLoop(loop.device);
		}
	}
	(void)umount2(scratch().c_str(), MNT_DETACH);
	(void)rmdir(scratch().c_str());
}

double medianMicros(int runs, const std::function<void()> &body, const std::function<void()> &setup)
{
	std::vector<double> times;
	times.reserve(static_cast<size_t>(runs));
	for (int i = 0; i < runs; i++) {
		if (setup)
			setup();
		const auto start = std::chrono::steady_clock::now();
		body();
		times.push_back(std::chrono::duration<double, std::micro>(
					std::chrono::steady_clock::now() - start)
					.count());
	}
	std::sort(times.begin(), times.end());
	return times.at(times.size() / 2);
}

Figure figureOf(std::vector<double> samples)
{
	if (samples.empty())
		return {};
	std::sort(samples.begin(), samples.end());
	const auto at = [&samples](double q) {
		return samples.at(static_cast<size_t>(
			std::lround(q * static_cast<double>(samples.size() - 1))));
	};
	return { at(0.5), at(0.25), at(0.75), samples.front(), samples.back() };
}

std::string figureText(const Figure &figure, double scale)
{
	std::array<char, 96> text{};
	std::snprintf(text.data(), text.size(), "%.2f (%.2f-%.2f)", figure.median / scale,
		      figure.q1 / scale, figure.q3 / scale);
	return text.data();
}

std::vector<std::vector<double>> interleavedMicros(int rounds,
						   const std::vector<std::function<void()>> &ways,
						   const std::vector<std::function<void()>> &setups)
{
	std::vector<std::vector<double>> samples(ways.size());
	for (int round = 0; round < rounds; round++) {
		for (size_t turn = 0; turn < ways.size(); turn++) {
			/* Each round starts one way later: no way always follows the same one. */
			const size_t way = (turn + static_cast<size_t>(round)) % ways.size();
			if (way < setups.size() && setups[way])
				setups[way]();
			const auto start = std::chrono::steady_clock::now();
			ways[way]();
			samples[way].push_back(std::chrono::duration<double, std::micro>(
						       std::chrono::steady_clock::now() - start)
						       .count());
		}
	}
	return samples;
}

std::string ratioText(const std::vector<double> &a, const std::vector<double> &b)
{
	std::vector<double> ratios;
	for (size_t i = 0; i < std::min(a.size(), b.size()); i++) {
		if (b[i] > 0)
			ratios.push_back(a[i] / b[i]);
	}
	const Figure ratio = figureOf(ratios);
	std::string text = figureText(ratio);
	if (ratio.q3 - ratio.q1 > std::abs(ratio.median - 1))
		return "no ratio: its spread " + text +
		       " is wider than its distance from 1 (no difference to tell)";
	return text;
}

void mustRun(const std::vector<std::string> &argv)
{
	PosixCommandRunner runner;
	auto output = runner.run(Command{ argv, std::chrono::seconds(120), {} });
	if (!output || !output->succeeded()) {
		std::fprintf(stderr, "bench: %s failed: %s\n", quoteArgv(argv).c_str(),
			     output ? output->describe().c_str() : output.error().message.c_str());
		abandon();
	}
}

void abandon()
{
	leaveSandbox();
	/* NOLINTNEXTLINE(concurrency-mt-unsafe): the benchmarks run on one thread */
	std::exit(1);
}

int runs()
{
	const char *value = std::getenv("BENCH_RUNS");
	const std::string_view text = value ? value : "";
	int parsed = 0;
	const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), parsed);
	return error == std::errc{} && end == text.data() + text.size() && parsed > 0 ? parsed : 30;
}

} /* namespace rbdvolume::bench */
