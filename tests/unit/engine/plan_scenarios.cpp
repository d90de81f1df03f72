/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "plan_scenarios.hpp"

#include <gtest/gtest.h>

#include "spec_builder.hpp"

namespace rbdvolume::testing {

namespace {

/* A filesystem volume created on demand, published read-write and read-only. */
SpecBuilder dataVolume()
{
	SpecBuilder builder("data");
	builder.create(10 * GiB).target("/srv/data").target("/srv/backup", true);
	return builder;
}

std::unique_ptr<Rig> rigFor(const SpecBuilder &builder, Intent intent = Intent::Up)
{
	return std::make_unique<Rig>(builder.build(), intent);
}

/* Brings the volume up (or down) through the engine, as the daemon would. */
std::unique_ptr<Rig> settled(std::unique_ptr<Rig> rig)
{
	EXPECT_NE(rig->converge(), 0U) << "the scene did not settle:\n" << rig->world.describe();
	return rig;
}

/* One pass that is expected to stop at a refusal, leaving the image mapped. */
std::unique_ptr<Rig> refusedOnce(std::unique_ptr<Rig> rig)
{
	auto outcome = rig->pass();
	EXPECT_TRUE(outcome && !outcome->report.ok()) << rig->world.describe();
	EXPECT_NE(rig->world.deviceOf(rig->spec.image), "");
	return rig;
}

std::vector<PlanScenario> makeScenarios()
{
	std::vector<PlanScenario> all;
	all.push_back({ "fresh-up", [] { return rigFor(dataVolume()); } });
	all.push_back({ "converged", [] { return settled(rigFor(dataVolume())); } });
	all.push_back({ "down-converged", [] {
			       auto rig = settled(rigFor(dataVolume()));
			       rig->intent = Intent::Down;
			       return settled(std::move(rig));
		       } });
	all.push_back({ "target-added", [] {
			       auto rig = settled(rigFor(dataVolume()));
			       rig->spec = dataVolume().target("/srv/logs").build();
			       return rig;
		       } });
	all.push_back(
		{ "target-removed", [] {
			 auto rig = settled(rigFor(dataVolume()));
			 rig->spec =
				 SpecBuilder("data").create(10 * GiB).target("/srv/data").build();
			 return rig;
		 } });
	all.push_back({ "staging-lost", [] {
			       auto rig = settled(rigFor(dataVolume()));
			       EXPECT_TRUE(rig->world.unmountByHand(rig->spec.staging.path));
			       return rig;
		       } });
	all.push_back({ "down-from-published", [] {
			       auto rig = settled(rigFor(dataVolume()));
			       rig->intent = Intent::Down;
			       return rig;
		       } });
	all.push_back({ "snapshot-fresh", [] {
			       auto rig = rigFor(SpecBuilder("golden")
							 .image("rbd", "base")
							 .snapshot("v1")
							 .target("/srv/golden"));
			       rig->world.addImage(rig->spec.image, "ext4");
			       return rig;
		       } });
	all.push_back({ "block-fresh", [] {
			       return rigFor(SpecBuilder("raw").block().create(4 * GiB).target(
				       "/var/lib/raw/disk"));
		       } });
	all.push_back({ "block-converged", [] {
			       return settled(
				       rigFor(SpecBuilder("raw").block().create(4 * GiB).target(
					       "/var/lib/raw/disk")));
		       } });
	all.push_back({ "foreign-filesystem", [] {
			       auto rig = rigFor(dataVolume());
			       rig->world.addImage(rig->spec.image, "xfs");
			       return refusedOnce(std::move(rig));
		       } });
	all.push_back({ "unknown-data", [] {
			       auto rig = rigFor(dataVolume());
			       rig->world.addImage(rig->spec.image);
			       rig->world.setData(rig->spec.image);
			       return refusedOnce(std::move(rig));
		       } });
	all.push_back({ "ambivalent-probe", [] {
			       auto rig = rigFor(dataVolume());
			       rig->world.addImage(rig->spec.image, "ext4,dos", true);
			       return refusedOnce(std::move(rig));
		       } });
	all.push_back({ "lost-filesystem", [] {
			       /*
				* Random data over the filesystem we made, while the volume was
				* down: blank to libblkid, still ours.
				*/
			       auto rig = settled(rigFor(dataVolume()));
			       rig->intent = Intent::Down;
			       rig = settled(std::move(rig));
			       rig->world.setSignature(rig->spec.image, "");
			       rig->intent = Intent::Up;
			       /* The next up maps it; fsck then finds no ext4 and the pass stops. */
			       EXPECT_FALSE(rig->pass()->report.ok());
			       return rig;
		       } });
	all.push_back({ "spec-size-grew", [] {
			       /* The spec asks for 20 GiB of a published 10 GiB volume. */
			       auto rig = settled(rigFor(dataVolume()));
			       rig->spec.image.create->sizeBytes = uint64_t{ 20 } << 30;
			       return rig;
		       } });
	all.push_back({ "image-grew", [] {
			       /* `rbd resize` under a published volume: it grows online, in place. */
			       auto rig = settled(rigFor(dataVolume()));
			       rig->world.resizeImage(rig->spec.image, uint64_t{ 20 } << 30);
			       return rig;
		       } });
	all.push_back(
		{ "stale-mapping", [] {
			 auto rig = settled(rigFor(dataVolume()));
			 EXPECT_TRUE(rig->world.unmapByHand(rig->world.deviceOf(rig->spec.image)));
			 return rig;
		 } });
	all.push_back({ "foreign-mapping", [] {
			       auto rig = rigFor(dataVolume());
			       rig->world.addImage(rig->spec.image, "ext4");
			       rig->world.mapForeign(rig->spec.image);
			       return rig;
		       } });
	all.push_back({ "foreign-mount-staging", [] {
			       auto rig = rigFor(dataVolume());
			       rig->world.mountForeign(rig->spec.staging.path, "/dev/sdb");
			       rig->world.mountForeign("/srv/data", "/dev/sdc", "xfs");
			       return rig;
		       } });
	all.push_back({ "foreign-mount-target", [] {
			       auto rig = rigFor(dataVolume());
			       rig->world.mountForeign("/srv/data", "/dev/sdc", "xfs");
			       return rig;
		       } });
	all.push_back({ "symlinked-target", [] {
			       auto rig = rigFor(dataVolume());
			       rig->world.addSymlink("/srv/data");
			       return rig;
		       } });
	all.push_back({ "file-as-target", [] {
			       auto rig = rigFor(dataVolume());
			       rig->world.addFile("/srv/data");
			       return rig;
		       } });
	all.push_back({ "symlinked-staging", [] {
			       auto rig = rigFor(dataVolume());
			       rig->world.addSymlink("/run/rbd-volume/staging");
			       return rig;
		       } });
	all.push_back({ "foreign-mount-covers-target-down", [] {
			       /* Someone mounted over our bind: ours is out of reach and keeps the device busy. */
			       auto rig = settled(rigFor(dataVolume()));
			       rig->world.mountForeign("/srv/data", "/dev/sdc", "xfs");
			       rig->intent = Intent::Down;
			       return rig;
		       } });
	all.push_back({ "read-only-mismatch", [] {
			       auto rig = settled(rigFor(dataVolume()));
			       rig->spec = dataVolume().readOnly().build();
			       return rig;
		       } });
	all.push_back({ "mode-mismatch", [] {
			       auto rig = settled(rigFor(dataVolume()));
			       rig->spec = dataVolume().block().build();
			       return rig;
		       } });
	all.push_back({ "format-never-blank", [] {
			       auto rig = rigFor(dataVolume().format(FormatPolicy::Never));
			       rig->world.addImage(rig->spec.image);
			       return refusedOnce(std::move(rig));
		       } });
	all.push_back({ "format-never-fresh", [] {
			       auto rig = rigFor(dataVolume().format(FormatPolicy::Never));
			       rig->world.addImage(rig->spec.image);
			       return rig;
		       } });
	return all;
}

} /* namespace */

const std::vector<PlanScenario> &planScenarios()
{
	static const std::vector<PlanScenario> scenarios = makeScenarios();
	return scenarios;
}

} /* namespace rbdvolume::testing */
