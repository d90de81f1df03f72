/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * BusApi over a socketpair, on the fake world: replies, error names, the
 * properties and the signals. Mutating calls are for root: as root the
 * success paths run and a caller made non-root (the socket created with
 * euid 65534) is refused; as another user only the refusals can be seen.
 */
#include <algorithm>
#include <set>
#include <string>
#include <unistd.h>
#include <vector>

#include <gtest/gtest.h>

#include "bus_rig.hpp"
#include "introspect_xml.hpp"

namespace rbdvolume::testing {

namespace {

using std::chrono::milliseconds;

constexpr const char *AccessDenied = "org.freedesktop.DBus.Error.AccessDenied";
constexpr const char *InvalidArgs = "org.freedesktop.DBus.Error.InvalidArgs";
constexpr const char *NoSuchVolume = "org.rbdvolume1.Error.NoSuchVolume";
constexpr const char *SpecInvalid = "org.rbdvolume1.Error.SpecInvalid";
constexpr const char *ShuttingDown = "org.rbdvolume1.Error.ShuttingDown";

constexpr const char *RootOnly = "mutating calls succeed only for root (euid 0); as another "
				 "user BusApi.MutationsAreForRootOnly covers their refusal";

bool isRoot()
{
	return geteuid() == 0;
}

std::string volumePath(const std::string &name)
{
	return bus::volumePath(name);
}

std::string contractPath()
{
	return environmentOr("RBDV_BUS_CONTRACT", "src/daemon/org.rbdvolume1.xml");
}

std::string replyText(const BusReply &reply)
{
	return reply.errorName.empty() ? "a method return"
				       : reply.errorName + ": " + reply.errorMessage;
}

bool succeeded(const BusReply &reply)
{
	return reply.done && reply.errorName.empty();
}

/* The property's value as BusValue::text spells it, from a Properties.Get. */
std::string getProperty(BusRig &bus, const std::string &path, const char *interface,
			const char *property)
{
	auto reply =
		bus.call(path, "org.freedesktop.DBus.Properties", "Get", "ss", interface, property);
	if (!bus.wait(reply, std::string("Get ") + property) || !succeeded(*reply)) {
		ADD_FAILURE() << "Get " << property << ": " << replyText(*reply);
		return "";
	}
	/* Get returns a bare variant. */
	char kind = 0;
	const char *contents = nullptr;
	sd_bus_message *message = reply->message.get();
	if (sd_bus_message_peek_type(message, &kind, &contents) < 0 || contents == nullptr)
		return "";
	const std::string type = contents;
	if (sd_bus_message_enter_container(message, 'v', contents) < 0)
		return "";
	if (type == "s") {
		const char *value = nullptr;
		return sd_bus_message_read(message, "s", &value) >= 0 ? value : "";
	}
	if (type == "b") {
		int value = 0;
		return sd_bus_message_read(message, "b", &value) >= 0 && value != 0 ? "true"
										    : "false";
	}
	return "(" + type + ")";
}

/* ListVolumes' rows as "NAME 'INTENT' PHASE PATH"; empty when the call failed. */
std::vector<std::string> listVolumes(BusRig &bus)
{
	auto reply = bus.callManagerAndWait("ListVolumes", "");
	std::vector<std::string> rows;
	EXPECT_TRUE(succeeded(*reply)) << replyText(*reply);
	if (!succeeded(*reply))
		return rows;
	sd_bus_message *message = reply->message.get();
	EXPECT_GE(sd_bus_message_enter_container(message, 'a', "(ssso)"), 0);
	const char *name = nullptr;
	const char *intent = nullptr;
	const char *phase = nullptr;
	const char *path = nullptr;
	while (sd_bus_message_read(message, "(ssso)", &name, &intent, &phase, &path) > 0)
		rows.push_back(std::string(name) + " '" + intent + "' " + phase + " " + path);
	return rows;
}

TEST(BusApi, ListVolumes)
{
	BusRig bus;
	bus.rig.addVolume("a");
	bus.rig.addVolume("db.main");
	bus.rig.writeSpec("bad", "[image]\nname = \"x\"\n");
	ASSERT_TRUE(bus.start());

	EXPECT_EQ(listVolumes(bus), (std::vector<std::string>{
					    "a '' down /org/rbdvolume1/volume/a",
					    "bad '' invalid /org/rbdvolume1/volume/bad",
					    "db.main '' down /org/rbdvolume1/volume/db_2emain",
				    }));
}

TEST(BusApi, GetVolume)
{
	BusRig bus;
	bus.rig.addVolume("db.main");
	ASSERT_TRUE(bus.start());

	auto reply = bus.callManagerAndWait("GetVolume", "s", "db.main");
	ASSERT_TRUE(succeeded(*reply)) << replyText(*reply);
	const char *path = nullptr;
	ASSERT_GE(sd_bus_message_read(reply->message.get(), "o", &path), 0);
	EXPECT_STREQ(path, "/org/rbdvolume1/volume/db_2emain");
	EXPECT_EQ(bus::volumeName(path), "db.main");
	EXPECT_EQ(getProperty(bus, path, bus::VolumeInterface, "Name"), "db.main");

	reply = bus.callManagerAndWait("GetVolume", "s", "nope");
	EXPECT_EQ(reply->errorName, NoSuchVolume);
	EXPECT_NE(reply->errorMessage.find("nope"), std::string::npos) << reply->errorMessage;

	/* No object for an unknown volume either. */
	auto missing = bus.call(volumePath("nope"), "org.freedesktop.DBus.Properties", "Get", "ss",
				bus::VolumeInterface, "Phase");
	ASSERT_TRUE(bus.wait(missing, "Get on an unknown volume"));
	EXPECT_FALSE(missing->errorName.empty());
}

TEST(BusApi, PlanVolume)
{
	BusRig bus;
	bus.rig.addVolume("a");
	bus.rig.writeSpec("bad", "[image]\nname = \"x\"\n");
	ASSERT_TRUE(bus.start());

	auto reply = bus.callManagerAndWait("PlanVolume", "ss", "a", "up");
	ASSERT_TRUE(succeeded(*reply)) << replyText(*reply);
	const char *plan = nullptr;
	ASSERT_GE(sd_bus_message_read(reply->message.get(), "s", &plan), 0);
	EXPECT_NE(std::string(plan).find("map rbd/a"), std::string::npos) << plan;
	{
		const auto held = bus.rig.world.lock();
		EXPECT_TRUE(bus.rig.world.log().empty()) << "a plan changed the host";
	}

	reply = bus.callManagerAndWait("PlanVolume", "ss", "a", "");
	EXPECT_TRUE(succeeded(*reply)) << replyText(*reply);
	reply = bus.callManagerAndWait("PlanVolume", "ss", "a", "sideways");
	EXPECT_EQ(reply->errorName, InvalidArgs);
	reply = bus.callManagerAndWait("PlanVolume", "ss", "nope", "up");
	EXPECT_EQ(reply->errorName, NoSuchVolume);
	reply = bus.callManagerAndWait("PlanVolume", "ss", "bad", "up");
	EXPECT_EQ(reply->errorName, SpecInvalid);
}

/* Runs as root and as any other user: a caller that is not root changes nothing. */
TEST(BusApi, MutationsAreForRootOnly)
{
	BusRig bus(true);
	bus.rig.addVolume("a");
	ASSERT_TRUE(bus.start());

	const std::vector<std::shared_ptr<BusReply>> replies = {
		bus.callManager("Up", "sb", "a", 1),
		bus.callManager("Up", "sb", "a", 0),
		bus.callManager("Down", "sb", "a", 1),
		bus.callManager("Reconcile", "s", "a"),
		bus.callManager("Reconcile", "s", ""),
		bus.callManager("Reload", ""),
		bus.callManager("UpWithPassphrase", "sayb", "a", 3, 'k', 'e', 'k', 1),
		bus.callManager("PrepareForShutdown", ""),
	};
	for (const auto &reply : replies) {
		ASSERT_TRUE(bus.wait(reply, "a mutating call"));
		EXPECT_EQ(reply->errorName, AccessDenied) << replyText(*reply);
	}
	bus.rig.loop.runFor(milliseconds(30));
	{
		const auto held = bus.rig.world.lock();
		EXPECT_TRUE(bus.rig.world.log().empty()) << bus.rig.world.describe();
	}
	EXPECT_EQ(bus.rig.status("a").intent, "");
	EXPECT_TRUE(bus.rig.intents.loadAll().empty());
	EXPECT_FALSE(bus.passphrases.copyOf("a"));

	/* Reading stays open. */
	EXPECT_TRUE(succeeded(*bus.callManagerAndWait("ListVolumes", "")));
	EXPECT_TRUE(succeeded(*bus.callManagerAndWait("PlanVolume", "ss", "a", "up")));
	EXPECT_EQ(getProperty(bus, volumePath("a"), bus::VolumeInterface, "Phase"), "down");
}

TEST(BusApi, APassphraseGivenAtUpIsKeptInMemoryUntilDown)
{
	if (!isRoot())
		GTEST_SKIP() << RootOnly;
	BusRig bus;
	bus.rig.addVolume("a");
	ASSERT_TRUE(bus.start());

	auto reply = bus.callManagerAndWait("UpWithPassphrase", "sayb", "a", 0, 1);
	EXPECT_EQ(reply->errorName, InvalidArgs) << replyText(*reply);
	EXPECT_EQ(bus.rig.status("a").intent, "");
	reply = bus.callManagerAndWait("UpWithPassphrase", "sayb", "nope", 3, 'k', 'e', 'k', 1);
	EXPECT_EQ(reply->errorName, NoSuchVolume) << replyText(*reply);
	EXPECT_FALSE(bus.passphrases.copyOf("nope"));

	reply = bus.callManagerAndWait("UpWithPassphrase", "sayb", "a", 3, 'k', 'e', 'k', 1);
	EXPECT_TRUE(succeeded(*reply)) << replyText(*reply);
	EXPECT_EQ(bus.rig.status("a").intent, "up");
	auto kept = bus.passphrases.copyOf("a");
	ASSERT_TRUE(kept) << kept.error().message;
	EXPECT_EQ(kept->view(), "kek");
	/* A plain Up (a publish, say) keeps it. */
	ASSERT_TRUE(succeeded(*bus.callManagerAndWait("Up", "sb", "a", 1)));
	EXPECT_TRUE(bus.passphrases.copyOf("a"));

	ASSERT_TRUE(succeeded(*bus.callManagerAndWait("Down", "sb", "a", 1)));
	EXPECT_FALSE(bus.passphrases.copyOf("a"));
}

TEST(BusApi, UpWithWaitRepliesWhenPublished)
{
	if (!isRoot())
		GTEST_SKIP() << RootOnly;
	BusRig bus;
	bus.rig.addVolume("a");
	ASSERT_TRUE(bus.start());
	bus.signals.clear();

	auto reply = bus.callManager("Up", "sb", "a", 1);
	ASSERT_TRUE(bus.wait(reply, "Up a"));
	EXPECT_TRUE(succeeded(*reply)) << replyText(*reply);
	EXPECT_STREQ(bus::phaseName(bus.rig.status("a").phase), "up")
		<< "replied before the volume converged";
	{
		const auto held = bus.rig.world.lock();
		EXPECT_FALSE(bus.rig.world.deviceOf(ImageSpec{ "rbd", "", "a", "", {} }).empty());
	}

	/* The coalesced signals follow the reply; the last one says "up". */
	const auto lastPhase = [&] {
		std::string phase;
		for (const BusSignal &signal :
		     bus.signalsOf("PropertiesChanged", volumePath("a"))) {
			if (const auto found = signal.changed.find("Phase");
			    found != signal.changed.end())
				phase = found->second.text;
		}
		return phase;
	};
	ASSERT_TRUE(
		bus.rig.loop.runUntil([&] { return lastPhase() == "up"; }, "Phase up signalled"));

	std::set<std::string> changed;
	bool sawBusy = false;
	bool sawNotBusy = false;
	std::string lastStage;
	for (const BusSignal &signal : bus.signalsOf("PropertiesChanged", volumePath("a"))) {
		EXPECT_EQ(signal.interface, bus::VolumeInterface);
		for (const auto &[name, value] : signal.changed) {
			changed.insert(name);
			if (name == "Busy") {
				EXPECT_EQ(value.type, "b");
				sawBusy = sawBusy || value.text == "true";
				sawNotBusy = sawNotBusy || value.text == "false";
			}
			if (name == "Stage")
				lastStage = value.text;
		}
	}
	for (const char *name : { "Phase", "Busy", "Stage", "Intent", "Device", "StagingPath",
				  "PublishTargets", "Generation", "ObservedGeneration" })
		EXPECT_EQ(changed.count(name), 1U) << name << " never signalled";
	EXPECT_EQ(changed.count("Name"), 0U) << "Name is const";
	EXPECT_TRUE(sawBusy);
	EXPECT_TRUE(sawNotBusy);
	EXPECT_EQ(lastStage, "published");

	/* The manager's Summary follows too. */
	const auto summaryUp = [&] {
		bool up = false;
		for (const BusSignal &signal :
		     bus.signalsOf("PropertiesChanged", bus::ManagerPath)) {
			if (const auto found = signal.changed.find("Summary");
			    found != signal.changed.end())
				up = found->second.text == "1 volume: 1 up";
		}
		return up;
	};
	EXPECT_TRUE(bus.rig.loop.runUntil(summaryUp, "Summary signalled"));
	EXPECT_EQ(getProperty(bus, bus::ManagerPath, bus::ManagerInterface, "Summary"),
		  "1 volume: 1 up");
}

TEST(BusApi, UpWithoutWaitRepliesAtOnce)
{
	if (!isRoot())
		GTEST_SKIP() << RootOnly;
	BusRig bus;
	bus.rig.addVolume("a");
	ASSERT_TRUE(bus.start());
	bus.rig.world.hold(FakeOp::Mount);

	auto reply = bus.callManager("Up", "sb", "a", 0);
	ASSERT_TRUE(bus.wait(reply, "Up a, no wait"));
	EXPECT_TRUE(succeeded(*reply)) << replyText(*reply);
	EXPECT_STRNE(bus::phaseName(bus.rig.status("a").phase), "up");
	EXPECT_EQ(bus.rig.intents.loadAll().at("a"), Intent::Up) << "recorded before replying";

	bus.rig.world.release();
	ASSERT_TRUE(bus.rig.loop.runUntil([&] { return bus.rig.settledIn("a", "up"); }, "a up"));
}

TEST(BusApi, DownTearsDown)
{
	if (!isRoot())
		GTEST_SKIP() << RootOnly;
	BusRig bus;
	bus.rig.addVolume("a");
	ASSERT_TRUE(bus.start());
	ASSERT_TRUE(succeeded(*bus.callManagerAndWait("Up", "sb", "a", 1)));

	auto reply = bus.callManagerAndWait("Down", "sb", "a", 1);
	EXPECT_TRUE(succeeded(*reply)) << replyText(*reply);
	EXPECT_STREQ(bus::phaseName(bus.rig.status("a").phase), "down");
	{
		const auto held = bus.rig.world.lock();
		EXPECT_TRUE(bus.rig.world.mounts().empty()) << bus.rig.world.describe();
		EXPECT_TRUE(bus.rig.world.mappings().empty()) << bus.rig.world.describe();
	}

	ASSERT_TRUE(succeeded(*bus.callManagerAndWait("Up", "sb", "a", 1)));
	reply = bus.callManagerAndWait("Down", "sb", "a", 0);
	EXPECT_TRUE(succeeded(*reply)) << replyText(*reply);
	ASSERT_TRUE(
		bus.rig.loop.runUntil([&] { return bus.rig.settledIn("a", "down"); }, "a down"));
}

TEST(BusApi, MutationErrors)
{
	if (!isRoot())
		GTEST_SKIP() << RootOnly;
	BusRig bus;
	bus.rig.addVolume("a");
	bus.rig.writeSpec("bad", "[image]\nname = \"x\"\n");
	ASSERT_TRUE(bus.start());

	auto reply = bus.callManagerAndWait("Up", "sb", "nope", 1);
	EXPECT_EQ(reply->errorName, NoSuchVolume) << replyText(*reply);
	reply = bus.callManagerAndWait("Down", "sb", "nope", 0);
	EXPECT_EQ(reply->errorName, NoSuchVolume) << replyText(*reply);
	reply = bus.callManagerAndWait("Reconcile", "s", "nope");
	EXPECT_EQ(reply->errorName, NoSuchVolume) << replyText(*reply);

	reply = bus.callManagerAndWait("Up", "sb", "bad", 1);
	EXPECT_EQ(reply->errorName, SpecInvalid) << replyText(*reply);
	EXPECT_NE(reply->errorMessage.find("bad.toml:1:1"), std::string::npos)
		<< reply->errorMessage;

	/* A failing step: the error of the episode, and LastError says the same. */
	{
		const auto held = bus.rig.world.lock();
		bus.rig.world.failNext(FakeOp::Mount, Errc::Timeout);
	}
	reply = bus.callManagerAndWait("Up", "sb", "a", 1);
	EXPECT_EQ(reply->errorName, "org.rbdvolume1.Error.Timeout") << replyText(*reply);
	EXPECT_EQ(getProperty(bus, volumePath("a"), bus::VolumeInterface, "Phase"), "failed");
	const BusProperties properties = bus.getAll(volumePath("a"), bus::VolumeInterface);
	ASSERT_EQ(properties.count("LastError"), 1U);
	EXPECT_EQ(properties.at("LastError").text.rfind("org.rbdvolume1.Error.Timeout|", 0), 0U)
		<< properties.at("LastError").text;
}

/* Only a shutdown PID 1 itself is in may turn teardowns into abandons: here no systemd says so. */
TEST(BusApi, PrepareForShutdownIsRefusedWhileTheHostRuns)
{
	if (!isRoot())
		GTEST_SKIP() << RootOnly;
	BusRig bus;
	bus.rig.addVolume("a");
	ASSERT_TRUE(bus.start());

	auto reply = bus.callManagerAndWait("PrepareForShutdown", "");
	EXPECT_EQ(reply->errorName, "org.rbdvolume1.Error.Conflict") << replyText(*reply);
	EXPECT_NE(reply->errorMessage.find("the host is not shutting down"), std::string::npos)
		<< reply->errorMessage;
}

TEST(BusApi, ReconcileReplies)
{
	if (!isRoot())
		GTEST_SKIP() << RootOnly;
	BusRig bus;
	bus.rig.addVolume("a");
	bus.rig.addVolume("b");
	ASSERT_TRUE(bus.start());
	ASSERT_TRUE(succeeded(*bus.callManagerAndWait("Up", "sb", "a", 1)));
	ASSERT_TRUE(succeeded(*bus.callManagerAndWait("Up", "sb", "b", 1)));
	{
		const auto held = bus.rig.world.lock();
		ASSERT_TRUE(bus.rig.world.unmountByHand("/srv/b"));
	}
	auto reply = bus.callManagerAndWait("Reconcile", "s", "");
	EXPECT_TRUE(succeeded(*reply)) << replyText(*reply);
	EXPECT_STREQ(bus::phaseName(bus.rig.status("b").phase), "up");
	{
		const auto held = bus.rig.world.lock();
		const auto &mounts = bus.rig.world.mounts();
		EXPECT_TRUE(std::any_of(mounts.begin(), mounts.end(), [](const FakeMount &mount) {
			return mount.entry.target == "/srv/b";
		})) << bus.rig.world.describe();
	}
	reply = bus.callManagerAndWait("Reconcile", "s", "a");
	EXPECT_TRUE(succeeded(*reply)) << replyText(*reply);
}

TEST(BusApi, ReloadAnnouncesNewAndForgottenVolumes)
{
	if (!isRoot())
		GTEST_SKIP() << RootOnly;
	BusRig bus;
	bus.rig.addVolume("a");
	ASSERT_TRUE(bus.start());
	bus.signals.clear();

	bus.rig.addVolume("c");
	bus.rig.removeSpec("a");
	auto reply = bus.callManagerAndWait("Reload", "");
	EXPECT_TRUE(succeeded(*reply)) << replyText(*reply);
	bus.rig.loop.runFor(milliseconds(20));

	const auto added = bus.signalsOf("InterfacesAdded", volumePath("c"));
	ASSERT_EQ(added.size(), 1U);
	EXPECT_EQ(added[0].interfaces, std::vector<std::string>{ bus::VolumeInterface });
	const auto removed = bus.signalsOf("InterfacesRemoved", volumePath("a"));
	ASSERT_EQ(removed.size(), 1U) << "a was down with nothing on the host: forgotten";
	EXPECT_EQ(removed[0].interfaces, std::vector<std::string>{ bus::VolumeInterface });
	EXPECT_EQ(getProperty(bus, volumePath("c"), bus::VolumeInterface, "Phase"), "down");

	auto list = bus.callManagerAndWait("ListVolumes", "");
	ASSERT_TRUE(succeeded(*list));
	ASSERT_GE(sd_bus_message_enter_container(list->message.get(), 'a', "(ssso)"), 0);
	const char *name = nullptr;
	const char *intent = nullptr;
	const char *phase = nullptr;
	const char *path = nullptr;
	std::vector<std::string> names;
	while (sd_bus_message_read(list->message.get(), "(ssso)", &name, &intent, &phase, &path) >
	       0)
		names.emplace_back(name);
	EXPECT_EQ(names, std::vector<std::string>{ "c" });
}

TEST(BusApi, PendingCallsAtShutdownAreAnsweredShuttingDown)
{
	if (!isRoot())
		GTEST_SKIP() << RootOnly;
	BusRig bus;
	bus.rig.addVolume("a");
	bus.rig.addVolume("b");
	ASSERT_TRUE(bus.start());
	bus.rig.world.hold(FakeOp::Mount);

	auto up = bus.callManager("Up", "sb", "a", 1);
	ASSERT_TRUE(bus.rig.loop.runUntil([&] { return bus.rig.world.held(); }, "a mounting"));
	auto down = bus.callManager("Down", "sb", "a", 1);
	bus.rig.loop.runFor(milliseconds(20));
	EXPECT_FALSE(down->done);

	bool stopped = false;
	bus.rig.reconciler->shutdown([&] { stopped = true; });
	auto late = bus.callManagerAndWait("Up", "sb", "b", 0);
	EXPECT_EQ(late->errorName, ShuttingDown) << replyText(*late);

	bus.rig.world.release();
	ASSERT_TRUE(bus.rig.loop.runUntil([&] { return stopped && down->done && up->done; },
					  "the shutdown"));
	EXPECT_TRUE(succeeded(*up)) << replyText(*up);
	EXPECT_EQ(down->errorName, ShuttingDown) << replyText(*down);
}

/* GetAll on a volume and on the manager: every property of the contract, with its type. */
TEST(BusApi, GetAllHasEveryPropertyOfTheContract)
{
	auto contract = parseXml(readText(contractPath()));
	ASSERT_TRUE(contract) << contract.error().message;

	BusRig bus;
	bus.rig.addVolume("a");
	ASSERT_TRUE(bus.start());

	for (const auto &[path, interface] :
	     { std::pair<std::string, const char *>{ volumePath("a"), bus::VolumeInterface },
	       std::pair<std::string, const char *>{ bus::ManagerPath, bus::ManagerInterface } }) {
		std::map<std::string, std::string> wanted;
		for (const XmlElement &element : contract->children) {
			if (element.name != "interface" ||
			    element.attributes.at("name") != interface)
				continue;
			for (const XmlElement &member : element.children) {
				if (member.name == "property")
					wanted[member.attributes.at("name")] =
						member.attributes.at("type");
			}
		}
		ASSERT_FALSE(wanted.empty()) << "the contract has no properties for " << interface;
		const BusProperties properties = bus.getAll(path, interface);
		std::map<std::string, std::string> found;
		for (const auto &[name, value] : properties)
			found[name] = value.type;
		EXPECT_EQ(found, wanted) << interface;
	}

	const BusProperties volume = bus.getAll(volumePath("a"), bus::VolumeInterface);
	const auto text = [&](const char *name) {
		const auto found = volume.find(name);
		return found == volume.end() ? std::string("(missing)") : found->second.text;
	};
	EXPECT_EQ(text("Name"), "a");
	EXPECT_EQ(text("SpecFile"), bus.rig.specDir() + "/a.toml");
	EXPECT_EQ(text("Intent"), "");
	EXPECT_EQ(text("Phase"), "down");
	EXPECT_EQ(text("Stage"), "absent");
	EXPECT_EQ(text("Busy"), "false");
	EXPECT_EQ(text("PublishTargets"), "");
	EXPECT_EQ(text("Conditions"), "");
	EXPECT_EQ(text("LastError"), "|");
	EXPECT_EQ(text("Generation"), "1");
	EXPECT_EQ(text("ObservedGeneration"), "1");

	const BusProperties manager = bus.getAll(bus::ManagerPath, bus::ManagerInterface);
	ASSERT_EQ(manager.count("Version"), 1U);
	EXPECT_FALSE(manager.at("Version").text.empty());
	ASSERT_EQ(manager.count("Summary"), 1U);
	EXPECT_EQ(manager.at("Summary").text, "1 volume: 1 down");
	ASSERT_EQ(manager.count("Surveys"), 1U);
	EXPECT_EQ(manager.at("Surveys").text, std::to_string(bus.rig.reconciler->surveys()));
	EXPECT_NE(manager.at("Surveys").text, "0") << "the start surveys the host";
}

TEST(BusApi, ConditionsOfAnInvalidSpec)
{
	BusRig bus;
	bus.rig.writeSpec("bad", "[image]\nname = \"x\"\n");
	ASSERT_TRUE(bus.start());
	const BusProperties bad = bus.getAll(volumePath("bad"), bus::VolumeInterface);
	ASSERT_EQ(bad.count("Conditions"), 1U);
	EXPECT_EQ(bad.at("Conditions")
			  .text.rfind("SpecInvalid|" + bus.rig.specDir() + "/bad.toml:1:1: ", 0),
		  0U)
		<< bad.at("Conditions").text;
	EXPECT_EQ(bad.at("Phase").text, "invalid");
}

/* A file name the host allows but sd-bus would refuse: escaped, and every other volume still answers. */
TEST(BusApi, ANameThatIsNotUtf8IsEscapedAndBreaksNoOtherVolume)
{
	BusRig bus;
	bus.rig.addVolume("a");
	bus.rig.writeSpec("\xff", "[image]\npool = \"rbd\"\nname = \"x\"\n");
	ASSERT_TRUE(bus.start());

	EXPECT_EQ(listVolumes(bus),
		  (std::vector<std::string>{ "\\xff '' invalid /org/rbdvolume1/volume/_5cxff",
					     "a '' down /org/rbdvolume1/volume/a" }));

	const BusProperties bad = bus.getAll(volumePath("\\xff"), bus::VolumeInterface);
	ASSERT_EQ(bad.count("Conditions"), 1U);
	EXPECT_NE(bad.at("Conditions")
			  .text.find("/\\xff.toml: expected a file name of the form "
				     "NAME.toml with a valid volume name"),
		  std::string::npos)
		<< bad.at("Conditions").text;
	EXPECT_EQ(bad.at("SpecFile").text, bus.rig.specDir() + "/\\xff.toml");
	EXPECT_EQ(bus.getAll(volumePath("a"), bus::VolumeInterface).at("Phase").text, "down");

	if (isRoot()) {
		auto reply = bus.callManagerAndWait("Down", "sb", "\\xff", 1);
		EXPECT_EQ(reply->errorName, SpecInvalid) << replyText(*reply);
		EXPECT_NE(reply->errorMessage.find("never had a valid spec"), std::string::npos)
			<< reply->errorMessage;
	}
}

} /* namespace */

} /* namespace rbdvolume::testing */
