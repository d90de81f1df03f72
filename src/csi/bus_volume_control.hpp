/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* VolumeControl over the system bus: one short-lived connection per call, so gRPC threads share nothing. */
#pragma once

#include "csi/volume_control.hpp"

namespace rbdvolume::csi {

class BusVolumeControl final : public VolumeControl
{
public:
	Result<void> up(const std::string &name, std::chrono::seconds timeout) override;
	Result<void> down(const std::string &name, std::chrono::seconds timeout) override;
	Result<void> reconcile(const std::string &name, std::chrono::seconds timeout) override;
	Result<std::optional<VolumeState>> state(const std::string &name) override;
	Result<void> ping() override;
};

} /* namespace rbdvolume::csi */
