/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Observing the mount table: one read through libmount (mountinfo + utab) and
 * the per-volume observation on top, with 1,000 and 5,000 mounts present.
 * Target: under 5 ms for 1,000 mounts, growing linearly.
 */
#include <array>
#include <cstdio>
#include <fcntl.h>
#include <filesystem>
#include <unistd.h>

#include <sys/mount.h>

#include "bench_main.hpp"
#include "engine/observer.hpp"
#include "host/proc_mount_table.hpp"

namespace rbdvolume::bench {

namespace {

size_t tableSize()
{
	auto entries = ProcMountTable().read();
	return entries ? entries->size() : 0;
}

/* Adds bind mounts of one directory until the table holds `wanted` entries. */
void growTable(const std::string &source, size_t wanted, size_t &made)
{
	while (tableSize() < wanted) {
		const std::string target = bench::scratch() + "/m/" + std::to_string(made++);
		std::filesystem::create_directories(target);
		if (mount(source.c_str(), target.c_str(), nullptr, MS_BIND, nullptr) != 0) {
			std::perror("bind");
			bench::abandon();
		}
	}
}

int run()
{
	if (const std::string error = bench::enterSandbox(); !error.empty()) {
		std::fprintf(stderr, "bench_mount_table: %s\n", error.c_str());
		return 77;
	}
	const std::string source = bench::scratch() + "/source";
	std::filesystem::create_directories(source);

	VolumeSpec spec;
	spec.name = "vol";
	spec.image = ImageSpec{ "rbd", "", "vol", "", std::nullopt };
	spec.staging.path = bench::scratch() + "/m/10";
	spec.publish = { PublishTarget{ bench::scratch() + "/m/20", false, {} } };

	std::printf("%-8s %16s %14s %22s\n", "mounts", "kernel read (ms)", "read (ms)",
		    "read+observe (ms)");
	size_t made = 0;
	for (const size_t size : { size_t{ 1000 }, size_t{ 2500 }, size_t{ 5000 } }) {
		growTable(source, size, made);
		ProcMountTable table;
		/* The kernel's share: mountinfo read whole, without parsing. */
		const double kernel = bench::medianMicros(50, [] {
			std::string text;
			std::array<char, 65536> buffer{};
			const int fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
			for (ssize_t n = 0; (n = read(fd, buffer.data(), buffer.size())) > 0;)
				text.append(buffer.data(), static_cast<size_t>(n));
			close(fd);
		});
		const double read = bench::medianMicros(50, [&] { (void)table.read(); });
		const double observe = bench::medianMicros(50, [&] {
			auto entries = table.read();
			HostSnapshot snapshot{ std::move(*entries), {} };
			(void)observeFrom(snapshot, spec, Ownership{});
		});
		std::printf("%-8zu %16.2f %14.2f %22.2f\n", tableSize(), kernel / 1000, read / 1000,
			    observe / 1000);
	}
	bench::leaveSandbox();
	return 0;
}

} /* namespace */

} /* namespace rbdvolume::bench */

int main()
{
	return rbdvolume::bench::run();
}
