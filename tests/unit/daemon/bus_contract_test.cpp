/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The contract test: what the daemon introspects for org.rbdvolume1.Manager
 * and org.rbdvolume1.Volume must be exactly src/daemon/org.rbdvolume1.xml
 * (methods and their arguments, properties with type, access and change
 * signal, signals). Also the tag scanner it rests on.
 */
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "bus_rig.hpp"
#include "introspect_xml.hpp"

namespace rbdvolume::testing {

namespace {

std::string contractPath()
{
	return environmentOr("RBDV_BUS_CONTRACT", "src/daemon/org.rbdvolume1.xml");
}

std::string listed(const std::vector<std::string> &lines)
{
	std::string text;
	for (const std::string &line : lines)
		text += "  " + line + "\n";
	return text;
}

/* The differences of `interface` between two documents; one line if either lacks it. */
std::vector<std::string> compare(const XmlElement &contract, const XmlElement &actual,
				 const std::string &interface)
{
	const auto wanted = interfaceShape(contract, interface);
	const auto found = interfaceShape(actual, interface);
	if (!wanted)
		return { "the contract has no interface " + interface };
	if (!found)
		return { "the bus has no interface " + interface };
	return shapeDifferences(*wanted, *found);
}

std::vector<std::string> compareTexts(const std::string &contractText,
				      const std::string &actualText, const std::string &interface)
{
	auto contract = parseXml(contractText);
	auto actual = parseXml(actualText);
	if (!contract)
		return { "contract: " + contract.error().message };
	if (!actual)
		return { "bus: " + actual.error().message };
	return compare(*contract, *actual, interface);
}

TEST(BusContract, IntrospectionMatchesTheContract)
{
	const std::string contractText = readText(contractPath());
	ASSERT_FALSE(contractText.empty()) << "cannot read " << contractPath();
	auto contract = parseXml(contractText);
	ASSERT_TRUE(contract) << contract.error().message;

	BusRig bus;
	bus.rig.addVolume("data");
	ASSERT_TRUE(bus.start());
	const std::string manager = bus.introspect(bus::ManagerPath);
	const std::string volume = bus.introspect(bus::volumePath("data"));
	auto managerXml = parseXml(manager);
	auto volumeXml = parseXml(volume);
	ASSERT_TRUE(managerXml) << managerXml.error().message << "\n" << manager;
	ASSERT_TRUE(volumeXml) << volumeXml.error().message << "\n" << volume;

	const auto managerDifferences = compare(*contract, *managerXml, bus::ManagerInterface);
	EXPECT_TRUE(managerDifferences.empty())
		<< bus::ManagerInterface << " differs from " << contractPath() << ":\n"
		<< listed(managerDifferences);
	const auto volumeDifferences = compare(*contract, *volumeXml, bus::VolumeInterface);
	EXPECT_TRUE(volumeDifferences.empty())
		<< bus::VolumeInterface << " differs from " << contractPath() << ":\n"
		<< listed(volumeDifferences);

	/* The manager's object is not a volume, and the contract has nothing else. */
	EXPECT_FALSE(interfaceShape(*managerXml, bus::VolumeInterface));
	EXPECT_FALSE(interfaceShape(*volumeXml, bus::ManagerInterface));
	EXPECT_EQ(contract->children.size(), 2U);
}

TEST(BusContract, TheManagerIsAnObjectManager)
{
	BusRig bus;
	ASSERT_TRUE(bus.start());
	auto manager = parseXml(bus.introspect(bus::ManagerPath));
	ASSERT_TRUE(manager);
	EXPECT_TRUE(interfaceShape(*manager, "org.freedesktop.DBus.ObjectManager"));
}

/* The interfaces at `path`: none when the object is unknown. */
std::set<std::string> interfacesAt(BusRig &bus, const std::string &path)
{
	auto reply = bus.call(path, "org.freedesktop.DBus.Introspectable", "Introspect", "");
	std::set<std::string> names;
	if (!bus.wait(reply, "Introspect " + path) ||
	    reply->errorName == "org.freedesktop.DBus.Error.UnknownObject")
		return names;
	const char *xml = nullptr;
	if (!reply->errorName.empty() || sd_bus_message_read(reply->message.get(), "s", &xml) < 0) {
		ADD_FAILURE() << "Introspect " << path << ": " << reply->errorName;
		return names;
	}
	auto node = parseXml(xml);
	if (!node) {
		ADD_FAILURE() << node.error().message;
		return names;
	}
	for (const XmlElement &child : node->children) {
		if (child.name == "interface")
			names.insert(child.attributes.at("name"));
	}
	return names;
}

/* Every object the API registered goes with it, the object manager included. */
TEST(BusContract, DestroyingTheApiUnregistersEverything)
{
	BusRig bus;
	bus.rig.addVolume("data");
	ASSERT_TRUE(bus.start());
	EXPECT_EQ(interfacesAt(bus, bus::ManagerPath).count("org.freedesktop.DBus.ObjectManager"),
		  1U);
	EXPECT_EQ(interfacesAt(bus, bus::volumePath("data")).count(bus::VolumeInterface), 1U);

	bus.rig.reconciler->setListener(nullptr);
	bus.api.reset();
	for (const std::string &path : { std::string(bus::ManagerPath), bus::volumePath("data") }) {
		const std::set<std::string> left = interfacesAt(bus, path);
		for (const char *name : { bus::ManagerInterface, bus::VolumeInterface,
					  "org.freedesktop.DBus.ObjectManager" })
			EXPECT_EQ(left.count(name), 0U) << name << " still at " << path;
	}
}

/* The comparison does fail: each kind of drift, made in a copy of the contract. */
TEST(BusContract, EveryKindOfDriftIsReported)
{
	const std::string contractText = readText(contractPath());
	ASSERT_FALSE(contractText.empty());
	struct Drift {
		std::string from;
		std::string to;
		std::vector<std::string> expected;
	};
	const std::vector<Drift> drifts = {
		{ R"(<arg name="wait" type="b" direction="in"/>
    </method>
    <method name="Down">)",
		  R"(<arg name="wait" type="s" direction="in"/>
    </method>
    <method name="Down">)",
		  { "in the contract only: method UpWithPassphrase arg 2 wait b in",
		    "on the bus only: method UpWithPassphrase arg 2 wait s in" } },
		{ R"(<arg name="volume" type="o" direction="out"/>)",
		  R"(<arg name="volume" type="o"/>)",
		  { "in the contract only: method GetVolume arg 1 volume o out",
		    "on the bus only: method GetVolume arg 1 volume o in" } },
		{ R"(<method name="Reload"/>)",
		  R"(<method name="Reload2"/>)",
		  { "in the contract only: method Reload", "on the bus only: method Reload2" } },
		{ R"(<property name="Busy" type="b" access="read">)",
		  R"(<property name="Busy" type="b" access="readwrite">)",
		  { "in the contract only: property Busy b read",
		    "on the bus only: property Busy b readwrite" } },
		{ R"(<property name="Name" type="s" access="read">
      <annotation name="org.freedesktop.DBus.Property.EmitsChangedSignal" value="const"/>)",
		  R"(<property name="Name" type="s" access="read">)",
		  { "in the contract only: property Name annotation "
		    "org.freedesktop.DBus.Property.EmitsChangedSignal=const" } },
		{ R"(<method name="Reload"/>)",
		  R"(<method name="Reload"/><signal name="Reloaded"><arg name="n" type="u"/></signal>)",
		  { "on the bus only: signal Reloaded",
		    "on the bus only: signal Reloaded arg 0 n u" } },
	};
	for (const Drift &drift : drifts) {
		std::string changed = contractText;
		const size_t at = changed.find(drift.from);
		ASSERT_NE(at, std::string::npos) << drift.from;
		changed.replace(at, drift.from.size(), drift.to);
		std::vector<std::string> differences =
			compareTexts(contractText, changed, bus::ManagerInterface);
		for (const std::string &line :
		     compareTexts(contractText, changed, bus::VolumeInterface))
			differences.push_back(line);
		EXPECT_EQ(differences, drift.expected) << drift.to;
	}
}

TEST(IntrospectXml, ScansTagsAndSkipsTheRest)
{
	const char *text = R"(<?xml version="1.0"?>
<!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">
<!-- a <comment> with <tags/> -->
<node name="/x">
 text is ignored
 <interface name='a.B'>
  <method name="M"><arg type="s" name="q&amp;a" direction="out"/></method>
  <property name="P" type="as" access="read"/>
 </interface>
 <node name="child"/>
</node>
)";
	auto root = parseXml(text);
	ASSERT_TRUE(root) << root.error().message;
	EXPECT_EQ(root->name, "node");
	EXPECT_EQ(root->attributes.at("name"), "/x");
	ASSERT_EQ(root->children.size(), 2U);
	EXPECT_EQ(root->children[1].name, "node");
	const XmlElement &interface = root->children[0];
	EXPECT_EQ(interface.attributes.at("name"), "a.B");
	ASSERT_EQ(interface.children.size(), 2U);
	ASSERT_EQ(interface.children[0].children.size(), 1U);
	EXPECT_EQ(interface.children[0].children[0].attributes.at("name"), "q&a");

	const auto shape = interfaceShape(*root, "a.B");
	ASSERT_TRUE(shape);
	EXPECT_EQ(*shape, (std::set<std::string>{ "method M", "method M arg 0 q&a s out",
						  "property P as read" }));
	EXPECT_FALSE(interfaceShape(*root, "a.C"));
}

TEST(IntrospectXml, RefusesMalformedInput)
{
	for (const char *text :
	     { "<node>", "<node></interface>", "<node><a></node>", "<node name=x/>",
	       "<node name=\"x/>", "<!-- open", "<a/><b/>", "" })
		EXPECT_FALSE(parseXml(text)) << text;
}

TEST(IntrospectXml, EmitsChangedSignalTrueIsTheDefault)
{
	const std::string explicitTrue =
		R"(<node><interface name="a.B"><property name="P" type="s" access="read">)"
		R"(<annotation name="org.freedesktop.DBus.Property.EmitsChangedSignal" value="true"/>)"
		R"(</property></interface></node>)";
	const std::string implicit =
		R"(<node><interface name="a.B"><property name="P" type="s" access="read"/>)"
		R"(</interface></node>)";
	const std::string invalidates =
		R"(<node><interface name="a.B"><property name="P" type="s" access="read">)"
		R"(<annotation name="org.freedesktop.DBus.Property.EmitsChangedSignal" value="invalidates"/>)"
		R"(</property></interface></node>)";
	EXPECT_TRUE(compareTexts(explicitTrue, implicit, "a.B").empty());
	EXPECT_EQ(compareTexts(explicitTrue, invalidates, "a.B"),
		  std::vector<std::string>{ "on the bus only: property P annotation "
					    "org.freedesktop.DBus.Property.EmitsChangedSignal="
					    "invalidates" });
	EXPECT_EQ(compareTexts(explicitTrue, implicit, "a.C"),
		  std::vector<std::string>{ "the contract has no interface a.C" });
}

} /* namespace */

} /* namespace rbdvolume::testing */
