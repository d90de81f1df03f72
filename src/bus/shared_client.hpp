/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A client of rbd-volumed for many threads at once (the CSI shim's gRPC
 * threads): one connection to the system bus for its whole life, served by
 * a thread of its own that runs the connection's event loop. Each call is
 * bounded by the timeout it is given and waits beside the others, never
 * behind them. A connection that dropped (the bus restarted) is opened again
 * by the next call.
 */
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bus/volume_properties.hpp"
#include "common/result.hpp"
#include "common/secret.hpp"

namespace rbdvolume::bus {

class SharedClient
{
public:
	/* Starts the thread; the connection is made by the first call. */
	static Result<std::unique_ptr<SharedClient>> start();
	/* Calls still waiting are answered ShuttingDown. */
	~SharedClient();
	SharedClient(const SharedClient &) = delete;
	SharedClient &operator=(const SharedClient &) = delete;
	SharedClient(SharedClient &&) = delete;
	SharedClient &operator=(SharedClient &&) = delete;

	/* Manager.Up or Manager.Down (`member`) of `name`, waiting for convergence. */
	Result<void> setIntent(const char *member, const std::string &name,
			       std::chrono::milliseconds timeout);
	/*
	 * Manager.UpWithPassphrase: Up, handing the daemon the passphrase of a
	 * volume whose [encryption] says given-at-up. The message is marked
	 * sensitive: sd-bus wipes it when it is freed.
	 */
	Result<void> upWithPassphrase(const std::string &name, const Secret &passphrase,
				      std::chrono::milliseconds timeout);
	/* Manager.Reconcile of `name`, waiting for its pass. */
	Result<void> reconcile(const std::string &name, std::chrono::milliseconds timeout);
	/* The volume's properties; nullopt when rbd-volumed knows no such volume. */
	Result<std::optional<VolumeProperties>> volume(const std::string &name,
						       std::chrono::milliseconds timeout);
	/* Manager.ListVolumes, in the daemon's order. */
	Result<std::vector<VolumeSummary>> listVolumes(std::chrono::milliseconds timeout);

	struct Loop;

private:
	explicit SharedClient(std::unique_ptr<Loop> loop);

	std::unique_ptr<Loop> loop_;
};

} /* namespace rbdvolume::bus */
