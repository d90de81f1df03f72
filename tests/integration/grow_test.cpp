/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Growth after the image grows: xfs online; ext4 online where the kernel lets root, else offline. */
#include <algorithm>
#include <fstream>
#include <sstream>

#include <sys/statvfs.h>

#include "engine_fixture.hpp"
#include "shell.hpp"

namespace rbdvolume::testing {
namespace {

constexpr uint64_t MiB = uint64_t{ 1 } << 20;

uint64_t filesystemBytes(const std::string &path)
{
	struct statvfs st {
	};
	EXPECT_EQ(statvfs(path.c_str(), &st), 0) << path;
	return uint64_t{ st.f_blocks } * st.f_frsize;
}

/* Online ext4 resize needs CAP_SYS_RESOURCE (EXT4_IOC_RESIZE_FS); this machine's root may lack it. */
bool haveSysResource()
{
	std::ifstream status("/proc/self/status");
	std::string line;
	while (std::getline(status, line)) {
		if (line.rfind("CapEff:", 0) != 0)
			continue;
		const uint64_t caps = std::stoull(line.substr(7), nullptr, 16);
		return (caps >> 24) & 1; /* CAP_SYS_RESOURCE */
	}
	return false;
}

bool grewIn(const PassOutcome &outcome)
{
	return std::ranges::any_of(outcome.report.outcomes, [](const StepOutcome &o) {
		return std::holds_alternative<GrowStep>(o.step) && o.change == Change::Changed;
	});
}

TEST_F(EngineOnLoop, XfsGrowsOnlineAfterTheImageGrows)
{
	const VolumeSpec volume = simpleSpec("xfsgrow", "[filesystem]\ntype = \"xfs\"\n");
	ASSERT_GE(converge(volume, Intent::Up), 1);
	shellOk("echo before > " + dir_ + "/a/file && sync");
	const uint64_t before = filesystemBytes(dir_ + "/a");

	ASSERT_TRUE(real_->images.resizeImage(volume.image, 1024 * MiB));
	const PassOutcome grown = pass(volume, Intent::Up);
	EXPECT_TRUE(grewIn(grown)) << formatPlan(grown.plan, volume);
	ASSERT_TRUE(grown.report.ok()) << grown.report.firstError()->message;
	const uint64_t after = filesystemBytes(dir_ + "/a");
	EXPECT_GT(after, before + 400 * MiB) << "df does not show the growth";
	EXPECT_EQ(shellOk("cat " + dir_ + "/b/file"), "before\n");
	EXPECT_TRUE(plan(volume, Intent::Up).plan.empty()) << "grown once, then converged";
	ASSERT_GE(converge(volume, Intent::Down), 1);
}

TEST_F(EngineOnLoop, Ext4GrowsOnlineOrSaysWhyAndGrowsOfflineAtTheNextStage)
{
	const VolumeSpec volume = simpleSpec("ext4grow");
	ASSERT_GE(converge(volume, Intent::Up), 1);
	shellOk("echo before > " + dir_ + "/a/file && sync");
	const uint64_t before = filesystemBytes(dir_ + "/a");
	ASSERT_TRUE(real_->images.resizeImage(volume.image, 1024 * MiB));

	const PassOutcome online = pass(volume, Intent::Up);
	if (haveSysResource()) {
		ASSERT_TRUE(online.report.ok()) << online.report.firstError()->message;
		EXPECT_TRUE(grewIn(online));
		EXPECT_GT(filesystemBytes(dir_ + "/a"), before + 400 * MiB);
		ASSERT_GE(converge(volume, Intent::Down), 1);
		return;
	}
	/* This machine: the kernel refuses; the error says why and what to do. */
	const Error *refused = online.report.firstError();
	ASSERT_NE(refused, nullptr) << formatPlan(online.plan, volume);
	EXPECT_EQ(refused->code, Errc::PermissionDenied);
	EXPECT_NE(refused->message.find("CAP_SYS_RESOURCE"), std::string::npos) << refused->message;
	EXPECT_NE(refused->message.find("grows offline when the volume is next staged"),
		  std::string::npos)
		<< refused->message;
	EXPECT_TRUE(mountAt(dir_ + "/a")) << "a refused grow must leave the volume published";
	EXPECT_EQ(filesystemBytes(dir_ + "/a"), before);

	/* The path that works here: down, up, and the stage grows it offline before mounting. */
	ASSERT_GE(converge(volume, Intent::Down), 1);
	const PassOutcome restaged = pass(volume, Intent::Up);
	ASSERT_TRUE(restaged.report.ok()) << restaged.report.firstError()->message;
	EXPECT_TRUE(grewIn(restaged)) << formatPlan(restaged.plan, volume);
	EXPECT_GT(filesystemBytes(dir_ + "/a"), before + 400 * MiB);
	EXPECT_EQ(shellOk("cat " + dir_ + "/a/file"), "before\n");
	EXPECT_TRUE(plan(volume, Intent::Up).plan.empty());
	ASSERT_GE(converge(volume, Intent::Down), 1);
}

TEST_F(EngineOnLoop, ALargerSpecGrowsTheImageThenTheFilesystem)
{
	VolumeSpec volume = simpleSpec("specgrow", "[filesystem]\ntype = \"xfs\"\n");
	ASSERT_GE(converge(volume, Intent::Up), 1);
	const uint64_t before = filesystemBytes(dir_ + "/a");
	volume.image.create->sizeBytes = 1024 * MiB;
	/* One pass grows the image, the next the filesystem. */
	EXPECT_EQ(converge(volume, Intent::Up), 2);
	EXPECT_GT(filesystemBytes(dir_ + "/a"), before + 400 * MiB);
	ASSERT_GE(converge(volume, Intent::Down), 1);
}

TEST_F(EngineOnLoop, GrowNeverLeavesTheFilesystemAlone)
{
	const VolumeSpec volume =
		simpleSpec("nogrow", "[filesystem]\ntype = \"xfs\"\ngrow = \"never\"\n");
	ASSERT_GE(converge(volume, Intent::Up), 1);
	const uint64_t before = filesystemBytes(dir_ + "/a");
	ASSERT_TRUE(real_->images.resizeImage(volume.image, 1024 * MiB));
	EXPECT_TRUE(plan(volume, Intent::Up).plan.empty());
	EXPECT_EQ(filesystemBytes(dir_ + "/a"), before);
	ASSERT_GE(converge(volume, Intent::Down), 1);
}

} /* namespace */
} /* namespace rbdvolume::testing */
