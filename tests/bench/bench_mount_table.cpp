/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Reading the mount table at 1,000 to 10,000 mounts, a third of them ours
 * (marked in utab as the mounter leaves them) and a tenth as many utab
 * lines stale: the kernel's own read of mountinfo (unparsed), libmount's
 * read and join (mnt_table_parse_mtab), ours (ProcMountTable), and ours
 * with one volume's observation on top, taken in turn round by round.
 * Targets: our share (ours less the kernel's read) per mount at 10,000
 * within 1.5 times that at 1,000; the whole read at 5,000 within twice the
 * kernel's.
 */
#include <cstdio>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <map>
#include <unistd.h>

#include <sys/mount.h>

#include "bench_main.hpp"
#include "engine/observer.hpp"
#include "host/proc_mount_table.hpp"
#include "libmount_table.hpp"

namespace rbdvolume::bench {

namespace {

/* The kernel's share: mountinfo read whole, as ProcMountTable reads it, without parsing. */
void kernelRead()
{
	std::string text;
	size_t chunk = 4096;
	const int fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
	for (;;) {
		const size_t had = text.size();
		text.resize(had + chunk);
		const ssize_t got = read(fd, text.data() + had, chunk);
		text.resize(had + static_cast<size_t>(std::max<ssize_t>(got, 0)));
		if (got <= 0)
			break;
		chunk = std::min(chunk * 2, size_t{ 1 } << 20);
	}
	close(fd);
}

/* Binds of `source` until the table holds `wanted` mounts; `made` counts ours. */
void growTable(const std::string &source, size_t wanted, size_t base, size_t &made)
{
	while (base + made < wanted) {
		const std::string target = scratch() + "/m/" + std::to_string(made);
		std::filesystem::create_directories(target);
		if (mount(source.c_str(), target.c_str(), nullptr, MS_BIND, nullptr) != 0) {
			std::perror("bind");
			abandon();
		}
		made++;
	}
}

/*
 * utab as the mounter leaves it: a line for every third bind, and a tenth
 * as many for mounts long gone. Written whole: libmount's update would
 * rewrite the file for each line.
 */
void writeUtab(const std::string &source, size_t made)
{
	std::ofstream utab(scratch() + "/utab", std::ios::trunc);
	for (size_t i = 0; i < made; i += 3)
		utab << "SRC=" << source << " TARGET=" << scratch() << "/m/" << i
		     << " ROOT=/ OPTS=_netdev,x-rbd-volume=v" << i << "\n";
	for (size_t i = 0; i < made; i += 30)
		utab << "SRC=/dev/loop9 TARGET=" << scratch() << "/gone/" << i
		     << " ROOT=/ OPTS=_netdev,x-rbd-volume=gone" << i << "\n";
}

std::vector<double> perMountShare(const std::vector<double> &ours,
				  const std::vector<double> &kernel, size_t mounts)
{
	std::vector<double> share;
	share.reserve(ours.size());
	for (size_t i = 0; i < ours.size(); i++)
		share.push_back((ours[i] - kernel[i]) / static_cast<double>(mounts));
	return share;
}

int run()
{
	if (const std::string error = enterSandbox(); !error.empty()) {
		std::fprintf(stderr, "bench_mount_table: %s\n", error.c_str());
		return 77;
	}
	const std::string source = scratch() + "/source";
	std::filesystem::create_directories(source);
	VolumeSpec spec;
	spec.name = "v30";
	spec.image = ImageSpec{ "rbd", "", "v30", "", std::nullopt };
	spec.staging.path = scratch() + "/m/30";
	spec.publish = { PublishTarget{ scratch() + "/m/60", false, {} } };

	auto start = ProcMountTable().read();
	if (!start) {
		std::fprintf(stderr, "bench_mount_table: %s\n", start.error().message.c_str());
		abandon();
	}
	const size_t base = start->size();
	std::printf("medians of %d rounds, the four ways in turn; (quartiles)\n", runs());
	std::printf("%-7s %18s %18s %18s %18s %20s\n", "mounts", "kernel read (ms)",
		    "libmount (ms)", "ours (ms)", "ours+observe (ms)", "our share (us/mount)");
	size_t made = 0;
	std::map<size_t, std::vector<double>> shares;
	std::map<size_t, std::string> overKernel;
	for (const size_t size :
	     { size_t{ 1000 }, size_t{ 2500 }, size_t{ 5000 }, size_t{ 10000 } }) {
		growTable(source, size, base, made);
		writeUtab(source, made);
		ProcMountTable table;
		const auto samples = interleavedMicros(
			runs(), { kernelRead, [] { (void)testing::libmountTable(); },
				  [&table] { (void)table.read(); },
				  [&] {
					  auto entries = table.read();
					  HostSnapshot snapshot{ std::move(*entries), {} };
					  (void)observeFrom(snapshot, spec, Ownership{});
				  } });
		shares[size] = perMountShare(samples[2], samples[0], base + made);
		overKernel[size] = ratioText(samples[2], samples[0]);
		std::printf("%-7zu %18s %18s %18s %18s %20s\n", base + made,
			    figureText(figureOf(samples[0]), 1000).c_str(),
			    figureText(figureOf(samples[1]), 1000).c_str(),
			    figureText(figureOf(samples[2]), 1000).c_str(),
			    figureText(figureOf(samples[3]), 1000).c_str(),
			    figureText(figureOf(shares[size])).c_str());
	}
	std::printf("our share per mount, 10,000 over 1,000: %s (target at most 1.5)\n",
		    ratioText(shares[10000], shares[1000]).c_str());
	std::printf("ours over the kernel's read at 5,000: %s (target at most 2)\n",
		    overKernel[5000].c_str());
	leaveSandbox();
	return 0;
}

} /* namespace */

} /* namespace rbdvolume::bench */

int main()
{
	return rbdvolume::bench::run();
}
