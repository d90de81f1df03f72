/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* ClusterHarness: the ceph suite's throw-away cluster, driven through test-cluster.sh. */
#pragma once

#include <string>
#include <utility>

namespace rbdvolume::testing {

/* What `test-cluster.sh env` prints. */
struct ClusterEnv {
	std::string dir;
	std::string conf;
	std::string monHost; /* "127.0.0.1:PORT" (msgr2) */
	std::string pool;
	std::string adminKeyring;
	std::string testId;
	std::string testKeyring;
	std::string testKeyfile;
};

class ClusterHarness
{
public:
	ClusterHarness(std::string script, std::string dir)
		: script_(std::move(script)), dir_(std::move(dir))
	{
	}

	/*
	 * Creates or restarts the cluster and reads its environment; "" or why
	 * not. The ports count only when the directory is new (0: as before).
	 */
	std::string start(int monPort = 0, int monPortV1 = 0);
	/* Stops the daemons, keeping the data for a later start(). */
	std::string stop();
	/* Stops the daemons and deletes the directory. */
	std::string purge();

	const ClusterEnv &env() const { return env_; }
	const std::string &script() const { return script_; }
	const std::string &dir() const { return dir_; }

private:
	std::string run(const std::string &command, int timeoutSeconds, std::string *out);

	std::string script_;
	std::string dir_;
	int monPort_ = 0;
	int monPortV1_ = 0;
	ClusterEnv env_;
};

/* The absolute path of TOOL along $PATH, or "". */
std::string findTool(const std::string &tool);

/* The one cluster of this test run (set up by main). */
ClusterHarness &cluster();
void setCluster(ClusterHarness *harness);

} /* namespace rbdvolume::testing */
