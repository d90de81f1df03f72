/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "ceph_fixture.hpp"

#include <atomic>
#include <fstream>
#include <unistd.h>

#include <gtest/gtest.h>

#include "cluster_harness.hpp"
#include "host/command_runner.hpp"

namespace rbdvolume::testing {

namespace {

std::string run(const std::vector<std::string> &argv)
{
	PosixCommandRunner runner;
	Command command;
	command.argv = argv;
	command.timeout = std::chrono::seconds(60);
	auto output = runner.run(command);
	if (!output) {
		ADD_FAILURE() << quoteArgv(argv) << ": " << output.error().message;
		return {};
	}
	if (!output->succeeded()) {
		ADD_FAILURE() << quoteArgv(argv) << ": " << output->describe() << "\n"
			      << output->err;
		return {};
	}
	return output->out;
}

} /* namespace */

std::string uniqueImageName(const std::string &prefix)
{
	static std::atomic<int> counter = 0; /* worker-thread tests name images too */
	return prefix + "-" + std::to_string(getpid()) + "-" + std::to_string(++counter);
}

CreateSpec createSpec(uint64_t sizeBytes, std::vector<std::string> features)
{
	CreateSpec create;
	create.sizeBytes = sizeBytes;
	create.features = std::move(features);
	return create;
}

VolumeSpec specFor(const std::string &image, std::optional<CreateSpec> create)
{
	const ClusterEnv &env = cluster().env();
	VolumeSpec spec;
	spec.name = image;
	spec.sourceFile = "(test)";
	spec.image.pool = env.pool;
	spec.image.name = image;
	spec.image.create = std::move(create);
	spec.cluster.conf = env.conf;
	spec.cluster.clientId = env.testId;
	spec.cluster.keyring = env.testKeyring;
	spec.mode = VolumeMode::Block;
	return spec;
}

std::string rbdAdmin(const std::vector<std::string> &args)
{
	std::vector<std::string> argv = { findTool("rbd"), "--conf", cluster().env().conf, "--id",
					  "admin" };
	argv.insert(argv.end(), args.begin(), args.end());
	return run(argv);
}

std::string cephAdmin(const std::vector<std::string> &args)
{
	std::vector<std::string> argv = { findTool("ceph"), "--conf", cluster().env().conf, "--id",
					  "admin" };
	argv.insert(argv.end(), args.begin(), args.end());
	return run(argv);
}

std::string randomKey()
{
	std::string key = run({ findTool("ceph-authtool"), "--gen-print-key" });
	while (!key.empty() && (key.back() == '\n' || key.back() == ' '))
		key.pop_back();
	return key;
}

std::string writeFile(const std::string &name, const std::string &text)
{
	std::string path = cluster().dir() + "/" + name;
	std::ofstream(path) << text;
	return path;
}

} /* namespace rbdvolume::testing */
