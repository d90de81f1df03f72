/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The Volume properties' table: each property written as the daemon does and read back as clients do. */
#include "bus/volume_properties.hpp"

#include <array>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <sys/socket.h>

#include <gtest/gtest.h>

#include "bus/names.hpp"
#include "common/sd_ptr.hpp"
#include "common/unique_fd.hpp"

namespace rbdvolume::bus {

namespace {

VolumeProperties sample()
{
	VolumeProperties volume;
	volume.name = "archive.2020";
	volume.specFile = "/etc/rbd-volume/volumes/archive.2020.toml";
	volume.intent = "up";
	volume.phase = Phase::Degraded;
	volume.stage = Stage::Staged;
	volume.busy = true;
	volume.activity = "mount /dev/rbd0";
	volume.device = "/dev/rbd0";
	volume.stagingPath = "/var/lib/rbd-volume/staging/archive.2020";
	volume.publishTargets = { "/srv/a", "/srv/b" };
	volume.conditions = { { "Conflict", "mount /srv/a: not ours" }, { "MapperLost", "" } };
	volume.lastErrorName = "org.rbdvolume1.Error.Conflict";
	volume.lastErrorMessage = "refused";
	volume.generation = 18446744073709551615ULL;
	volume.observedGeneration = 7;
	volume.phaseSince = 1795941601123456ULL;
	volume.retries = 3;
	volume.heals = 2;
	volume.stepUsec = { { "map", 1250000 }, { "mount-staging", 30500 } };
	return volume;
}

/* A connection that is never used to send: messages need one to be made. */
class MessageFactory
{
public:
	MessageFactory()
	{
		std::array<int, 2> fds{};
		EXPECT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds.data()), 0);
		peer_ = UniqueFd(fds[1]);
		sd_bus *raw = nullptr;
		EXPECT_GE(sd_bus_new(&raw), 0);
		bus_.reset(raw);
		EXPECT_GE(sd_bus_set_fd(raw, fds[0], fds[0]), 0);
		EXPECT_GE(sd_bus_start(raw), 0);
	}

	/* A GetAll reply's body: `volume` as a{sv}, plus `extra` unknown to this build. */
	MessagePtr getAll(const VolumeProperties &volume, bool extra = false)
	{
		sd_bus_message *raw = nullptr;
		EXPECT_GE(sd_bus_message_new_method_call(bus_.get(), &raw, nullptr, ManagerPath,
							 PropertiesInterface, "GetAll"),
			  0);
		MessagePtr message(raw);
		EXPECT_GE(sd_bus_message_open_container(raw, 'a', "{sv}"), 0);
		for (const VolumeProperty &property : volumeProperties()) {
			EXPECT_GE(sd_bus_message_open_container(raw, 'e', "sv"), 0);
			EXPECT_GE(sd_bus_message_append(raw, "s", property.name), 0);
			EXPECT_GE(sd_bus_message_open_container(raw, 'v', property.signature), 0);
			EXPECT_GE(property.append(raw, volume), 0) << property.name;
			EXPECT_GE(sd_bus_message_close_container(raw), 0);
			EXPECT_GE(sd_bus_message_close_container(raw), 0);
			if (extra && std::strcmp(property.name, "Busy") == 0) {
				EXPECT_GE(sd_bus_message_append(raw, "{sv}", "FutureProperty",
								"a{su}", 1, "answer", 42U),
					  0);
			}
		}
		EXPECT_GE(sd_bus_message_close_container(raw), 0);
		EXPECT_GE(sd_bus_message_seal(raw, 1, 0), 0);
		EXPECT_GE(sd_bus_message_rewind(raw, 1), 0);
		return message;
	}

private:
	UniqueFd peer_;
	/* Closed without the flush BusPtr does: the peer never answers the handshake. */
	CHandle<sd_bus, sd_bus_close_unref> bus_;
};

TEST(VolumeProperties, EveryPropertyReadsBackAsWritten)
{
	MessageFactory factory;
	const VolumeProperties volume = sample();
	const MessagePtr message = factory.getAll(volume);
	const auto read = readVolumeProperties(message.get());
	ASSERT_TRUE(read) << read.error().message;
	EXPECT_EQ(*read, volume);
}

TEST(VolumeProperties, AnUnknownPropertyIsSkipped)
{
	MessageFactory factory;
	const MessagePtr message = factory.getAll(sample(), true);
	const auto read = readVolumeProperties(message.get());
	ASSERT_TRUE(read) << read.error().message;
	EXPECT_EQ(*read, sample());
}

TEST(VolumeProperties, TheHostsBytesAreEscapedIntoUtf8)
{
	MessageFactory factory;
	VolumeProperties volume = sample();
	volume.stagingPath = "/srv/\xff\xfe";
	volume.conditions = { { "Conflict", "a\xc3" } };
	const MessagePtr message = factory.getAll(volume);
	const auto read = readVolumeProperties(message.get());
	ASSERT_TRUE(read) << read.error().message;
	EXPECT_EQ(read->stagingPath, busText(volume.stagingPath));
	EXPECT_NE(read->stagingPath, volume.stagingPath);
	EXPECT_EQ(read->conditions.at(0).message, busText("a\xc3"));
}

TEST(VolumeProperties, TheTableFollowsTheStruct)
{
	/* Each property differs for a change of its own member only. */
	const VolumeProperties base = sample();
	VolumeProperties changed = base;
	changed.device = "/dev/rbd1";
	std::vector<std::string> differing;
	for (const VolumeProperty &property : volumeProperties()) {
		if (property.differs(base, changed))
			differing.emplace_back(property.name);
	}
	EXPECT_EQ(differing, std::vector<std::string>{ "Device" });
	changed = base;
	changed.lastErrorMessage.clear();
	differing.clear();
	for (const VolumeProperty &property : volumeProperties()) {
		if (property.differs(base, changed))
			differing.emplace_back(property.name);
	}
	EXPECT_EQ(differing, std::vector<std::string>{ "LastError" });
	changed = base;
	changed.heals++;
	differing.clear();
	for (const VolumeProperty &property : volumeProperties()) {
		if (property.differs(base, changed))
			differing.emplace_back(property.name);
	}
	EXPECT_EQ(differing, std::vector<std::string>{ "Heals" });
	EXPECT_EQ(volumeProperties().size(), 18U);
	EXPECT_STREQ(volumeProperties().front().name, "Name");
	EXPECT_TRUE(volumeProperties().front().constant);
}

TEST(PhaseAndStage, NamesRoundTripAndUnknownNamesAreNone)
{
	for (const Phase phase :
	     { Phase::Unknown, Phase::Invalid, Phase::Down, Phase::Up, Phase::Pending,
	       Phase::Degraded, Phase::Failed, Phase::Unmanaged })
		EXPECT_EQ(phaseFromName(phaseName(phase)), phase) << phaseName(phase);
	for (const Stage stage : { Stage::Absent, Stage::Mapped, Stage::Staged, Stage::Published })
		EXPECT_EQ(stageFromName(stageName(stage)), stage) << stageName(stage);
	EXPECT_STREQ(phaseName(Phase::Degraded), "degraded");
	EXPECT_STREQ(stageName(Stage::Published), "published");
	EXPECT_FALSE(phaseFromName("frozen"));
	EXPECT_FALSE(stageFromName(""));
}

TEST(VolumePaths, NamesAreEscapedAndDecodedBack)
{
	EXPECT_EQ(volumePath("db"), "/org/rbdvolume1/volume/db");
	EXPECT_EQ(volumePath("archive.2020"), "/org/rbdvolume1/volume/archive_2e2020");
	EXPECT_EQ(volumeName("/org/rbdvolume1/volume/archive_2e2020"), "archive.2020");
	EXPECT_EQ(volumeName("/org/rbdvolume1"), "");
}

} /* namespace */

} /* namespace rbdvolume::bus */
