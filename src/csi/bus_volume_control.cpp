/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "csi/bus_volume_control.hpp"

#include "bus/client.hpp"

namespace rbdvolume::csi {

namespace {

bus::WaitSettings waitFor(std::chrono::seconds timeout)
{
	bus::WaitSettings settings;
	/* At least a second: 0 would mean "as long as it takes". */
	settings.timeoutSeconds = static_cast<uint64_t>(std::max<int64_t>(timeout.count(), 1));
	return settings;
}

Result<void> setIntent(const char *member, const std::string &name, std::chrono::seconds timeout)
{
	auto client = bus::Client::open();
	if (!client)
		return tl::make_unexpected(client.error());
	return client->setIntent(member, name, true, waitFor(timeout));
}

} /* namespace */

Result<void> BusVolumeControl::up(const std::string &name, std::chrono::seconds timeout)
{
	return setIntent("Up", name, timeout);
}

Result<void> BusVolumeControl::down(const std::string &name, std::chrono::seconds timeout)
{
	return setIntent("Down", name, timeout);
}

Result<void> BusVolumeControl::reconcile(const std::string &name, std::chrono::seconds timeout)
{
	auto client = bus::Client::open();
	if (!client)
		return tl::make_unexpected(client.error());
	return client->reconcile(name, waitFor(timeout));
}

Result<std::optional<VolumeState>> BusVolumeControl::state(const std::string &name)
{
	auto client = bus::Client::open();
	if (!client)
		return tl::make_unexpected(client.error());
	auto path = client->volumePath(name);
	if (!path && path.error().code == Errc::NotFound)
		return std::optional<VolumeState>{};
	if (!path)
		return tl::make_unexpected(path.error());
	auto view = client->volumeProperties(*path);
	if (!view)
		return tl::make_unexpected(view.error());
	VolumeState state{ bus::phaseName(view->phase),
			   bus::stageName(view->stage),
			   view->activity,
			   view->device,
			   {},
			   {} };
	for (const bus::Condition &condition : view->conditions)
		state.conditions.emplace_back(condition.type, condition.message);
	if (!view->lastErrorName.empty() || !view->lastErrorMessage.empty())
		state.lastError = view->lastErrorName + ": " + view->lastErrorMessage;
	return std::optional<VolumeState>{ std::move(state) };
}

Result<void> BusVolumeControl::ping()
{
	auto client = bus::Client::open();
	if (!client)
		return tl::make_unexpected(client.error());
	auto volumes = client->listVolumes();
	if (!volumes)
		return tl::make_unexpected(volumes.error());
	return {};
}

} /* namespace rbdvolume::csi */
