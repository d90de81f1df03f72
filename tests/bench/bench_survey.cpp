/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The daemon's reconcile pass over many converged volumes on the fake host:
 * one snapshot, then observe, diff and plan each volume (what every resync
 * tick and mount-table change costs). Target: under 20 ms for 1,000
 * volumes, growing linearly. The fake costs no I/O, so this is the engine's
 * and the daemon's own share.
 */
#include <cstdio>
#include <cstdlib>

#include "bench_main.hpp"
#include "daemon/volume_work.hpp"
#include "engine/reconcile.hpp"
#include "fake_world.hpp"
#include "journal/log.hpp"
#include "spec_builder.hpp"

namespace rbdvolume::bench {

namespace {

/* `count` volumes, each published on two targets, brought up on the fake. */
std::vector<daemon::VolumeJob> convergedVolumes(testing::FakeWorld &world, size_t count)
{
	std::vector<daemon::VolumeJob> jobs;
	Host host = world.host();
	for (size_t i = 0; i < count; i++) {
		const std::string name = "vol" + std::to_string(i);
		auto spec =
			std::make_shared<const VolumeSpec>(testing::SpecBuilder(name)
								   .target("/srv/" + name + "/a")
								   .target("/srv/" + name + "/b")
								   .build());
		world.addImage(spec->image);
		const daemon::VolumeJob job{ name, spec, Intent::Up };
		const daemon::EpisodeOutcome up = daemon::runEpisode(host, job, 4, {});
		if (up.error || !up.sighting || !up.sighting->converged) {
			std::fprintf(stderr, "bench: %s did not converge: %s\n", name.c_str(),
				     up.error ? up.error->message.c_str() : "conflicts");
			bench::abandon();
		}
		jobs.push_back(job);
	}
	return jobs;
}

int run()
{
	/* Bringing the fake volumes up writes a line per step: not what is timed. */
	log::setLevel(log::Level::Warning);
	std::printf("%-8s %12s %14s %10s\n", "volumes", "pass (ms)", "per volume (us)",
		    "converged");
	for (const size_t count :
	     { size_t{ 250 }, size_t{ 500 }, size_t{ 1000 }, size_t{ 2000 } }) {
		testing::FakeWorld world;
		const std::vector<daemon::VolumeJob> jobs = convergedVolumes(world, count);
		Host host = world.host();
		size_t converged = 0;
		const double micros = bench::medianMicros(runs(), [&] {
			const auto entries = daemon::survey(host, jobs);
			converged = 0;
			for (const daemon::SurveyEntry &entry : entries)
				converged += entry.sighting && entry.sighting->converged ? 1U : 0U;
		});
		std::printf("%-8zu %12.2f %14.2f %10zu\n", count, micros / 1000.0,
			    micros / static_cast<double>(count), converged);
		if (converged != count)
			return 1;
	}
	return 0;
}

} /* namespace */

} /* namespace rbdvolume::bench */

int main()
{
	return rbdvolume::bench::run();
}
