/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* RadosConnection: one connected rados_t for one cluster identity. */
#pragma once

#include <memory>
#include <string>

#include "common/result.hpp"
#include "config/volume_spec.hpp"
#include "host/ceph/ceph_errors.hpp"
#include "host/ceph/ceph_handles.hpp"
#include "host/ceph/ceph_timeouts.hpp"

namespace rbdvolume {

/*
 * A rados_t is safe to share between threads; its I/O contexts are not
 * (their namespace is a setting), so each call opens its own. Dropping the
 * last reference shuts the handle down.
 */
class RadosConnection
{
public:
	/*
	 * Reads cluster.conf (a missing file is fine when monitors are given),
	 * applies the identity, key source, monitors and timeouts, connects.
	 */
	static Result<std::shared_ptr<RadosConnection>> connect(const ClusterSpec &cluster,
								const CephTimeouts &timeouts);

	/* A fresh I/O context on the pool, in the namespace ("" is the default one). */
	Result<IoCtxPtr> openPool(const std::string &pool, const std::string &radosNamespace) const;

	/* A monitor command (JSON, as `ceph` sends it): its output, bounded by rados_mon_op_timeout. */
	Result<std::string> monCommand(const std::string &command) const;

	/* For the messages of calls made through this connection. */
	const CallContext &context() const { return context_; }

	RadosConnection(RadosPtr handle, CallContext context);

private:
	RadosPtr handle_;
	CallContext context_;
};

} /* namespace rbdvolume */
