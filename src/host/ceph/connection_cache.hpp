/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* ConnectionCache: one RadosConnection per cluster identity, shared by worker threads. */
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "host/ceph/rados_connection.hpp"

namespace rbdvolume {

/*
 * Connecting costs a monitor round trip and a set of messenger threads, so a
 * connection is kept per identity (conf, client, key source, monitors) and
 * reused. A failed connect is not kept: the next call tries again. Callers for
 * one identity wait for a single connect; other identities are not held up.
 */
class ConnectionCache
{
public:
	explicit ConnectionCache(CephTimeouts timeouts) : timeouts_(timeouts) {}

	Result<std::shared_ptr<RadosConnection>> get(const ClusterSpec &cluster);

	/* Forgets `connection` if it is still the cached one (others may hold it still). */
	void drop(const ClusterSpec &cluster, const std::shared_ptr<RadosConnection> &connection);

	/* How many identities have a live connection; for tests. */
	size_t size() const;

private:
	struct Slot {
		std::mutex mutex; /* held while connecting */
		std::shared_ptr<RadosConnection> connection;
	};

	std::shared_ptr<Slot> slotFor(const ClusterSpec &cluster);

	CephTimeouts timeouts_;
	mutable std::mutex mutex_; /* guards slots_ only, never held while connecting */
	std::map<std::string, std::shared_ptr<Slot>> slots_;
};

} /* namespace rbdvolume */
