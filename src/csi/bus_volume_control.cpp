/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "csi/bus_volume_control.hpp"

#include <algorithm>

namespace rbdvolume::csi {

namespace {

/* A question that does not wait for work: as long as sd-bus would give any call. */
constexpr std::chrono::seconds QueryTimeout{ 25 };

/* At least a second: a call needs the time to reach the daemon and come back. */
std::chrono::milliseconds atLeastASecond(std::chrono::seconds timeout)
{
	return std::max<std::chrono::milliseconds>(timeout, std::chrono::seconds(1));
}

} /* namespace */

Result<std::unique_ptr<BusVolumeControl>> BusVolumeControl::start()
{
	auto client = bus::SharedClient::start();
	if (!client)
		return tl::make_unexpected(client.error());
	return std::unique_ptr<BusVolumeControl>(new BusVolumeControl(std::move(*client)));
}

Result<void> BusVolumeControl::up(const std::string &name, std::chrono::seconds timeout)
{
	return client_->setIntent("Up", name, atLeastASecond(timeout));
}

Result<void> BusVolumeControl::upWithPassphrase(const std::string &name, const Secret &passphrase,
						std::chrono::seconds timeout)
{
	return client_->upWithPassphrase(name, passphrase, atLeastASecond(timeout));
}

Result<void> BusVolumeControl::down(const std::string &name, std::chrono::seconds timeout)
{
	return client_->setIntent("Down", name, atLeastASecond(timeout));
}

Result<void> BusVolumeControl::reconcile(const std::string &name, std::chrono::seconds timeout)
{
	return client_->reconcile(name, atLeastASecond(timeout));
}

Result<std::optional<VolumeState>> BusVolumeControl::state(const std::string &name)
{
	return client_->volume(name, QueryTimeout);
}

Result<void> BusVolumeControl::ping()
{
	auto volumes = client_->listVolumes(QueryTimeout);
	if (!volumes)
		return tl::make_unexpected(volumes.error());
	return {};
}

} /* namespace rbdvolume::csi */
