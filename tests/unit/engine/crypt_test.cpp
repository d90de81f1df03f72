/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* LUKS as a layer: header only on a blank device, open before the filesystem, close before unmap. */
#include <algorithm>

#include <gtest/gtest.h>

#include "engine/executor.hpp"
#include "engine_rig.hpp"
#include "spec_builder.hpp"

namespace rbdvolume::testing {

namespace {

const std::string Mapper = "/dev/mapper/rbdv-vol";

VolumeSpec encryptedSpec(FsType type = FsType::Ext4)
{
	return SpecBuilder("vol").create(GiB).fsType(type).encrypted().target("/srv/vol").build();
}

/* The log's lines that start with one of `prefixes`, in order. */
std::vector<std::string> logOf(const FakeWorld &world, const std::vector<std::string> &prefixes)
{
	std::vector<std::string> lines;
	for (const std::string &line : world.log()) {
		for (const std::string &prefix : prefixes) {
			if (line.rfind(prefix, 0) == 0)
				lines.push_back(line);
		}
	}
	return lines;
}

bool hasConflict(const Plan &plan, ConflictKind kind)
{
	return std::any_of(plan.conflicts.begin(), plan.conflicts.end(),
			   [&](const Conflict &c) { return c.kind == kind; });
}

const FakeMount *mountOn(const FakeWorld &world, const std::string &target)
{
	const auto &mounts = world.mounts();
	const auto it = std::find_if(mounts.rbegin(), mounts.rend(),
				     [&](const FakeMount &m) { return m.entry.target == target; });
	return it == mounts.rend() ? nullptr : &*it;
}

} /* namespace */

TEST(Crypt, AFreshImageGetsAHeaderThenTheFilesystemOnTheMappingAndGoesDownInReverse)
{
	Rig rig(encryptedSpec());
	ASSERT_EQ(rig.converge(), 2U) << rig.world.describe();
	EXPECT_EQ(logOf(rig.world, { "map", "luks", "mkfs", "mount" }),
		  (std::vector<std::string>{
			  "map rbd/vol /dev/rbd0", "luks-format /dev/rbd0",
			  "luks-open /dev/rbd0 rbdv-vol", "mkfs " + Mapper + " ext4",
			  "mount " + Mapper + " " + rig.spec.staging.path + " ext4 rw" }));
	EXPECT_EQ(rig.world.signature(rig.spec.image), LuksSignature);
	/* A fresh image's zeroes read as noise through the mapping. */
	EXPECT_EQ(rig.world.lastFormatContents(), DeviceContents::Unknown);
	ASSERT_NE(mountOn(rig.world, "/srv/vol"), nullptr);
	EXPECT_EQ(mountOn(rig.world, "/srv/vol")->entry.source, Mapper);
	const Ownership record = rig.world.record("vol");
	EXPECT_TRUE(record.luksFormatted);
	EXPECT_TRUE(record.formatted);
	EXPECT_EQ(record.cryptSpanBytes, GiB);

	rig.world.clearLog();
	rig.intent = Intent::Down;
	ASSERT_EQ(rig.converge(), 2U) << rig.world.describe();
	EXPECT_EQ(logOf(rig.world, { "unmount", "luks", "unmap" }),
		  (std::vector<std::string>{ "unmount /srv/vol", "unmount " + rig.spec.staging.path,
					     "luks-close rbdv-vol", "unmap /dev/rbd0" }));
	EXPECT_TRUE(rig.world.cryptMappings().empty());
	EXPECT_TRUE(rig.world.violations().empty()) << rig.world.violations().front();

	/* Up again: the header and the filesystem are kept, the key opens it. */
	rig.world.clearLog();
	rig.intent = Intent::Up;
	ASSERT_EQ(rig.converge(), 2U) << rig.world.describe();
	EXPECT_TRUE(logOf(rig.world, { "luks-format", "mkfs" }).empty());
	EXPECT_EQ(logOf(rig.world, { "luks-open" }).size(), 1U);
}

TEST(Crypt, TheFirstPlanSaysEveryStepAndWhereTheKeyComesFrom)
{
	Rig rig(encryptedSpec());
	const std::string text = rig.planText();
	EXPECT_NE(text.find("luks-format-if-blank <mapped device> (LUKS2, aes-xts-plain64, 512-bit "
			    "key, argon2id)"),
		  std::string::npos)
		<< text;
	EXPECT_NE(text.find("luks-open <mapped device> as " + Mapper +
			    " (key from /etc/rbd-volume/keys/vol.key)"),
		  std::string::npos)
		<< text;
	EXPECT_NE(text.find("format-if-blank " + Mapper), std::string::npos) << text;
	EXPECT_LT(text.find("luks-open"), text.find("format-if-blank " + Mapper)) << text;
}

TEST(Crypt, AnImageWithAFilesystemIsNeverEncryptedOver)
{
	Rig rig(encryptedSpec());
	rig.world.addImage(rig.spec.image, "ext4");
	auto outcome = rig.pass();
	ASSERT_TRUE(outcome);
	/* Mapped to look, then refused: no header, the filesystem as it was. */
	outcome = rig.pass();
	ASSERT_TRUE(outcome);
	EXPECT_TRUE(hasConflict(outcome->plan, ConflictKind::ForeignSignature))
		<< formatPlan(outcome->plan, rig.spec);
	EXPECT_TRUE(logOf(rig.world, { "luks", "mkfs", "mount" }).empty());
	EXPECT_EQ(rig.world.signature(rig.spec.image), "ext4");
	EXPECT_FALSE(rig.world.record("vol").luksFormatted);
	EXPECT_TRUE(rig.world.violations().empty());
}

TEST(Crypt, DataWithoutASignatureIsNeverEncryptedOver)
{
	Rig rig(encryptedSpec());
	rig.world.addImage(rig.spec.image);
	rig.world.setData(rig.spec.image);
	(void)rig.pass();
	auto outcome = rig.pass();
	ASSERT_TRUE(outcome);
	EXPECT_TRUE(hasConflict(outcome->plan, ConflictKind::UnknownData));
	EXPECT_TRUE(logOf(rig.world, { "luks" }).empty());
	EXPECT_TRUE(rig.world.violations().empty());
}

TEST(Crypt, AnImageEncryptedElsewhereOpensAsItIs)
{
	Rig rig(encryptedSpec(FsType::Xfs));
	rig.world.addImage(rig.spec.image);
	rig.world.luksFormatByHand(rig.spec.image, "/etc/rbd-volume/keys/vol.key", "xfs");
	ASSERT_EQ(rig.converge(), 2U) << rig.world.describe();
	EXPECT_TRUE(logOf(rig.world, { "luks-format", "mkfs" }).empty());
	ASSERT_NE(mountOn(rig.world, rig.spec.staging.path), nullptr);
	EXPECT_EQ(mountOn(rig.world, rig.spec.staging.path)->entry.fsType, "xfs");
	/* Not our header: a later blank image could be given one, as on first use. */
	EXPECT_FALSE(rig.world.record("vol").luksFormatted);
}

TEST(Crypt, AWrongKeyFailsTheOpenAndLeavesNothingOpenOrWritten)
{
	Rig rig(encryptedSpec());
	rig.world.addImage(rig.spec.image);
	rig.world.luksFormatByHand(rig.spec.image, "/some/other.key", "ext4");
	auto outcome = rig.pass();
	ASSERT_TRUE(outcome);
	ASSERT_NE(outcome->report.firstError(), nullptr);
	EXPECT_EQ(outcome->report.firstError()->code, Errc::PermissionDenied);
	EXPECT_TRUE(std::holds_alternative<LuksOpenStep>(outcome->report.outcomes.back().step));
	EXPECT_TRUE(rig.world.cryptMappings().empty());
	EXPECT_TRUE(logOf(rig.world, { "luks-format", "mkfs", "mount" }).empty());
	EXPECT_EQ(rig.world.signature(rig.spec.image), LuksSignature);
}

TEST(Crypt, ACrashBetweenOpenAndMountConvergesWithoutASecondOpen)
{
	Rig rig(encryptedSpec());
	rig.world.failNext(FakeOp::Mount, Errc::Timeout, false);
	(void)rig.pass();
	ASSERT_EQ(rig.world.cryptMappings().size(), 1U) << rig.world.describe();
	ASSERT_EQ(mountOn(rig.world, rig.spec.staging.path), nullptr);

	rig.world.clearLog();
	ASSERT_EQ(rig.converge(), 2U) << rig.world.describe();
	EXPECT_TRUE(logOf(rig.world, { "luks", "mkfs", "map" }).empty());
	ASSERT_NE(mountOn(rig.world, rig.spec.staging.path), nullptr);
	EXPECT_TRUE(rig.world.violations().empty());
}

TEST(Crypt, ACrashBetweenUnmountAndCloseConvergesDown)
{
	Rig rig(encryptedSpec());
	ASSERT_EQ(rig.converge(), 2U);
	rig.intent = Intent::Down;
	rig.world.failNext(FakeOp::LuksClose, Errc::Timeout, false);
	(void)rig.pass();
	ASSERT_EQ(rig.world.cryptMappings().size(), 1U);
	ASSERT_EQ(mountOn(rig.world, rig.spec.staging.path), nullptr);

	ASSERT_EQ(rig.converge(), 2U) << rig.world.describe();
	EXPECT_TRUE(rig.world.cryptMappings().empty());
	EXPECT_TRUE(rig.world.mappings().empty());
	EXPECT_TRUE(rig.world.violations().empty());
}

TEST(Crypt, AMountNotOursOverTheMappingKeepsItOpenAndMapped)
{
	Rig rig(encryptedSpec());
	ASSERT_EQ(rig.converge(), 2U);
	rig.world.mountForeign("/mnt/peek", Mapper);
	rig.intent = Intent::Down;
	(void)rig.pass();
	EXPECT_EQ(rig.world.cryptMappings().size(), 1U);
	EXPECT_EQ(rig.world.mappings().size(), 1U);
	EXPECT_TRUE(rig.world.violations().empty());
}

TEST(Crypt, AFormatCutShortAfterTheHeaderIsFinishedNotRefusedAsData)
{
	Rig rig(encryptedSpec());
	/* The header is written, the mapping not yet zeroed: it shows noise. */
	rig.world.failNext(FakeOp::LuksFormat, Errc::Timeout, true);
	(void)rig.pass();
	EXPECT_TRUE(rig.world.record("vol").luksPending);
	EXPECT_FALSE(rig.world.record("vol").luksFormatted);
	EXPECT_EQ(rig.world.signature(rig.spec.image), LuksSignature);

	ASSERT_EQ(rig.converge(), 2U) << rig.world.describe();
	EXPECT_EQ(
		logOf(rig.world, { "luks-format", "mkfs" }),
		(std::vector<std::string>{ "luks-format /dev/rbd0", "luks-format-finish /dev/rbd0",
					   "mkfs " + Mapper + " ext4" }));
	EXPECT_TRUE(rig.world.record("vol").luksFormatted);
	EXPECT_FALSE(rig.world.record("vol").luksPending);
	EXPECT_TRUE(rig.world.violations().empty()) << rig.world.violations().front();
}

TEST(Crypt, AHeaderNotOursIsNeverFinishedOrZeroed)
{
	Rig rig(encryptedSpec());
	rig.world.addImage(rig.spec.image);
	rig.world.luksFormatByHand(rig.spec.image, "/etc/rbd-volume/keys/vol.key", "ext4");
	ASSERT_EQ(rig.converge(), 2U) << rig.world.describe();
	EXPECT_TRUE(logOf(rig.world, { "luks-format", "mkfs" }).empty());
	EXPECT_TRUE(rig.world.violations().empty()) << rig.world.violations().front();
}

TEST(Crypt, EncryptionAddedToALiveVolumeIsAConflictAndNothingIsUnmounted)
{
	Rig rig(SpecBuilder("vol").create(GiB).target("/srv/vol").build());
	ASSERT_EQ(rig.converge(), 2U);
	const size_t mounts = rig.world.mounts().size();
	rig.spec = encryptedSpec();
	rig.world.clearLog();
	auto outcome = rig.pass();
	ASSERT_TRUE(outcome);
	EXPECT_TRUE(hasConflict(outcome->plan, ConflictKind::ModeMismatch))
		<< formatPlan(outcome->plan, rig.spec);
	EXPECT_TRUE(logOf(rig.world, { "unmount", "luks", "mkfs" }).empty());
	EXPECT_EQ(rig.world.mounts().size(), mounts);
}

TEST(Crypt, EncryptionTakenFromALiveVolumeIsAConflictAndNothingIsUnmounted)
{
	Rig rig(encryptedSpec());
	ASSERT_EQ(rig.converge(), 2U);
	const size_t mounts = rig.world.mounts().size();
	rig.spec = SpecBuilder("vol").create(GiB).target("/srv/vol").build();
	rig.world.clearLog();
	auto outcome = rig.pass();
	ASSERT_TRUE(outcome);
	EXPECT_TRUE(hasConflict(outcome->plan, ConflictKind::ModeMismatch))
		<< formatPlan(outcome->plan, rig.spec);
	EXPECT_TRUE(logOf(rig.world, { "unmount", "luks" }).empty());
	EXPECT_EQ(rig.world.mounts().size(), mounts);
	/* Down still takes it all away, mapping included. */
	rig.intent = Intent::Down;
	ASSERT_EQ(rig.converge(), 2U) << rig.world.describe();
	EXPECT_TRUE(rig.world.cryptMappings().empty());
	EXPECT_TRUE(rig.world.mappings().empty());
}

TEST(Crypt, DownNeverClosesAMappingOverADeviceWeDidNotMap)
{
	Rig rig(encryptedSpec());
	rig.world.addImage(rig.spec.image);
	rig.world.luksFormatByHand(rig.spec.image, "/etc/rbd-volume/keys/vol.key", "ext4");
	const std::string device = rig.world.mapForeign(rig.spec.image);
	ASSERT_TRUE(rig.world.open(cryptRequestOf(rig.spec), device));
	rig.intent = Intent::Down;
	auto outcome = rig.pass();
	ASSERT_TRUE(outcome);
	EXPECT_TRUE(hasConflict(outcome->plan, ConflictKind::ForeignMapping));
	EXPECT_EQ(rig.world.cryptMappings().size(), 1U);
	EXPECT_EQ(rig.world.mappings().size(), 1U);
}

TEST(Crypt, AnImageWeFormattedThatNowLooksBlankGetsNoHeader)
{
	Rig rig(encryptedSpec());
	rig.world.addImage(rig.spec.image);
	Ownership formatted;
	formatted.formatted = true;
	ASSERT_TRUE(rig.world.save("vol", formatted));
	(void)rig.pass();
	auto outcome = rig.pass();
	ASSERT_TRUE(outcome);
	EXPECT_TRUE(hasConflict(outcome->plan, ConflictKind::LostFilesystem))
		<< formatPlan(outcome->plan, rig.spec);
	EXPECT_TRUE(logOf(rig.world, { "luks" }).empty());
}

TEST(Crypt, AHeaderWeWroteThatVanishedIsNeverWrittenAgain)
{
	Rig rig(encryptedSpec());
	ASSERT_EQ(rig.converge(), 2U);
	rig.intent = Intent::Down;
	ASSERT_EQ(rig.converge(), 2U);
	rig.world.setSignature(rig.spec.image, "");

	rig.world.clearLog();
	rig.intent = Intent::Up;
	(void)rig.pass();
	auto outcome = rig.pass();
	ASSERT_TRUE(outcome);
	EXPECT_TRUE(hasConflict(outcome->plan, ConflictKind::LostFilesystem));
	EXPECT_TRUE(logOf(rig.world, { "luks" }).empty());
}

TEST(Crypt, AGrownImageGrowsTheMappingThenTheFilesystemOnline)
{
	Rig rig(encryptedSpec(FsType::Xfs));
	ASSERT_EQ(rig.converge(), 2U);
	rig.world.resizeImage(rig.spec.image, 2 * GiB);

	rig.world.clearLog();
	ASSERT_EQ(rig.converge(), 2U) << rig.world.describe();
	EXPECT_EQ(logOf(rig.world, { "luks-grow", "grow" }),
		  (std::vector<std::string>{ "luks-grow rbdv-vol", "grow " + Mapper + " online" }));
	EXPECT_EQ(rig.world.record("vol").cryptSpanBytes, 2 * GiB);
	EXPECT_EQ(rig.world.record("vol").sizedBytes, 2 * GiB - FakeLuksHeaderBytes);

	/* Converged: the next pass neither grows nor asks the mapping again. */
	rig.world.clearLog();
	ASSERT_EQ(rig.converge(), 1U);
	EXPECT_TRUE(rig.world.log().empty()) << rig.world.log().front();
}

TEST(Crypt, AReadOnlyVolumeOnABlankImageIsRefusedNotEncrypted)
{
	Rig rig(SpecBuilder("vol").readOnly().encrypted().build());
	rig.world.addImage(rig.spec.image);
	(void)rig.pass();
	auto outcome = rig.pass();
	ASSERT_TRUE(outcome);
	EXPECT_TRUE(hasConflict(outcome->plan, ConflictKind::BlankNoFormat));
	EXPECT_TRUE(logOf(rig.world, { "luks" }).empty());
}

} /* namespace rbdvolume::testing */
