/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The real adapters on the real kernel: command runner, libmount, libblkid, loop devices. */
#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <fstream>
#include <poll.h>
#include <set>
#include <sstream>
#include <thread>
#include <unistd.h>

#include <sys/mount.h>
#include <sys/stat.h>

#include <gtest/gtest.h>

#include "common/errno_text.hpp"
#include "common/fs_util.hpp"
#include "common/unique_fd.hpp"
#include "engine/observer.hpp"
#include "host/blkid_block_probe.hpp"
#include "host/command_runner.hpp"
#include "host/drivers/fuse/fuse_mapper.hpp"
#include "host/drivers/fuse/loop_device.hpp"
#include "host/libmount_mounter.hpp"
#include "host/mount_monitor.hpp"
#include "host/proc_mount_table.hpp"
#include "integration_env.hpp"
#include "shell.hpp"

namespace rbdvolume::testing {
namespace {

bool processGone(pid_t pid)
{
	std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
	std::string line;
	if (!std::getline(stat, line))
		return true;
	/* A zombie is gone for our purpose: PID 1 here may reap it late. */
	const size_t close = line.rfind(')');
	return close != std::string::npos && line.size() > close + 2 && line[close + 2] == 'Z';
}

TEST(CommandRunner, CapturesOutputAndExitStatus)
{
	PosixCommandRunner runner;
	auto echo = runner.run(Command{ { "/bin/echo", "hello" }, std::chrono::seconds(5), {} });
	ASSERT_TRUE(echo) << echo.error().message;
	EXPECT_TRUE(echo->succeeded());
	EXPECT_EQ(echo->out, "hello\n");

	auto failing = runner.run(Command{
		{ "/bin/sh", "-c", "echo oops >&2; exit 3" }, std::chrono::seconds(5), {} });
	ASSERT_TRUE(failing);
	EXPECT_EQ(failing->exitStatus, 3);
	EXPECT_EQ(failing->describe(), "exit status 3: oops");
}

TEST(CommandRunner, RunsWithoutAShellAndWithACleanEnvironment)
{
	PosixCommandRunner runner;
	/* A shell would expand this; argv passes it through untouched. */
	auto literal =
		runner.run(Command{ { "/bin/echo", "$HOME;*" }, std::chrono::seconds(5), {} });
	ASSERT_TRUE(literal);
	EXPECT_EQ(literal->out, "$HOME;*\n");

	auto env = runner.run(Command{ { "/usr/bin/env" }, std::chrono::seconds(5), { "X=1" } });
	ASSERT_TRUE(env);
	EXPECT_EQ(env->out, "PATH=/usr/sbin:/usr/bin:/sbin:/bin\nLC_ALL=C\nX=1\n");
}

TEST(CommandRunner, KillsTheWholeProcessGroupAtItsTimeout)
{
	const std::string pidFile = freshDir("runner") + "/child.pid";
	PosixCommandRunner runner;
	const auto start = std::chrono::steady_clock::now();
	auto hung = runner.run(
		Command{ { "/bin/sh", "-c", "sleep 100 & echo $! > " + pidFile + "; wait" },
			 std::chrono::milliseconds(300),
			 {} });
	const auto took = std::chrono::steady_clock::now() - start;
	ASSERT_FALSE(hung);
	EXPECT_EQ(hung.error().code, Errc::Timeout);
	EXPECT_NE(hung.error().message.find("did not finish within 300 ms"), std::string::npos);
	EXPECT_LT(took, std::chrono::seconds(5));

	std::ifstream in(pidFile);
	pid_t child = 0;
	ASSERT_TRUE(in >> child);
	for (int i = 0; i < 50 && !processGone(child); i++)
		std::this_thread::sleep_for(std::chrono::milliseconds(20));
	EXPECT_TRUE(processGone(child)) << "the grandchild sleep survived the timeout";
}

TEST(CommandRunner, BoundsCapturedOutput)
{
	PosixCommandRunner runner;
	auto big = runner.run(Command{
		{ "/usr/bin/head", "-c", "1000000", "/dev/zero" }, std::chrono::seconds(10), {} });
	ASSERT_TRUE(big);
	EXPECT_TRUE(big->succeeded());
	EXPECT_EQ(big->out.size(), CommandOutput::OutputLimit);
}

TEST(CommandRunner, ReportsAMissingTool)
{
	PosixCommandRunner runner;
	auto missing = runner.run(Command{ { "/nonexistent/mkfs" }, std::chrono::seconds(5), {} });
	ASSERT_FALSE(missing);
	EXPECT_EQ(missing.error().code, Errc::NotFound);
}

/* A sparse file with a loop device over it, detached at the end of the test. */
class LoopFixture : public ::testing::Test
{
protected:
	void SetUp() override
	{
		dir_ = freshDir(::testing::UnitTest::GetInstance()->current_test_info()->name());
		image_ = dir_ + "/disk.img";
		shellOk("truncate -s 512M " + image_);
		auto device = attachLoop(image_, false);
		ASSERT_TRUE(device) << device.error().message;
		device_ = *device;
	}
	void TearDown() override
	{
		shellOk("umount -R " + dir_ + "/mnt 2>/dev/null; umount -R " + dir_ +
			"/bind 2>/dev/null; true");
		(void)detachLoop(device_);
	}

	MountRequest request(const std::string &target, bool readOnly = false) const
	{
		MountRequest r;
		r.source = device_;
		r.target = target;
		r.fsType = "ext4";
		r.readOnly = readOnly;
		r.owner = "vol1";
		return r;
	}

	std::string dir_;
	std::string image_;
	std::string device_;
};

TEST_F(LoopFixture, MountsWithOurMarkerAndIsIdempotent)
{
	runOk({ "/usr/sbin/mkfs.ext4", "-q", device_ });
	LibmountMounter mounter;
	const std::string target = dir_ + "/mnt";
	auto first = mounter.mount(request(target));
	ASSERT_TRUE(first) << first.error().message;
	EXPECT_EQ(*first, Change::Changed);
	auto again = mounter.mount(request(target));
	ASSERT_TRUE(again) << again.error().message;
	EXPECT_EQ(*again, Change::Unchanged);

	auto entry = visibleMount(target);
	ASSERT_TRUE(entry && *entry);
	EXPECT_EQ((*entry)->source, device_);
	EXPECT_EQ((*entry)->fsType, "ext4");
	EXPECT_EQ((*entry)->owner, "vol1") << "the marker must survive in utab";
	EXPECT_FALSE((*entry)->readOnly);

	auto gone = mounter.unmount(target);
	ASSERT_TRUE(gone) << gone.error().message;
	EXPECT_EQ(*gone, Change::Changed);
	auto noop = mounter.unmount(target);
	ASSERT_TRUE(noop);
	EXPECT_EQ(*noop, Change::Unchanged);
}

TEST_F(LoopFixture, ReadOnlyBindIsReallyReadOnly)
{
	runOk({ "/usr/sbin/mkfs.ext4", "-q", device_ });
	LibmountMounter mounter;
	const std::string staging = dir_ + "/mnt";
	const std::string target = dir_ + "/bind";
	ASSERT_TRUE(mounter.mount(request(staging)));
	MountRequest bind = request(target, true);
	bind.source = staging;
	bind.fsType.clear();
	auto bound = mounter.bind(bind);
	ASSERT_TRUE(bound) << bound.error().message;

	auto entry = visibleMount(target);
	ASSERT_TRUE(entry && *entry);
	EXPECT_TRUE((*entry)->readOnly);
	EXPECT_EQ(mountDevice(**entry), device_);
	EXPECT_EQ((*entry)->owner, "vol1");
	const int fd = open((target + "/probe").c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
	EXPECT_EQ(fd, -1);
	EXPECT_EQ(errno, EROFS);
	if (fd >= 0)
		close(fd);
}

TEST_F(LoopFixture, RefusesToMountOverSomethingElse)
{
	const std::string target = dir_ + "/mnt";
	ASSERT_TRUE(makeDirectories(target));
	ASSERT_EQ(::mount("other", target.c_str(), "tmpfs", 0, nullptr), 0);
	runOk({ "/usr/sbin/mkfs.ext4", "-q", device_ });
	LibmountMounter mounter;
	auto refused = mounter.mount(request(target));
	ASSERT_FALSE(refused);
	EXPECT_EQ(refused.error().code, Errc::Conflict);
	auto entry = visibleMount(target);
	ASSERT_TRUE(entry && *entry);
	EXPECT_EQ((*entry)->fsType, "tmpfs");
}

TEST_F(LoopFixture, RefusesToBindAnUnmountedSource)
{
	LibmountMounter mounter;
	MountRequest bind = request(dir_ + "/bind");
	bind.source = dir_ + "/empty";
	ASSERT_TRUE(makeDirectories(bind.source));
	bind.fsType.clear();
	auto refused = mounter.bind(bind);
	ASSERT_FALSE(refused);
	EXPECT_EQ(refused.error().code, Errc::NotFound);
}

TEST_F(LoopFixture, BusyUnmountNamesTheHolderAndLeavesTheMount)
{
	runOk({ "/usr/sbin/mkfs.ext4", "-q", device_ });
	LibmountMounter mounter;
	const std::string target = dir_ + "/mnt";
	ASSERT_TRUE(mounter.mount(request(target)));
	{
		const UniqueFd held(
			open((target + "/held").c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0600));
		ASSERT_TRUE(held.valid());
		auto busy = mounter.unmount(target);
		ASSERT_FALSE(busy);
		EXPECT_EQ(busy.error().code, Errc::Busy);
		EXPECT_NE(busy.error().message.find("pid " + std::to_string(getpid())),
			  std::string::npos)
			<< busy.error().message;
		auto still = visibleMount(target);
		ASSERT_TRUE(still && *still);
	}
	auto later = mounter.unmount(target);
	ASSERT_TRUE(later) << later.error().message;
	EXPECT_EQ(*later, Change::Changed);
}

/* A detach goes whatever holds the mount, but never takes a mount below it along. */
TEST_F(LoopFixture, DetachIgnoresHoldersButNotMountsBelow)
{
	runOk({ "/usr/sbin/mkfs.ext4", "-q", device_ });
	LibmountMounter mounter;
	const std::string target = dir_ + "/mnt";
	ASSERT_TRUE(mounter.mount(request(target)));
	const std::string below = target + "/below";
	ASSERT_TRUE(makeDirectories(below));
	runOk({ "/usr/bin/mount", "-t", "tmpfs", "tmpfs", below });
	auto refused = mounter.detach(target);
	ASSERT_FALSE(refused);
	EXPECT_EQ(refused.error().code, Errc::Busy);
	EXPECT_NE(refused.error().message.find(below), std::string::npos)
		<< refused.error().message;
	auto still = visibleMount(below);
	ASSERT_TRUE(still && *still);
	runOk({ "/usr/bin/umount", below });

	const UniqueFd held(open((target + "/held").c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0600));
	ASSERT_TRUE(held.valid());
	auto detached = mounter.detach(target);
	ASSERT_TRUE(detached) << detached.error().message;
	EXPECT_EQ(*detached, Change::Changed);
	EXPECT_FALSE(isMountPoint(target));
}

TEST_F(LoopFixture, ProbeSeesBlankThenFilesystem)
{
	BlkidBlockProbe probe;
	constexpr uint64_t Size = uint64_t{ 512 } << 20;
	EXPECT_EQ(probe.probe(device_), (ProbeResult{ ProbeKind::Blank, "", Size, 0 }));
	const std::string xfsUuid = "0f3c2a5e-8b1d-4c6f-9a7e-2d4b6c8e0a12";
	runOk({ "/usr/sbin/mkfs.xfs", "-q", "-m", "uuid=" + xfsUuid, device_ });
	EXPECT_EQ(probe.probe(device_),
		  (ProbeResult{ ProbeKind::Signature, "xfs", Size, Size, xfsUuid }));
	const std::string ext4Uuid = "9a1e7c3b-5d2f-4e8a-b6c4-1f3e5a7c9b20";
	runOk({ "/usr/sbin/mkfs.ext4", "-q", "-F", "-U", ext4Uuid, device_, "100M" });
	EXPECT_EQ(probe.probe(device_), (ProbeResult{ ProbeKind::Signature, "ext4", Size,
						      uint64_t{ 100 } << 20, ext4Uuid }));
	auto size = probe.deviceSize(device_);
	ASSERT_TRUE(size);
	EXPECT_EQ(*size, Size);
	/* From sysfs, by the node's device number: anything else is no block device. */
	auto notBlock = probe.deviceSize("/dev/null");
	ASSERT_FALSE(notBlock);
	EXPECT_EQ(notBlock.error().code, Errc::InvalidArgument);
}

/*
 * A mounted filesystem's own errors, from the kernel and never the device:
 * an xfs that shut itself down (xfs_io's shutdown, as after a failed log
 * write), an ext4's count of recorded errors (sysfs' trigger_fs_error).
 */
TEST_F(LoopFixture, AnXfsShutDownIsHeardAndUnmounted)
{
	BlkidBlockProbe probe;
	LibmountMounter mounter;
	const std::string target = dir_ + "/mnt";
	const std::string bound = dir_ + "/bind";
	runOk({ "/usr/sbin/mkfs.xfs", "-q", device_ });
	MountRequest xfs = request(target);
	xfs.fsType = "xfs";
	ASSERT_TRUE(mounter.mount(xfs));
	MountRequest bind = request(bound);
	bind.source = target;
	bind.fsType.clear();
	ASSERT_TRUE(mounter.bind(bind));
	EXPECT_EQ(probe.filesystemErrors(device_, "xfs", target), "");
	runOk({ "/usr/sbin/xfs_io", "-x", "-c", "shutdown", target });
	EXPECT_EQ(probe.filesystemErrors(device_, "xfs", target),
		  "xfs on " + device_ +
			  " is shut down: the kernel stopped it after an error, and it fails every "
			  "read and write until it is unmounted");
	EXPECT_EQ(probe.filesystemErrors(device_, "ext4", target), "") << "no ext4 there";
	/* It answers a stat of its root with EIO: unmounted all the same, bind and all. */
	for (const std::string &path : { bound, target }) {
		auto unmounted = mounter.unmount(path);
		ASSERT_TRUE(unmounted) << unmounted.error().message;
		EXPECT_EQ(*unmounted, Change::Changed) << path;
		auto entry = visibleMount(path);
		ASSERT_TRUE(entry);
		EXPECT_FALSE(*entry) << path << " is still mounted";
	}
}

TEST_F(LoopFixture, ProbeHearsAnExt4sErrors)
{
	BlkidBlockProbe probe;
	LibmountMounter mounter;
	const std::string target = dir_ + "/mnt";
	runOk({ "/usr/sbin/mkfs.ext4", "-q", device_ });
	ASSERT_TRUE(mounter.mount(request(target)));
	EXPECT_EQ(probe.filesystemErrors(device_, "ext4", target), "");
	const std::string name = device_.substr(device_.rfind('/') + 1);
	shellOk("echo rbdv-test >/sys/fs/ext4/" + name + "/trigger_fs_error");
	/* ext4 updates the count its sysfs shows from a work item */
	const std::string said = "ext4 on " + device_ + " recorded 1 error since its last check";
	std::string record;
	for (int i = 0; i < 50 && record.empty(); ++i) {
		record = probe.filesystemErrors(device_, "ext4", target);
		if (record.empty())
			std::this_thread::sleep_for(std::chrono::milliseconds(100));
	}
	EXPECT_EQ(record.substr(0, said.size()), said) << record;
	EXPECT_EQ(probe.filesystemErrors(device_, "xfs", target), "") << "no xfs there";
}

TEST_F(LoopFixture, ProbeCallsTwoSuperblocksAmbivalent)
{
	runOk({ "/usr/sbin/mkfs.ext4", "-q", device_ });
	/* An xfs superblock over sector 0 leaves ext4's at 1024: two answers. */
	const std::string other = dir_ + "/xfs.img";
	shellOk("truncate -s 512M " + other + " && mkfs.xfs -q " + other + " && dd if=" + other +
		" of=" + device_ + " bs=512 count=1 conv=notrunc status=none");
	BlkidBlockProbe probe;
	const ProbeResult result = probe.probe(device_);
	EXPECT_EQ(result.kind, ProbeKind::Ambivalent);
	EXPECT_NE(result.type.find("xfs"), std::string::npos) << result.type;
	EXPECT_NE(result.type.find("ext4"), std::string::npos) << result.type;
}

TEST_F(LoopFixture, LoopListingShowsOurBackingFile)
{
	auto loops = listLoops();
	ASSERT_TRUE(loops) << loops.error().message;
	const auto it = std::find_if(loops->begin(), loops->end(),
				     [&](const LoopInfo &l) { return l.device == device_; });
	ASSERT_NE(it, loops->end());
	EXPECT_EQ(it->backingFile, image_);
	EXPECT_FALSE(it->readOnly);
}

/* Every attached loop, as util-linux's losetup lists it: device, backing file, read-only. */
TEST_F(LoopFixture, LoopListingEqualsLosetups)
{
	const std::string other = dir_ + "/read-only.img";
	shellOk("truncate -s 64M " + other);
	auto readOnly = attachLoop(other, true);
	ASSERT_TRUE(readOnly) << readOnly.error().message;
	const auto listOurs = [] {
		std::set<std::string> lines;
		auto loops = listLoops();
		if (!loops) { /* shown by the comparison below */
			lines.insert("listLoops failed: " + loops.error().message);
			return lines;
		}
		for (const LoopInfo &l : *loops)
			lines.insert(l.device + " " + (l.readOnly ? "1" : "0") + " " +
				     l.backingFile);
		return lines;
	};
	/* Other suites attach loops meanwhile: compare a listing that held still around losetup's. */
	std::set<std::string> ours;
	std::set<std::string> theirs;
	for (int attempt = 0; attempt < 10; ++attempt) {
		ours = listOurs();
		const std::string listed = runOk({ "/usr/sbin/losetup", "--list", "--noheadings",
						   "--raw", "--output", "NAME,RO,BACK-FILE" });
		theirs.clear();
		std::istringstream lines(listed);
		for (std::string line; std::getline(lines, line);)
			theirs.insert(line);
		if (listOurs() == ours)
			break;
		std::this_thread::sleep_for(std::chrono::milliseconds(100));
	}
	(void)detachLoop(*readOnly);
	EXPECT_EQ(ours, theirs);
	EXPECT_TRUE(ours.contains(*readOnly + " 1 " + other));
	EXPECT_TRUE(ours.contains(device_ + " 0 " + image_));
}

/* Where sysfs has no devices/virtual/block, the loops are read through /sys/block. */
TEST(LoopListing, FallsBackToSysBlock)
{
	const std::string root = freshDir("LoopListingFallsBackToSysBlock");
	shellOk("mkdir -p " + root + "/block/loop7/loop " + root + "/block/loop8 " + root +
		"/block/sda && echo /images/a.img > " + root +
		"/block/loop7/loop/backing_file && echo 1 > " + root +
		"/block/loop7/ro && echo 42 > " + root + "/block/loop7/diskseq");
	auto loops = listLoops(root);
	ASSERT_TRUE(loops) << loops.error().message;
	ASSERT_EQ(loops->size(), 1U);
	EXPECT_EQ(loops->front().device, "/dev/loop7");
	EXPECT_EQ(loops->front().backingFile, "/images/a.img");
	EXPECT_TRUE(loops->front().readOnly);
	EXPECT_EQ(loops->front().diskseq, 42U);
	EXPECT_FALSE(listLoops(root + "/missing"));
}

/* The file a loop holds stays known even when another file takes its path. */
TEST_F(LoopFixture, BackingIsTheFileTheLoopHolds)
{
	struct stat image {
	};
	ASSERT_EQ(stat(image_.c_str(), &image), 0);
	auto held = loopBacking(device_);
	ASSERT_TRUE(held) << held.error().message;
	EXPECT_EQ(held->device, static_cast<uint64_t>(image.st_dev));
	EXPECT_EQ(held->inode, static_cast<uint64_t>(image.st_ino));

	shellOk("truncate -s 512M " + image_ + ".new && mv " + image_ + ".new " + image_);
	ASSERT_EQ(stat(image_.c_str(), &image), 0);
	auto still = loopBacking(device_);
	ASSERT_TRUE(still);
	EXPECT_EQ(*still, *held);
	EXPECT_NE(still->inode, static_cast<uint64_t>(image.st_ino));
}

/* A filesystem still on the loop (here: mounted) makes the detach refuse. */
TEST_F(LoopFixture, DetachRefusesADeviceAFilesystemHolds)
{
	shellOk("mkfs.ext4 -q " + device_ + " && mkdir -p " + dir_ + "/mnt");
	/* Its output is not ours to wait for: the holder outlives this shell. */
	shellOk("unshare -m sh -c 'mount " + device_ + " " + dir_ +
		"/mnt && sleep 3' >/dev/null 2>&1 & sleep 1");
	/* Mounted in another mount namespace: our table does not show it. */
	auto refused = detachUnmountedLoop(device_, std::chrono::seconds(30),
					   std::chrono::milliseconds(200));
	ASSERT_FALSE(refused);
	EXPECT_EQ(refused.error().code, Errc::Busy);
	EXPECT_NE(refused.error().message.find("another mount namespace"), std::string::npos)
		<< refused.error().message;
	shellOk("sleep 3");
	auto detached = detachUnmountedLoop(device_);
	ASSERT_TRUE(detached) << detached.error().message;
	EXPECT_EQ(*detached, Change::Changed);
}

/*
 * A holder no table shows lets go by itself: a filesystem an unmount
 * elsewhere is still writing back (systemd's, at shutdown). Played by an
 * exclusive open, the claim such a filesystem holds; the detach waits it out.
 */
TEST_F(LoopFixture, DetachWaitsForAHolderThatLetsGo)
{
	UniqueFd claim(open(device_.c_str(), O_RDONLY | O_EXCL | O_CLOEXEC));
	ASSERT_TRUE(claim.valid()) << errnoText(errno);
	std::thread release([&claim] {
		std::this_thread::sleep_for(std::chrono::milliseconds(300));
		claim.reset();
	});
	auto detached = detachUnmountedLoop(device_);
	release.join();
	ASSERT_TRUE(detached) << detached.error().message;
	EXPECT_EQ(*detached, Change::Changed);
	auto loops = listLoops();
	ASSERT_TRUE(loops);
	EXPECT_TRUE(std::none_of(loops->begin(), loops->end(), [&](const LoopInfo &l) {
		return l.device == device_ && l.backingFile == image_;
	}));
}

/* Units are not started here: the test plays rbd-fuse with a tmpfs. */
class NoUnits : public UnitControl
{
public:
	Result<void> start(const std::string & /*unused*/, const std::string & /*unused*/) override
	{
		return {};
	}
	Result<void> stop(const std::string & /*unused*/, const std::string & /*unused*/) override
	{
		return {};
	}
	Result<std::string> activeState(const std::string & /*unused*/,
					const std::string & /*unused*/) override
	{
		return std::string("inactive");
	}
	Result<std::string> result(const std::string & /*unused*/,
				   const std::string & /*unused*/) override
	{
		return std::string("success");
	}
	Result<void> reload(const std::string & /*unused*/, const std::string & /*unused*/) override
	{
		return {};
	}
};

/*
 * What a killed rbd-fuse leaves: its restarted helper lazily unmounts the
 * dead FUSE mount, so the loop's backing path no longer names the volume.
 * The fuse driver still lists the loop as the volume's, marked lost.
 */
TEST(FuseMapper, KnowsItsLoopAfterTheServingMountWentAway)
{
	const std::string runtime = freshDir("fuse-lost") + "/fuse";
	const std::string mount = runtime + "/vol";
	shellOk("mkdir -p " + mount + " && mount -t tmpfs served " + mount +
		" && truncate -s 64M " + mount + "/img");
	FuseVolume described;
	described.pool = "rbd";
	described.image = "img";
	ASSERT_TRUE(
		writeFileAtomic(runtime + "/vol.conf", formatFuseVolume(described).value(), 0600));
	auto device = attachLoop(mount + "/img", false);
	ASSERT_TRUE(device) << device.error().message;
	auto backing = loopBacking(*device);
	ASSERT_TRUE(backing);
	ASSERT_TRUE(writeFileAtomic(runtime + "/vol.loop",
				    *device + " " + std::to_string(backing->device) + " " +
					    std::to_string(backing->inode) + "\n",
				    0600));
	NoUnits units;
	FuseMapper fuse(units, FuseDriverConfig{ runtime, std::chrono::seconds(1) });

	auto healthy = fuse.list();
	ASSERT_TRUE(healthy) << healthy.error().message;
	ASSERT_EQ(healthy->size(), 1U);
	EXPECT_EQ(healthy->front().device, *device);
	EXPECT_EQ(healthy->front().image, "img");
	EXPECT_EQ(healthy->front().fault, "");

	shellOk("umount -l " + mount + " && mount -t tmpfs restarted " + mount);
	auto lost = fuse.list();
	ASSERT_TRUE(lost) << lost.error().message;
	ASSERT_EQ(lost->size(), 1U);
	EXPECT_EQ(lost->front().device, *device);
	EXPECT_NE(lost->front().fault.find("died"), std::string::npos) << lost->front().fault;

	shellOk("umount " + mount);
	auto gone = fuse.list();
	ASSERT_TRUE(gone);
	ASSERT_EQ(gone->size(), 1U);
	EXPECT_FALSE(gone->front().fault.empty());

	const VolumeSpec spec = [] {
		VolumeSpec s;
		s.name = "vol";
		return s;
	}();
	auto unmapped = fuse.unmap(mapRequestOf(spec), *device);
	ASSERT_TRUE(unmapped) << unmapped.error().message;
	auto none = fuse.list();
	ASSERT_TRUE(none);
	EXPECT_TRUE(none->empty());
}

/* Volume "vol" over the image rbd/img, which the tests show as the file img. */
MapRequest volOverImg()
{
	VolumeSpec spec;
	spec.name = "vol";
	spec.image.pool = "rbd";
	spec.image.name = "img";
	return mapRequestOf(spec);
}

/* The record map() writes knows the loop by its diskseq once the mount went away. */
TEST(FuseMapper, MapRecordsTheLoopAndKnowsItWithoutItsMount)
{
	const std::string runtime = freshDir("fuse-map") + "/fuse";
	const std::string mount = runtime + "/vol";
	shellOk("mkdir -p " + mount + " && mount -t tmpfs served " + mount +
		" && truncate -s 64M " + mount + "/img");
	NoUnits units;
	FuseMapper fuse(units, FuseDriverConfig{ runtime, std::chrono::seconds(1) });
	const MapRequest request = volOverImg();

	auto device = fuse.map(request);
	ASSERT_TRUE(device) << device.error().message;
	auto again = fuse.map(request);
	ASSERT_TRUE(again) << again.error().message;
	EXPECT_EQ(*again, *device) << "an image is never mapped twice";
	auto record = readFile(runtime + "/vol.loop");
	ASSERT_TRUE(record && *record);
	auto parsed = parseFuseLoopRecord(**record, "vol.loop");
	ASSERT_TRUE(parsed) << parsed.error().message;
	EXPECT_EQ(parsed->device, *device);
	EXPECT_NE(parsed->diskseq, 0U);
	EXPECT_NE(parsed->fuseDev, 0U);

	auto listed = fuse.list();
	ASSERT_TRUE(listed && listed->size() == 1U);
	EXPECT_EQ(listed->front().owner, "vol") << "the driver's marker names the volume";
	EXPECT_EQ(listed->front().fault, "");
	EXPECT_EQ(fuse.orphans().value_or(std::vector<std::string>{ "?" }),
		  std::vector<std::string>{});
	auto seen = fuse.view();
	ASSERT_TRUE(seen) << seen.error().message;
	EXPECT_EQ(seen->mappings, *listed) << "a pass's one look sees what list() sees";
	EXPECT_TRUE(seen->orphans.empty());

	/* Someone else's file of the same name on the restarted mount: not ours. */
	shellOk("umount -l " + mount + " && mount -t tmpfs restarted " + mount);
	auto lost = fuse.list();
	ASSERT_TRUE(lost && lost->size() == 1U);
	EXPECT_NE(lost->front().fault.find("died"), std::string::npos) << lost->front().fault;

	auto unmapped = fuse.unmap(request, *device);
	ASSERT_TRUE(unmapped) << unmapped.error().message;
	EXPECT_TRUE(fuse.list().value_or(std::vector<MappedImage>(1)).empty());
	/* The unit stopped: what is still mounted there is dead, detached with the rest. */
	EXPECT_FALSE(isMountPoint(mount));
	EXPECT_FALSE(readFile(runtime + "/vol.loop").value_or("x").has_value());
	EXPECT_FALSE(readFile(runtime + "/vol.conf").value_or("x").has_value());
}

/*
 * list() records a loop attached just before a crash. Beside a map and an
 * unmap of the same volume (the read lane runs beside the episode), it must
 * never record a loop the unmap detached: the record would outlive the
 * volume. Each round waits for a list() that began after the unmap ended.
 */
TEST(FuseMapper, AListBesideMapAndUnmapLeavesNoRecordOfADetachedLoop)
{
	const std::string runtime = freshDir("fuse-race") + "/fuse";
	const std::string mount = runtime + "/vol";
	NoUnits units;
	FuseMapper fuse(units, FuseDriverConfig{ runtime, std::chrono::seconds(1) });
	const MapRequest request = volOverImg();
	std::atomic<bool> done{ false };
	std::atomic<unsigned> lists{ 0 };
	std::thread lister([&] {
		while (!done) {
			(void)fuse.list();
			++lists;
		}
	});
	int stale = 0;
	for (int round = 0; round < 200 && stale == 0; ++round) {
		shellOk("mkdir -p " + mount);
		ASSERT_EQ(::mount("served", mount.c_str(), "tmpfs", 0, nullptr), 0);
		const UniqueFd img(
			::open((mount + "/img").c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0600));
		ASSERT_EQ(::ftruncate(img.get(), 64 << 20), 0);
		auto device = fuse.map(request);
		ASSERT_TRUE(device) << device.error().message;
		auto unmapped = fuse.unmap(request, *device);
		ASSERT_TRUE(unmapped) << unmapped.error().message;
		for (const unsigned seen = lists.load(); lists.load() < seen + 2;)
			std::this_thread::yield();
		if (readFile(runtime + "/vol.loop").value_or(std::nullopt))
			stale = round + 1;
	}
	done = true;
	lister.join();
	EXPECT_EQ(stale, 0) << "a record of a detached loop was left after round " << stale;
}

/* A map cut short between starting rbd-fuse and attaching the loop leaves an orphan. */
TEST(FuseMapper, AConfigWithoutALoopIsAnOrphanThatStopOrphanClears)
{
	const std::string runtime = freshDir("fuse-orphan") + "/fuse";
	shellOk("mkdir -p " + runtime + "/cut");
	FuseVolume described;
	described.pool = "rbd";
	described.image = "cut";
	ASSERT_TRUE(
		writeFileAtomic(runtime + "/cut.conf", formatFuseVolume(described).value(), 0600));
	NoUnits units;
	FuseMapper fuse(units, FuseDriverConfig{ runtime, std::chrono::seconds(1) });
	EXPECT_EQ(fuse.orphans().value_or(std::vector<std::string>{}),
		  std::vector<std::string>{ "cut" });
	auto seen = fuse.view();
	ASSERT_TRUE(seen) << seen.error().message;
	EXPECT_TRUE(seen->mappings.empty());
	EXPECT_EQ(seen->orphans, std::vector<std::string>{ "cut" });
	VolumeSpec spec;
	spec.name = "cut";
	auto stopped = fuse.stopOrphan(mapRequestOf(spec));
	ASSERT_TRUE(stopped) << stopped.error().message;
	EXPECT_EQ(*stopped, Change::Changed);
	EXPECT_TRUE(fuse.orphans().value_or(std::vector<std::string>{ "?" }).empty());
	EXPECT_EQ(fuse.stopOrphan(mapRequestOf(spec)).value_or(Change::Changed), Change::Unchanged);
	EXPECT_FALSE(isDirectory(runtime + "/cut"));
}

bool readable(int fd, int timeoutMs)
{
	pollfd pfd{ fd, POLLIN, 0 };
	return poll(&pfd, 1, timeoutMs) == 1 && (pfd.revents & POLLIN) != 0;
}

TEST(MountMonitor, WakesOnMountAndUnmountAndIsQuietOtherwise)
{
	auto monitor = MountMonitor::create();
	ASSERT_TRUE(monitor) << monitor.error().message;
	(void)(*monitor)->drain();
	EXPECT_FALSE(readable((*monitor)->fd(), 50)) << "woke with nothing changed";

	const std::string target = freshDir("monitor") + "/tmp";
	ASSERT_TRUE(makeDirectories(target));
	ASSERT_EQ(::mount("rbdv-monitor", target.c_str(), "tmpfs", 0, nullptr), 0);
	EXPECT_TRUE(readable((*monitor)->fd(), 2000)) << "no wake-up for a mount";
	EXPECT_TRUE((*monitor)->drain());
	EXPECT_FALSE(readable((*monitor)->fd(), 50)) << "drained, yet still readable";

	ASSERT_EQ(::umount(target.c_str()), 0);
	EXPECT_TRUE(readable((*monitor)->fd(), 2000)) << "no wake-up for an unmount";
	EXPECT_TRUE((*monitor)->drain());
}

TEST(MountTable, ReadsTheKernelTable)
{
	const std::string target = freshDir("table") + "/tmp";
	ASSERT_TRUE(makeDirectories(target));
	ASSERT_EQ(::mount("rbdv-table-test", target.c_str(), "tmpfs", MS_RDONLY, nullptr), 0);
	ProcMountTable table;
	auto entries = table.read();
	ASSERT_TRUE(entries) << entries.error().message;
	const auto it = std::find_if(entries->begin(), entries->end(),
				     [&](const MountEntry &e) { return e.target == target; });
	ASSERT_NE(it, entries->end());
	EXPECT_EQ(it->fsType, "tmpfs");
	EXPECT_EQ(it->source, "rbdv-table-test");
	EXPECT_TRUE(it->readOnly);
	EXPECT_EQ(it->owner, "");
	EXPECT_EQ(::umount(target.c_str()), 0);
}

} /* namespace */
} /* namespace rbdvolume::testing */
