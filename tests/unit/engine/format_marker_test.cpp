/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The image's own record of what rbd-volume made on it, and the formats it refuses. */
#include "engine/format_marker.hpp"

#include <algorithm>

#include <gtest/gtest.h>

#include "engine_rig.hpp"
#include "spec_builder.hpp"

namespace rbdvolume::testing {

namespace {

VolumeSpec dataSpec()
{
	return SpecBuilder("data").create(GiB).target("/srv/data").build();
}

VolumeSpec encryptedSpec()
{
	return SpecBuilder("data").create(GiB).encrypted().target("/srv/data").build();
}

std::optional<std::string> marker(Rig &rig, const char *key)
{
	auto value = rig.world.metadata(imageRequestOf(rig.spec), key);
	EXPECT_TRUE(value) << value.error().message;
	return value ? *value : std::nullopt;
}

bool logHas(const FakeWorld &world, const std::string &prefix)
{
	return std::ranges::any_of(
		world.log(), [&](const std::string &line) { return line.rfind(prefix, 0) == 0; });
}

const StepOutcome *outcomeOf(const ExecutionReport &report, const char *kind)
{
	const auto it = std::ranges::find_if(report.outcomes, [&](const StepOutcome &o) {
		return std::string(stepName(o.step)) == kind;
	});
	return it == report.outcomes.end() ? nullptr : &*it;
}

/* Another host formatted the image: its marker is there, this host keeps no record of it. */
void formattedElsewhere(Rig &rig, const char *key, const std::string &made)
{
	ASSERT_TRUE(rig.world.setMetadata(imageRequestOf(rig.spec), key, made));
	rig.world.clearLog();
}

} /* namespace */

TEST(FormatMarker, NamesWhatWasMadeWhereAndWhen)
{
	const auto when = std::chrono::sys_days{ std::chrono::year{ 2026 } / 12 / 1 } +
			  std::chrono::hours{ 10 } + std::chrono::minutes{ 2 } +
			  std::chrono::seconds{ 3 };
	EXPECT_EQ(formatMarker("ext4", "0f3c", "node1", when),
		  "ext4 uuid=0f3c host=node1 time=2026-12-01T10:02:03Z");
	EXPECT_EQ(formatMarker("xfs", "", "", when), "xfs time=2026-12-01T10:02:03Z");
}

TEST(FormatMarker, AFormatLeavesItsMarkerInTheImage)
{
	Rig rig(dataSpec());
	ASSERT_EQ(rig.converge(), 2U) << rig.world.describe();
	const auto made = marker(rig, FormattedKey);
	ASSERT_TRUE(made);
	EXPECT_EQ(made->rfind("ext4 uuid=" + FakeUuidPrefix + "ext4 ", 0), 0U) << *made;
	EXPECT_NE(made->find(" time=20"), std::string::npos) << *made;
	EXPECT_FALSE(marker(rig, EncryptedKey));
}

/* The reformat of ceph-csi #1820: a mapping that reads zeroes where a filesystem was made. */
TEST(FormatMarker, ABlankImageFormattedByAnotherHostIsNeverFormattedAgain)
{
	Rig rig(dataSpec());
	rig.world.addImage(rig.spec.image);
	const std::string made = "ext4 uuid=0f3c host=node1 time=2026-12-01T10:02:03Z";
	formattedElsewhere(rig, FormattedKey, made);

	auto outcome = rig.pass();
	ASSERT_TRUE(outcome);
	ASSERT_FALSE(outcome->report.ok());
	const StepOutcome *format = outcomeOf(outcome->report, "format-if-blank");
	ASSERT_NE(format, nullptr);
	ASSERT_TRUE(format->error);
	EXPECT_EQ(format->error->code, Errc::Conflict);
	EXPECT_NE(format->error->message.find("'" + made +
					      "' (metadata rbd-volume.formatted) on rbd/data"),
		  std::string::npos)
		<< format->error->message;
	EXPECT_NE(
		format->error->message.find("rbd image-meta remove rbd/data rbd-volume.formatted"),
		std::string::npos)
		<< format->error->message;
	EXPECT_FALSE(logHas(rig.world, "mkfs"));
	EXPECT_EQ(rig.world.signature(rig.spec.image), "");
	EXPECT_EQ(marker(rig, FormattedKey), made);

	/* Once an operator removed the marker, knowing the data is gone, it formats. */
	rig.world.metadataOf(rig.spec.image).erase(FormattedKey);
	ASSERT_NE(rig.converge(), 0U) << rig.world.describe();
	EXPECT_EQ(rig.world.signature(rig.spec.image), "ext4");
	EXPECT_TRUE(rig.world.violations().empty());
}

/* A marker that cannot be read is no licence to format. */
TEST(FormatMarker, AMarkerThatCannotBeReadRefusesTheFormat)
{
	Rig rig(dataSpec());
	rig.world.addImage(rig.spec.image);
	rig.world.failNext(FakeOp::Metadata, Errc::Io);
	auto outcome = rig.pass();
	ASSERT_TRUE(outcome);
	ASSERT_FALSE(outcome->report.ok());
	EXPECT_TRUE(std::holds_alternative<FormatStep>(outcome->report.outcomes.back().step));
	EXPECT_NE(outcome->report.firstError()->message.find(
			  "cannot read rbd-volume.encrypted in the metadata of rbd/data"),
		  std::string::npos)
		<< outcome->report.firstError()->message;
	EXPECT_FALSE(logHas(rig.world, "mkfs"));
	ASSERT_NE(rig.converge(), 0U) << rig.world.describe();
	EXPECT_EQ(rig.world.signature(rig.spec.image), "ext4");
}

/* A marker that cannot be written leaves the filesystem made and says so. */
TEST(FormatMarker, AMarkerNotKeptFailsNothingAndIsSaid)
{
	Rig rig(dataSpec());
	rig.world.failNext(FakeOp::SetMetadata, Errc::Io);
	auto outcome = rig.pass();
	ASSERT_TRUE(outcome && outcome->report.ok()) << rig.world.describe();
	const StepOutcome *format = outcomeOf(outcome->report, "format-if-blank");
	ASSERT_NE(format, nullptr);
	EXPECT_NE(format->detail.find("; not recorded in the image (injected io"),
		  std::string::npos)
		<< format->detail;
	EXPECT_FALSE(marker(rig, FormattedKey));
	EXPECT_TRUE(rig.world.record("data").formatted);
}

TEST(FormatMarker, ALuksFormatLeavesBothMarkers)
{
	Rig rig(encryptedSpec());
	ASSERT_EQ(rig.converge(), 2U) << rig.world.describe();
	const auto header = marker(rig, EncryptedKey);
	ASSERT_TRUE(header);
	EXPECT_EQ(header->rfind(std::string(LuksSignature) + " uuid=" + FakeUuidPrefix +
					LuksSignature,
				0),
		  0U)
		<< *header;
	const auto filesystem = marker(rig, FormattedKey);
	ASSERT_TRUE(filesystem);
	EXPECT_EQ(filesystem->rfind("ext4 uuid=", 0), 0U) << *filesystem;
}

/* A lost header (the image reads blank where LUKS2 was) is never written again. */
TEST(FormatMarker, ABlankImageEncryptedByAnotherHostGetsNoNewHeader)
{
	Rig rig(encryptedSpec());
	rig.world.addImage(rig.spec.image);
	formattedElsewhere(rig, EncryptedKey, "crypto_LUKS uuid=9a1e host=node1 time=x");
	auto outcome = rig.pass();
	ASSERT_TRUE(outcome);
	ASSERT_FALSE(outcome->report.ok());
	EXPECT_TRUE(std::holds_alternative<LuksFormatStep>(outcome->report.outcomes.back().step));
	EXPECT_EQ(outcome->report.firstError()->code, Errc::Conflict);
	EXPECT_NE(outcome->report.firstError()->message.find("rbd-volume.encrypted"),
		  std::string::npos);
	EXPECT_FALSE(logHas(rig.world, "luks-format"));
	EXPECT_EQ(rig.world.signature(rig.spec.image), "");
}

/* Each record is named, with the command that removes it: one look tells the whole story. */
TEST(FormatMarker, EveryRecordOfALostEncryptedImageIsNamed)
{
	Rig rig(encryptedSpec());
	rig.world.addImage(rig.spec.image);
	formattedElsewhere(rig, EncryptedKey, "crypto_LUKS uuid=9a1e host=node1 time=x");
	formattedElsewhere(rig, FormattedKey, "ext4 uuid=0f3c host=node1 time=x");
	auto outcome = rig.pass();
	ASSERT_TRUE(outcome);
	ASSERT_FALSE(outcome->report.ok());
	EXPECT_EQ(outcome->report.firstError()->message,
		  "rbd-volume made 'crypto_LUKS uuid=9a1e host=node1 time=x' (metadata "
		  "rbd-volume.encrypted), 'ext4 uuid=0f3c host=node1 time=x' (metadata "
		  "rbd-volume.formatted) on rbd/data, but /dev/rbd0 now looks blank; refusing to "
		  "write over it. If its data is gone for good: rbd image-meta remove rbd/data "
		  "rbd-volume.encrypted; rbd image-meta remove rbd/data rbd-volume.formatted");
}

/* A plain volume over an image that once carried a LUKS2 header is not formatted either. */
TEST(FormatMarker, ABlankImageOnceEncryptedIsNotFormattedPlain)
{
	Rig rig(dataSpec());
	rig.world.addImage(rig.spec.image);
	formattedElsewhere(rig, EncryptedKey, "crypto_LUKS uuid=9a1e host=node1 time=x");
	auto outcome = rig.pass();
	ASSERT_TRUE(outcome);
	ASSERT_FALSE(outcome->report.ok());
	EXPECT_EQ(outcome->report.firstError()->code, Errc::Conflict);
	EXPECT_FALSE(logHas(rig.world, "mkfs"));
}

/* Inside a header that is there, a filesystem lost from the mapping is not made again. */
TEST(FormatMarker, ABlankMappingOfAFormattedEncryptedImageIsNotFormatted)
{
	Rig rig(encryptedSpec());
	rig.world.addImage(rig.spec.image);
	/* The header opens, but the mapping reads blank (a header restored from another image). */
	rig.world.luksFormatByHand(rig.spec.image, "/etc/rbd-volume/keys/vol.key", "");
	formattedElsewhere(rig, FormattedKey, "ext4 uuid=0f3c host=node1 time=x");
	auto outcome = rig.pass();
	ASSERT_TRUE(outcome);
	ASSERT_FALSE(outcome->report.ok());
	EXPECT_TRUE(std::holds_alternative<FormatStep>(outcome->report.outcomes.back().step));
	EXPECT_EQ(outcome->report.firstError()->code, Errc::Conflict);
	EXPECT_NE(
		outcome->report.firstError()->message.find("/dev/mapper/rbdv-data now looks blank"),
		std::string::npos)
		<< outcome->report.firstError()->message;
	EXPECT_FALSE(logHas(rig.world, "mkfs"));
	EXPECT_FALSE(logHas(rig.world, "luks-format"));
}

} /* namespace rbdvolume::testing */
