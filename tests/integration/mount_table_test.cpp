/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The mount table as ProcMountTable reads it is the one libmount reads
 * (mnt_table_parse_mtab: mountinfo joined with utab), mount for mount and
 * owner for owner, on a real table with stacked binds, stale utab lines and
 * escaped names.
 */
#include <filesystem>

#include <sys/mount.h>

#include <gtest/gtest.h>

#include "host/proc_mount_table.hpp"
#include "host/utab.hpp"
#include "integration_env.hpp"
#include "libmount_table.hpp"

namespace rbdvolume::testing {
namespace {

std::string describe(const MountEntry &e)
{
	return e.target + " " + e.source + " root=" + e.root + " " + e.fsType +
	       (e.readOnly ? " ro" : " rw") + " owner=" + e.owner;
}

/* The binds a test made, top last, to take down after it. */
std::vector<std::string> &bound()
{
	static std::vector<std::string> targets;
	return targets;
}

void bindAs(const std::string &source, const std::string &target, const std::string &owner)
{
	std::filesystem::create_directories(target);
	ASSERT_EQ(::mount(source.c_str(), target.c_str(), nullptr, MS_BIND, nullptr), 0) << target;
	bound().push_back(target);
	if (owner.empty())
		return;
	auto recorded =
		recordUtabEntry({ source, target, "", "_netdev,x-rbd-volume=" + owner, true });
	ASSERT_TRUE(recorded) << recorded.error().message;
}

TEST(MountTable, JoinedAsLibmountJoinsIt)
{
	const std::string dir = freshDir("joined");
	const std::string source = dir + "/source";
	std::filesystem::create_directories(source + "/sub");
	/* three binds stacked on one target: two ours, the middle one not */
	bindAs(source, dir + "/stack", "bottom");
	bindAs(source, dir + "/stack", "");
	bindAs(source, dir + "/stack", "top");
	/* a bind of a subdirectory (its root is /sub), and a name with a space */
	bindAs(source + "/sub", dir + "/sub", "sub");
	bindAs(source, dir + "/with space", "spaced");
	/* a stale line: the mount went, its utab line stayed */
	bindAs(source, dir + "/gone", "gone");
	ASSERT_EQ(::umount((dir + "/gone").c_str()), 0);
	bound().pop_back();
	for (int i = 0; i < 20; i++)
		bindAs(source, dir + "/many/" + std::to_string(i),
		       i % 2 == 0 ? "m" + std::to_string(i) : "");

	auto ours = ProcMountTable().read();
	ASSERT_TRUE(ours) << ours.error().message;
	const std::vector<MountEntry> reference = libmountTable();
	ASSERT_FALSE(reference.empty());
	ASSERT_EQ(ours->size(), reference.size());
	for (size_t i = 0; i < reference.size(); i++)
		EXPECT_EQ(describe((*ours)[i]), describe(reference[i])) << "entry " << i;

	std::vector<std::string> owners;
	for (const MountEntry &e : *ours) {
		if (e.target == dir + "/stack" || e.target == dir + "/with space" ||
		    e.target == dir + "/sub")
			owners.push_back(e.owner);
	}
	/* libmount's join, newest line to the topmost mount: the unmarked middle one takes "bottom" */
	EXPECT_EQ(owners, (std::vector<std::string>{ "", "bottom", "top", "sub", "spaced" }));

	for (auto target = bound().rbegin(); target != bound().rend(); ++target) {
		EXPECT_EQ(::umount(target->c_str()), 0) << *target;
		(void)forgetUtabEntry(*target);
	}
	bound().clear();
}

} /* namespace */
} /* namespace rbdvolume::testing */
