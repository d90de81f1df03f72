/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * One stage -> publish -> unpublish -> unstage cycle on a loop device, by the
 * engine (observe, plan, execute until converged, both ways) and by shelling
 * out the way kubelet's mount-utils does (losetup, blkid, mount, mount --bind
 * plus a bind remount, umount, losetup -d), side by side, without and with
 * mkfs. The three ways are timed in turn, round by round, each on a fresh
 * image; with mkfs the engine creates its image in the timed run (a fresh
 * volume's ensure-image step) and all three run its mkfs. Target: what the engine adds to the bare system calls is at most a
 * fifth of what the shell adds, at the upper quartile of the per-round ratio.
 */
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include <sys/mount.h>

#include "bench_main.hpp"
#include "engine/reconcile.hpp"
#include "host/blkid_block_probe.hpp"
#include "host/crypt_devices.hpp"
#include "host/drivers/fuse/loop_device.hpp"
#include "host/fs_tools.hpp"
#include "host/libmount_mounter.hpp"
#include "host/ownership_files.hpp"
#include "host/proc_mount_table.hpp"
#include "loop_images.hpp"

namespace rbdvolume::bench {

namespace {

constexpr uint64_t ImageBytes = uint64_t{ 256 } << 20;

struct Rig {
	explicit Rig(const std::string &dir)
		: images(dir + "/images"), formatter(runner, ToolConfig{}),
		  records(dir + "/owned"), host{ table,	 mounter,   probe,   images,
						 images, formatter, records, crypt }
	{
	}
	ProcMountTable table;
	LibmountMounter mounter;
	BlkidBlockProbe probe;
	testing::LoopImages images;
	PosixCommandRunner runner;
	ToolFilesystems formatter;
	OwnershipFiles records;
	GivenPassphrases given;
	HostCryptDevices crypt{ images, given };
	Host host;
};

void converge(Host &host, const VolumeSpec &spec, Intent intent)
{
	for (int pass = 0; pass < 4; pass++) {
		auto snapshot = takeSnapshot(host);
		auto outcome = reconcilePass(host, *snapshot, DesiredVolume{ spec, intent });
		if (!outcome || !outcome->report.ok()) {
			std::fprintf(stderr, "bench: engine pass failed: %s\n",
				     outcome ? outcome->report.firstError()->message.c_str()
					     : outcome.error().message.c_str());
			bench::abandon();
		}
		if (outcome->plan.empty())
			return;
	}
}

VolumeSpec makeSpec(const std::string &dir, const std::string &name)
{
	VolumeSpec spec;
	spec.name = name;
	spec.image = ImageSpec{ "rbd", "", name, "", CreateSpec{ ImageBytes, {} } };
	spec.filesystem = FilesystemSpec{};
	spec.filesystem->check = CheckPolicy::Never;
	spec.staging.path = dir + "/staging/" + name;
	spec.publish = { PublishTarget{ dir + "/target/" + name, false, {} } };
	return spec;
}

/*
 * The engine's mkfs of the image it created in the same run, so that every
 * way does the same work: each formats a fresh image, which reads as zeroes.
 */
std::vector<std::string> engineMkfs(const std::string &device)
{
	return mkfsCommand(ToolConfig{}, device, FilesystemSpec{}, DeviceContents::Zeroes).argv;
}

void shellCycle(const std::string &image, const std::string &staging, const std::string &target,
		bool mkfs)
{
	PosixCommandRunner runner;
	auto attached = runner.run(Command{
		{ "/usr/sbin/losetup", "-f", "--show", image }, std::chrono::seconds(30), {} });
	std::string device = attached->out;
	device.pop_back();
	/*
	 * Probe, then format only a blank device: mount-utils' formatAndMount
	 * order. blkid exits 2 on a blank device, so it is run without mustRun.
	 */
	(void)runner.run(Command{
		{ "/usr/sbin/blkid", "-p", "-s", "TYPE", "-s", "PTTYPE", "-o", "export", device },
		std::chrono::seconds(30),
		{} });
	if (mkfs)
		bench::mustRun(engineMkfs(device));
	bench::mustRun({ "/usr/bin/mount", "-t", "ext4", "-o", "defaults", device, staging });
	bench::mustRun({ "/usr/bin/mount", "--bind", staging, target });
	bench::mustRun({ "/usr/bin/mount", "-o", "bind,remount,rw", staging, target });
	bench::mustRun({ "/usr/bin/umount", target });
	bench::mustRun({ "/usr/bin/umount", staging });
	bench::mustRun({ "/usr/sbin/losetup", "-d", device });
}

/* The floor: the same kernel work as bare system calls, no tool, no engine. */
void syscallCycle(const std::string &image, const std::string &staging, const std::string &target,
		  bool mkfs)
{
	auto device = attachLoop(image, false);
	/* The probe comes first: only a blank device may be formatted. */
	BlkidBlockProbe probe;
	(void)probe.probe(*device);
	if (mkfs)
		bench::mustRun(engineMkfs(*device));
	if (mount(device->c_str(), staging.c_str(), "ext4", 0, nullptr) != 0 ||
	    mount(staging.c_str(), target.c_str(), nullptr, MS_BIND, nullptr) != 0 ||
	    umount2(target.c_str(), 0) != 0 || umount2(staging.c_str(), 0) != 0) {
		std::perror("bench: syscall cycle");
		bench::abandon();
	}
	(void)detachLoop(*device);
}

int run()
{
	if (const std::string error = bench::enterSandbox(); !error.empty()) {
		std::fprintf(stderr, "bench_cycle: %s\n", error.c_str());
		return 77;
	}
	const std::string &dir = bench::scratch();
	std::filesystem::create_directories(dir + "/images");
	std::filesystem::create_directories(dir + "/staging/shell");
	std::filesystem::create_directories(dir + "/target/shell");
	Rig rig(dir);

	std::printf("medians in ms (interquartile range); %d rounds of syscalls, engine, shell\n",
		    runs());
	std::printf("%-13s %20s %20s %20s %20s\n", "cycle", "syscalls", "engine", "shell",
		    "engine/shell overhead");
	int n = 0; /* numbers every image and volume of the run: none is reused */
	for (const bool mkfs : { false, true }) {
		/* Each run gets a fresh image, formatted beforehand unless mkfs is timed. */
		std::string image;
		VolumeSpec spec;
		const auto freshImage = [&] {
			image = dir + "/images/plain-" + std::to_string(n++) + ".img";
			bench::mustRun({ "/usr/bin/truncate", "-s", "256M", image });
			if (!mkfs)
				bench::mustRun({ "/usr/sbin/mkfs.ext4", "-q", image });
		};
		/* With mkfs, the engine creates its image itself, as for a fresh volume. */
		const auto freshVolume = [&] {
			spec = makeSpec(dir, "v" + std::to_string(n++));
			if (mkfs)
				return;
			if (!rig.images.createImage(spec.image, ImageBytes))
				bench::abandon();
			bench::mustRun(
				{ "/usr/sbin/mkfs.ext4", "-q", rig.images.imagePath(spec.image) });
		};
		const std::string staging = dir + "/staging/shell";
		const std::string target = dir + "/target/shell";

		const auto samples = bench::interleavedMicros(
			runs(),
			{ [&] { syscallCycle(image, staging, target, mkfs); },
			  [&] {
				  converge(rig.host, spec, Intent::Up);
				  converge(rig.host, spec, Intent::Down);
			  },
			  [&] { shellCycle(image, staging, target, mkfs); } },
			{ freshImage, freshVolume, freshImage });
		/* Overhead: what each way adds to the bare kernel work of the same round. */
		std::vector<double> engineOver;
		std::vector<double> shellOver;
		for (size_t round = 0; round < samples[0].size(); round++) {
			engineOver.push_back(samples[1][round] - samples[0][round]);
			shellOver.push_back(samples[2][round] - samples[0][round]);
		}
		std::printf("%-13s %20s %20s %20s %20s\n", mkfs ? "with mkfs" : "without mkfs",
			    figureText(figureOf(samples[0]), 1000).c_str(),
			    figureText(figureOf(samples[1]), 1000).c_str(),
			    figureText(figureOf(samples[2]), 1000).c_str(),
			    ratioText(engineOver, shellOver).c_str());
	}
	std::printf("target: the overhead ratio at most 0.2 at its upper quartile\n");
	bench::leaveSandbox();
	return 0;
}

} /* namespace */

} /* namespace rbdvolume::bench */

int main()
{
	return rbdvolume::bench::run();
}
