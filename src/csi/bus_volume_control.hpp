/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * VolumeControl over the system bus: one connection for the shim's whole
 * life (bus::SharedClient), shared by every gRPC thread.
 */
#pragma once

#include <memory>

#include "bus/shared_client.hpp"
#include "csi/volume_control.hpp"

namespace rbdvolume::csi {

class BusVolumeControl final : public VolumeControl
{
public:
	static Result<std::unique_ptr<BusVolumeControl>> start();

	Result<void> up(const std::string &name, std::chrono::seconds timeout) override;
	Result<void> upWithPassphrase(const std::string &name, const Secret &passphrase,
				      std::chrono::seconds timeout) override;
	Result<void> down(const std::string &name, std::chrono::seconds timeout) override;
	Result<void> reconcile(const std::string &name, std::chrono::seconds timeout) override;
	Result<std::optional<VolumeState>> state(const std::string &name) override;
	Result<void> ping() override;

private:
	explicit BusVolumeControl(std::unique_ptr<bus::SharedClient> client)
		: client_(std::move(client))
	{
	}

	std::unique_ptr<bus::SharedClient> client_;
};

} /* namespace rbdvolume::csi */
