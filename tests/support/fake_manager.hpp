/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A fake rbd-volumed on a bus: org.rbdvolume1 with canned volumes, on its own sd-event thread. */
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "bus/volume_properties.hpp"
#include "common/unique_fd.hpp"

namespace rbdvolume::testing {

/* How the fake answers one call: progress first, then an error or success. */
struct ReplyPlan {
	/* (volume, Activity) set one after the other; "" makes the volume idle. */
	std::vector<std::pair<std::string, std::string>> activities;
	std::string errorName; /* "" for success */
	std::string errorMessage;
	bool neverReply = false;
	uint64_t replyDelayUsec = 0; /* after the activities, before the reply */
	bool once = false;	     /* the next call only; later ones get the default answer */
};

class FakeManager
{
public:
	/* The volumes it serves, in this (unsorted) order. */
	explicit FakeManager(std::vector<bus::VolumeProperties> volumes);
	~FakeManager();
	FakeManager(const FakeManager &) = delete;
	FakeManager &operator=(const FakeManager &) = delete;
	FakeManager(FakeManager &&) = delete;
	FakeManager &operator=(FakeManager &&) = delete;

	/* Connects to `address`, owns org.rbdvolume1 and serves; "" or why it failed. */
	std::string start(const std::string &address);

	/* How to answer `member` ("Up", "Down", "Reconcile", "Reload") for volume `name`. */
	void plan(const std::string &member, const std::string &name, ReplyPlan reply);

	/*
	 * Every change call received: "Up db wait", "Down db nowait", "Reconcile db",
	 * "Reconcile (all)", "Reload".
	 */
	std::vector<std::string> calls() const;
	void clearCalls();

	/* For the server thread's callbacks. */
	struct Server;

private:
	std::unique_ptr<Server> server_;
	std::thread thread_;
	UniqueFd stopFd_;
	mutable std::mutex mutex_;
	std::map<std::pair<std::string, std::string>, ReplyPlan> plans_;
	std::vector<std::string> calls_;

	friend struct Server;
};

} /* namespace rbdvolume::testing */
