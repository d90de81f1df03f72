/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The data safety matrix: an image carrying anything at all is never
 * formatted. Each case writes a signature with the real tool, brings the
 * volume up, and checks the conflict is named, no mkfs ran, nothing was
 * mounted, and the image is byte-for-byte what it was.
 */
#include <algorithm>

#include "engine_fixture.hpp"
#include "host/drivers/fuse/loop_device.hpp"
#include "shell.hpp"

namespace rbdvolume::testing {
namespace {

struct SignatureCase {
	const char *name;
	const char *wantedFs; /* the spec's filesystem: never the one on the image */
	const char *script;   /* writes the signature onto $IMG (a file) or $DEV (a loop over it) */
	ConflictKind conflict;
	const char *seen; /* what the conflict detail names */
};

const SignatureCase Cases[] = {
	{ "ext4", "xfs", "mkfs.ext4 -q $IMG", ConflictKind::ForeignSignature, "ext4" },
	{ "xfs", "ext4", "mkfs.xfs -q $IMG", ConflictKind::ForeignSignature, "xfs" },
	{ "btrfs", "ext4", "mkfs.btrfs -q $IMG", ConflictKind::ForeignSignature, "btrfs" },
	{ "swap", "ext4", "mkswap $IMG >/dev/null 2>&1", ConflictKind::ForeignSignature, "swap" },
	{ "luks", "ext4",
	  "printf pw | cryptsetup luksFormat --batch-mode --pbkdf pbkdf2 "
	  "--pbkdf-force-iterations 1000 $IMG -",
	  ConflictKind::ForeignSignature, "crypto_LUKS" },
	{ "dos", "ext4", "printf 'label: dos\\n,64M\\n' | sfdisk -q $IMG",
	  ConflictKind::ForeignSignature, "dos" },
	{ "gpt", "ext4", "printf 'label: gpt\\n,64M\\n' | sfdisk -q $IMG",
	  ConflictKind::ForeignSignature, "gpt" },
	{ "lvm", "ext4", "LVM_SUPPRESS_FD_WARNINGS=1 pvcreate -q -ff -y $DEV >/dev/null",
	  ConflictKind::ForeignSignature, "LVM2_member" },
	{ "ambivalent", "ext4",
	  "mkfs.ext4 -q $IMG && truncate -s 512M $IMG.x && mkfs.xfs -q $IMG.x && "
	  "dd if=$IMG.x of=$IMG bs=512 count=1 conv=notrunc status=none && rm $IMG.x",
	  ConflictKind::AmbivalentProbe, "xfs" },
	/*
	 * No signature at all, but data: plain dm-crypt, a raw database, a
	 * half-wiped image. The offsets named are prefixes: a random byte may be 0.
	 */
	{ "random_at_0", "ext4",
	  "dd if=/dev/urandom of=$IMG bs=4k count=1 conv=notrunc status=none",
	  ConflictKind::UnknownData, "non-zero bytes at offset " },
	{ "random_at_64k", "ext4",
	  "dd if=/dev/urandom of=$IMG bs=4k seek=16 count=1 conv=notrunc status=none",
	  ConflictKind::UnknownData, "non-zero bytes at offset 655" },
	{ "random_first_mib", "xfs",
	  "dd if=/dev/urandom of=$IMG bs=1M count=1 conv=notrunc status=none",
	  ConflictKind::UnknownData, "non-zero bytes at offset" },
	{ "random_in_the_middle", "ext4",
	  "dd if=/dev/urandom of=$IMG bs=64k seek=4096 count=1 conv=notrunc status=none",
	  ConflictKind::UnknownData, "non-zero bytes at offset 2684354" },
	{ "random_last_mib", "ext4",
	  "dd if=/dev/urandom of=$IMG bs=1M seek=511 count=1 conv=notrunc status=none",
	  ConflictKind::UnknownData, "non-zero bytes at offset 535" },
};

class SafetyMatrix : public EngineOnLoop, public ::testing::WithParamInterface<SignatureCase>
{
};

bool mkfsRan(const PassOutcome &outcome)
{
	return std::any_of(outcome.report.outcomes.begin(), outcome.report.outcomes.end(),
			   [](const StepOutcome &o) {
				   return std::holds_alternative<FormatStep>(o.step) &&
					  o.change == Change::Changed;
			   });
}

TEST_P(SafetyMatrix, AnySignatureIsNeverFormatted)
{
	const SignatureCase &c = GetParam();
	const VolumeSpec volume =
		spec("vol", std::string("[image]\npool = \"rbd\"\nname = \"vol\"\n") +
				    "[filesystem]\ntype = \"" + c.wantedFs +
				    "\"\n[staging]\npath = \"@DIR@/staging\"\n" +
				    "[[publish]]\npath = \"@DIR@/a\"\n");
	const std::string image = real_->images.imagePath(volume.image);
	ASSERT_TRUE(real_->images.createImage(volume.image, 512ULL << 20));
	auto device = attachLoop(image, false);
	ASSERT_TRUE(device);
	shellOk(std::string("IMG='") + image + "' DEV=" + *device + "; " + c.script);
	ASSERT_TRUE(detachLoop(*device));
	const std::string before = checksum(image);

	for (int i = 0; i < 3; i++) {
		const PassOutcome outcome = pass(volume, Intent::Up);
		EXPECT_FALSE(mkfsRan(outcome)) << c.name << ": formatted!";
		for (const Step &step : outcome.plan.steps)
			EXPECT_FALSE(std::holds_alternative<FormatStep>(step) && i > 0)
				<< "a format step planned over a known signature";
	}
	const PassOutcome last = plan(volume, Intent::Up);
	EXPECT_TRUE(last.plan.steps.empty()) << formatPlan(last.plan, volume);
	ASSERT_EQ(last.plan.conflicts.size(), 1U) << formatPlan(last.plan, volume);
	const Conflict &conflict = last.plan.conflicts.front();
	EXPECT_EQ(conflict.kind, c.conflict);
	EXPECT_NE(conflict.detail.find(c.seen), std::string::npos) << conflict.detail;
	EXPECT_FALSE(mountAt(volume.staging.path)) << "a foreign device was mounted";
	EXPECT_FALSE(mountAt(dir_ + "/a"));

	ASSERT_GE(converge(volume, Intent::Down), 0);
	auto mapped = real_->images.list();
	ASSERT_TRUE(mapped);
	EXPECT_TRUE(mapped->empty()) << "our own mapping must go at down";
	EXPECT_EQ(checksum(image), before) << c.name << ": the image changed";
}

INSTANTIATE_TEST_SUITE_P(Signatures, SafetyMatrix, ::testing::ValuesIn(Cases),
			 [](const ::testing::TestParamInfo<SignatureCase> &param) {
				 return std::string(param.param.name);
			 });

TEST_F(EngineOnLoop, RandomDataAfterOurFormatIsNeverFormattedAgain)
{
	const VolumeSpec volume = simpleSpec("random");
	ASSERT_GE(converge(volume, Intent::Up), 1);
	shellOk("echo precious > " + dir_ + "/a/file && sync");
	ASSERT_GE(converge(volume, Intent::Down), 1);

	/* Someone writes raw data over the start: no signature is left for libblkid. */
	const std::string image = real_->images.imagePath(volume.image);
	shellOk("dd if=/dev/urandom of='" + image + "' bs=1M count=4 conv=notrunc status=none");
	const std::string before = checksum(image);

	for (int i = 0; i < 3; i++)
		EXPECT_FALSE(mkfsRan(pass(volume, Intent::Up)));
	const PassOutcome last = plan(volume, Intent::Up);
	ASSERT_EQ(last.plan.conflicts.size(), 1U) << formatPlan(last.plan, volume);
	EXPECT_EQ(last.plan.conflicts.front().kind, ConflictKind::LostFilesystem);
	EXPECT_NE(last.plan.conflicts.front().detail.find("refusing to format it again"),
		  std::string::npos);
	ASSERT_GE(converge(volume, Intent::Down), 0);
	EXPECT_EQ(checksum(image), before);
}

TEST_F(EngineOnLoop, BlankWithFormatNeverIsAConflict)
{
	const VolumeSpec volume = spec("never", R"([image]
pool = "rbd"
name = "never"
[image.create]
size = "64M"
[filesystem]
format = "never"
[staging]
path = "@DIR@/staging"
)");
	(void)pass(volume, Intent::Up);
	const PassOutcome outcome = plan(volume, Intent::Up);
	ASSERT_EQ(outcome.plan.conflicts.size(), 1U) << formatPlan(outcome.plan, volume);
	EXPECT_EQ(outcome.plan.conflicts.front().kind, ConflictKind::BlankNoFormat);
	ASSERT_GE(converge(volume, Intent::Down), 0);
}

} /* namespace */
} /* namespace rbdvolume::testing */
