/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "cluster_harness.hpp"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <sstream>
#include <unistd.h>

#include "host/command_runner.hpp"

namespace rbdvolume::testing {

namespace {

ClusterHarness *current = nullptr;

std::map<std::string, std::string> keyValues(const std::string &text)
{
	std::map<std::string, std::string> values;
	std::istringstream lines(text);
	std::string line;
	while (std::getline(lines, line)) {
		const size_t equals = line.find('=');
		if (equals != std::string::npos)
			values[line.substr(0, equals)] = line.substr(equals + 1);
	}
	return values;
}

/* The runner passes only PATH and LC_ALL; the ceph CLI also wants a HOME. */
std::vector<std::string> scriptEnv(int monPort, int monPortV1)
{
	const char *home = std::getenv("HOME");
	std::vector<std::string> env = { std::string("HOME=") + (home ? home : "/") };
	if (monPort > 0)
		env.push_back("RBDV_CEPH_MON_PORT=" + std::to_string(monPort));
	if (monPortV1 > 0)
		env.push_back("RBDV_CEPH_MON_PORT_V1=" + std::to_string(monPortV1));
	for (const char *knob : { "RBDV_CEPH_TIMEOUT", "RBDV_CEPH_OSD_BYTES" }) {
		if (const char *value = std::getenv(knob))
			env.push_back(std::string(knob) + "=" + value);
	}
	return env;
}

} /* namespace */

std::string findTool(const std::string &tool)
{
	const char *path = std::getenv("PATH");
	const std::string dirs = path ? path : "/usr/sbin:/usr/bin:/sbin:/bin";
	size_t start = 0;
	while (start <= dirs.size()) {
		const size_t colon = std::min(dirs.find(':', start), dirs.size());
		std::string file = dirs.substr(start, colon - start) + "/" + tool;
		if (colon > start && access(file.c_str(), X_OK) == 0)
			return file;
		start = colon + 1;
	}
	return {};
}

ClusterHarness &cluster()
{
	return *current;
}

void setCluster(ClusterHarness *harness)
{
	current = harness;
}

std::string ClusterHarness::run(const std::string &command, int timeoutSeconds, std::string *out)
{
	PosixCommandRunner runner;
	Command call;
	call.argv = { "/bin/bash", script_, command, dir_ };
	call.timeout = std::chrono::seconds(timeoutSeconds);
	call.env = scriptEnv(monPort_, monPortV1_);
	auto output = runner.run(call);
	if (!output)
		return quoteArgv(call.argv) + ": " + output.error().message;
	if (out)
		*out = output->out;
	if (!output->succeeded())
		return quoteArgv(call.argv) + ": " + output->describe() + "\n" + output->err;
	return {};
}

std::string ClusterHarness::start(int monPort, int monPortV1)
{
	if (monPort > 0)
		monPort_ = monPort;
	if (monPortV1 > 0)
		monPortV1_ = monPortV1;
	std::string out;
	/* The script bounds itself (120 s); this only catches a script that hangs. */
	std::string error = run("start", 180, &out);
	if (!error.empty())
		return error;
	auto values = keyValues(out);
	env_ = ClusterEnv{ dir_,
			   values["CEPH_CONF"],
			   values["CEPH_MON_HOST"],
			   values["CEPH_POOL"],
			   values["CEPH_ADMIN_KEYRING"],
			   values["CEPH_TEST_ID"],
			   values["CEPH_TEST_KEYRING"],
			   values["CEPH_TEST_KEYFILE"] };
	if (env_.conf.empty() || env_.testKeyring.empty() || env_.pool.empty())
		return "test-cluster.sh start printed no usable environment:\n" + out;
	return {};
}

std::string ClusterHarness::stop()
{
	return run("stop", 120, nullptr);
}

std::string ClusterHarness::purge()
{
	return run("purge", 120, nullptr);
}

} /* namespace rbdvolume::testing */
