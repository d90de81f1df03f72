/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * StepGate: what a stop may leave running. A step that writes a filesystem
 * (mkfs, fsck, a grow) must never be cut short, and workers begin one
 * without asking the loop: so each passes this gate, on its worker, as the
 * step begins and once it ended, and a stop that leaves the rest of the work
 * in flight first closes the gate, which it can only do while no such step
 * runs. A worker that would begin one after that waits here until the
 * process ends (or, in tests, until the gate opens again).
 */
#pragma once

#include <condition_variable>
#include <mutex>

namespace rbdvolume::daemon {

class StepGate
{
public:
	/* On a worker, before a filesystem step: waits while the gate is closed. */
	void enter();
	/* On a worker, once that step ended. */
	void leave();
	/* On the loop: closes the gate unless a filesystem step runs; whether it is closed. */
	bool closeWhenIdle();
	/* Lets waiting workers go on: their Reconciler goes away without the process. */
	void open();

private:
	std::mutex mutex_;
	std::condition_variable opened_;
	unsigned inside_ = 0;
	bool closed_ = false;
};

} /* namespace rbdvolume::daemon */
