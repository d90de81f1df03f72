/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "host/ceph/connection_cache.hpp"

#include <vector>

namespace rbdvolume {

/* Fields joined by a byte no path, id or address contains. */
std::string identityKey(const ClusterSpec &cluster)
{
	std::string key = cluster.conf + '\n' + cluster.clientId + '\n' + cluster.keyring + '\n' +
			  cluster.keyfile;
	for (const std::string &monitor : cluster.monitors)
		key += '\n' + monitor;
	return key;
}

std::shared_ptr<ConnectionCache::Slot> ConnectionCache::slotFor(const ClusterSpec &cluster)
{
	const std::lock_guard lock(mutex_);
	std::shared_ptr<Slot> &slot = slots_[identityKey(cluster)];
	if (!slot)
		slot = std::make_shared<Slot>();
	return slot;
}

Result<std::shared_ptr<RadosConnection>> ConnectionCache::get(const ClusterSpec &cluster)
{
	const std::shared_ptr<Slot> slot = slotFor(cluster);
	const uint64_t endedBefore = slot->attempts.load();
	const std::lock_guard lock(slot->mutex);
	if (slot->connection)
		return slot->connection;
	/* A connect ended while this call waited for it: its answer is this call's too. */
	if (slot->attempts.load() != endedBefore && slot->lastFailure)
		return tl::make_unexpected(*slot->lastFailure);
	auto connection = RadosConnection::connect(cluster, timeouts_);
	if (connection) {
		slot->connection = *connection;
		slot->lastFailure.reset();
	} else {
		slot->lastFailure = connection.error();
	}
	slot->attempts.fetch_add(1);
	return connection;
}

void ConnectionCache::drop(const ClusterSpec &cluster,
			   const std::shared_ptr<RadosConnection> &connection)
{
	const std::shared_ptr<Slot> slot = slotFor(cluster);
	const std::lock_guard lock(slot->mutex);
	if (slot->connection == connection)
		slot->connection.reset();
}

size_t ConnectionCache::size() const
{
	std::vector<std::shared_ptr<Slot>> slots;
	{
		const std::lock_guard lock(mutex_);
		for (const auto &[key, slot] : slots_)
			slots.push_back(slot);
	}
	/* Without mutex_: a slot may be busy connecting for a while. */
	size_t count = 0;
	for (const auto &slot : slots) {
		const std::lock_guard lock(slot->mutex);
		if (slot->connection)
			++count;
	}
	return count;
}

} /* namespace rbdvolume */
