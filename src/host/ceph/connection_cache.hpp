/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* ConnectionCache: one RadosConnection per cluster identity, shared by worker threads. */
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "host/ceph/rados_connection.hpp"

namespace rbdvolume {

/* What tells one cluster identity (conf, client, key source, monitors) from another. */
std::string identityKey(const ClusterSpec &cluster);

/*
 * Connecting costs a monitor round trip and a set of messenger threads, so a
 * connection is kept per identity (conf, client, key source, monitors) and
 * reused. Callers for one identity wait for a single connect, and share its
 * failure: with the cluster unreachable (at boot), N volumes wait one connect
 * timeout, not N in turn. A failure is not kept past that: a call that comes
 * after it tries again. Other identities are not held up.
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
		std::atomic<uint64_t> attempts = 0; /* connects that ended */
		std::optional<Error> lastFailure;   /* the last one's, if it failed */
	};

	std::shared_ptr<Slot> slotFor(const ClusterSpec &cluster);

	CephTimeouts timeouts_;
	mutable std::mutex mutex_; /* guards slots_ only, never held while connecting */
	std::map<std::string, std::shared_ptr<Slot>> slots_;
};

} /* namespace rbdvolume */
