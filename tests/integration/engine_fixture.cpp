/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "engine_fixture.hpp"

#include <filesystem>

#include "config/spec_parser.hpp"
#include "integration_env.hpp"
#include "shell.hpp"

namespace rbdvolume::testing {

RealHost::RealHost(const std::string &dir, ToolConfig tools)
	: images(dir + "/images"), formatter(runner, std::move(tools)),
	  records(dir + "/owned"), host{ table,	 mounter,   probe,   images,
					 images, formatter, records, crypt }
{
}

void EngineOnLoop::SetUp()
{
	dir_ = freshDir(
		std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
	std::filesystem::create_directories(dir_ + "/images");
	real_ = std::make_unique<RealHost>(dir_);
}

void EngineOnLoop::TearDown()
{
	/* Whatever a failed test left: unmount below the test dir, detach its loops. */
	shellOk("for m in $(findmnt -rn -o TARGET | grep '^" + dir_ +
		"/' | sort -r); do umount -l \"$m\"; done; true");
	detachOurLoops();
}

VolumeSpec EngineOnLoop::spec(const std::string &name, std::string toml)
{
	for (size_t pos = toml.find("@DIR@"); pos != std::string::npos; pos = toml.find("@DIR@"))
		toml.replace(pos, 5, dir_);
	const SpecOutcome outcome = parseVolumeSpec(toml, dir_ + "/" + name + ".toml");
	for (const Diagnostic &d : outcome.diagnostics)
		ADD_FAILURE() << d.format();
	return outcome.spec;
}

VolumeSpec EngineOnLoop::simpleSpec(const std::string &name, const std::string &extra)
{
	return spec(
		name,
		"[image]\npool = \"rbd\"\nname = \"" + name +
			"\"\n[image.create]\nsize = \"512M\"\n" + extra +
			"[staging]\npath = \"@DIR@/staging/" + name +
			"\"\n[[publish]]\npath = \"@DIR@/a\"\n[[publish]]\npath = \"@DIR@/b\"\n");
}

PassOutcome EngineOnLoop::plan(const VolumeSpec &spec, Intent intent)
{
	auto snapshot = takeSnapshot(real_->host);
	EXPECT_TRUE(snapshot) << snapshot.error().message;
	auto outcome = planPass(real_->host, *snapshot, DesiredVolume{ spec, intent });
	EXPECT_TRUE(outcome) << outcome.error().message;
	return outcome ? std::move(*outcome) : PassOutcome{};
}

PassOutcome EngineOnLoop::pass(const VolumeSpec &spec, Intent intent)
{
	auto snapshot = takeSnapshot(real_->host);
	EXPECT_TRUE(snapshot) << snapshot.error().message;
	auto outcome = reconcilePass(real_->host, *snapshot, DesiredVolume{ spec, intent });
	EXPECT_TRUE(outcome) << outcome.error().message;
	return outcome ? std::move(*outcome) : PassOutcome{};
}

int EngineOnLoop::converge(const VolumeSpec &spec, Intent intent, int limit)
{
	for (int passes = 0; passes < limit; passes++) {
		PassOutcome outcome = pass(spec, intent);
		if (outcome.plan.empty())
			return passes;
		if (const Error *error = outcome.report.firstError()) {
			ADD_FAILURE()
				<< "pass " << passes + 1 << " failed: " << error->message << "\n"
				<< formatPlan(outcome.plan, spec);
			return -1;
		}
	}
	ADD_FAILURE() << "no convergence within " << limit << " passes:\n"
		      << formatPlan(plan(spec, intent).plan, spec);
	return -1;
}

void EngineOnLoop::restart(ToolConfig tools)
{
	real_ = std::make_unique<RealHost>(dir_, std::move(tools));
}

std::optional<MountEntry> mountAt(const std::string &path)
{
	auto mount = visibleMount(path);
	EXPECT_TRUE(mount) << mount.error().message;
	return mount ? *mount : std::nullopt;
}

} /* namespace rbdvolume::testing */
