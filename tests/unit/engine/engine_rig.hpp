/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Rig: one volume on a FakeWorld, driven through the real engine pass by pass. */
#pragma once

#include <string>

#include "config/volume_spec.hpp"
#include "engine/reconcile.hpp"
#include "fake_world.hpp"
#include "printers.hpp"

namespace rbdvolume::testing {

class Rig
{
public:
	explicit Rig(VolumeSpec volume, Intent wanted = Intent::Up)
		: spec(std::move(volume)), intent(wanted)
	{
	}
	Rig(const Rig &) = delete;
	Rig &operator=(const Rig &) = delete;
	Rig(Rig &&) = delete;
	Rig &operator=(Rig &&) = delete;
	~Rig() = default;

	/* Observe, plan, execute: what the daemon does on each trigger. */
	Result<PassOutcome> pass();
	/* Observe and plan only, as `rbd-volumectl plan` does. */
	Result<PassOutcome> dryRun();
	/* formatPlan() of a dry run, or "error: ..." when observing failed. */
	std::string planText();
	/* Runs passes until one plans nothing; the number of passes, or 0 when `bound` was not enough. */
	unsigned converge(unsigned bound = 3);

	FakeWorld world;
	VolumeSpec spec;
	Intent intent;
};

/* The ports a step reaches, for messages: "unmount /srv/a", "map rbd/vol". */
std::string describeSteps(const Plan &plan);

} /* namespace rbdvolume::testing */
