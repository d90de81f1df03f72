/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "host/ceph/rados_connection.hpp"

#include <array>
#include <cerrno>
#include <unistd.h>

#include "common/errno_text.hpp"
#include "host/ceph/monitor_hosts.hpp"

namespace rbdvolume {

namespace {

constexpr const char *NoMonitors = "(no monitors)";

std::string clientName(const ClusterSpec &cluster)
{
	return "client." + cluster.clientId;
}

/* Where the key comes from, for messages; never the key itself. */
std::string keySource(const ClusterSpec &cluster)
{
	if (!cluster.keyfile.empty())
		return "keyfile " + cluster.keyfile;
	if (!cluster.keyring.empty())
		return "keyring " + cluster.keyring;
	return "the keyring named in " + cluster.conf;
}

std::string joined(const std::vector<std::string> &items, const char *separator)
{
	std::string out;
	for (const std::string &item : items)
		out += (out.empty() ? "" : separator) + item;
	return out;
}

Result<RadosPtr> createHandle(const ClusterSpec &cluster)
{
	rados_t handle = nullptr;
	const int ret = rados_create2(&handle, "ceph", clientName(cluster).c_str(), 0);
	if (ret < 0)
		return failErrno("creating a librados handle for " + clientName(cluster), -ret);
	return RadosPtr(handle);
}

Result<void> readConf(rados_t handle, const ClusterSpec &cluster)
{
	const int ret = rados_conf_read_file(handle, cluster.conf.c_str());
	if (ret == 0)
		return {};
	/* Monitors and a key source in the spec are enough without a ceph.conf. */
	if (ret == -ENOENT && !cluster.monitors.empty())
		return {};
	if (ret == -ENOENT)
		return fail(Errc::NotFound,
			    "ceph config " + cluster.conf +
				    " does not exist and the spec names no monitors",
			    ENOENT);
	return fail(Errc::InvalidArgument,
		    "cannot read ceph config " + cluster.conf + ": " + errnoText(-ret), -ret);
}

Result<void> setOption(rados_t handle, const char *option, const std::string &value)
{
	const int ret = rados_conf_set(handle, option, value.c_str());
	if (ret < 0)
		return fail(Errc::InvalidArgument,
			    std::string("setting librados option ") + option + ": " +
				    errnoText(-ret),
			    -ret);
	return {};
}

/* librados says only ENOENT about a key file it cannot read: say which and why. */
Result<void> checkReadable(const char *what, const std::string &path)
{
	if (access(path.c_str(), R_OK) == 0)
		return {};
	const int err = errno;
	return fail(err == ENOENT ? Errc::NotFound : Errc::PermissionDenied,
		    std::string("cannot read the ") + what + " " + path + ": " + errnoText(err),
		    err);
}

Result<void> setKeySource(rados_t handle, const ClusterSpec &cluster)
{
	/* keyfile and key override a keyring; a stale keyring in the conf must not. */
	if (!cluster.keyfile.empty()) {
		auto done = checkReadable("keyfile", cluster.keyfile);
		if (done)
			done = setOption(handle, "keyring", "");
		return done ? setOption(handle, "keyfile", cluster.keyfile) : done;
	}
	if (!cluster.keyring.empty()) {
		auto done = checkReadable("keyring", cluster.keyring);
		if (done)
			done = setOption(handle, "keyfile", "");
		if (done)
			done = setOption(handle, "key", "");
		return done ? setOption(handle, "keyring", cluster.keyring) : done;
	}
	return {};
}

Result<void> setTimeouts(rados_t handle, const CephTimeouts &timeouts)
{
	const std::string connect = std::to_string(timeouts.connect.count());
	const std::string operation = std::to_string(timeouts.operation.count());
	auto done = setOption(handle, "client_mount_timeout", connect);
	if (done)
		done = setOption(handle, "rados_mon_op_timeout", operation);
	if (done)
		done = setOption(handle, "rados_osd_op_timeout", operation);
	return done;
}

Result<void> configure(rados_t handle, const ClusterSpec &cluster, const CephTimeouts &timeouts)
{
	auto done = readConf(handle, cluster);
	if (done && !cluster.monitors.empty())
		done = setOption(handle, "mon_host", joined(cluster.monitors, ","));
	if (done)
		done = setKeySource(handle, cluster);
	if (done)
		done = setTimeouts(handle, timeouts);
	return done;
}

std::string monHost(rados_t handle)
{
	std::array<char, 4096> buffer{};
	if (rados_conf_get(handle, "mon_host", buffer.data(), buffer.size()) < 0 || !buffer[0])
		return NoMonitors;
	return buffer.data();
}

Error connectError(int ret, const ClusterSpec &cluster, const CallContext &context)
{
	const int err = -ret;
	const std::string as = " as " + context.client;
	switch (err) {
	case ETIMEDOUT:
		return { Errc::Timeout,
			 "cannot reach the cluster at " + context.monitors + " within " +
				 std::to_string(context.timeout.count()) + " s (connecting" + as +
				 ")",
			 err };
	case EACCES:
	case EPERM:
		return { Errc::PermissionDenied,
			 "authentication" + as + " failed at " + context.monitors +
				 ": check the key in " + keySource(cluster) + " (" +
				 errnoText(err) + ")",
			 err };
	case ENOENT:
		if (context.monitors == NoMonitors)
			return { Errc::NotFound,
				 "cannot connect" + as + ": " + cluster.conf +
					 " names no monitors (mon host) and neither does the spec",
				 err };
		return { Errc::NotFound,
			 "cannot connect" + as + ": no key for it in " + keySource(cluster), err };
	case EINVAL:
		/* A name that does not resolve yet is a cluster not reachable yet: try again. */
		if (auto host = unresolvedMonitor(context.monitors))
			return { Errc::Timeout,
				 "cannot reach the cluster at " + context.monitors +
					 ": the monitor host name " + host->name +
					 " does not resolve: " + host->reason + " (connecting" +
					 as + ")",
				 err };
		return { Errc::InvalidArgument,
			 "cannot connect" + as + ": " + errnoText(err) + " (is the key in " +
				 keySource(cluster) + " valid?)",
			 err };
	default:
		return { Errc::Io,
			 "cannot connect" + as + " to " + context.monitors + ": " + errnoText(err),
			 err };
	}
}

} /* namespace */

RadosConnection::RadosConnection(RadosPtr handle, CallContext context)
	: handle_(std::move(handle)), context_(std::move(context))
{
}

Result<std::shared_ptr<RadosConnection>> RadosConnection::connect(const ClusterSpec &cluster,
								  const CephTimeouts &timeouts)
{
	auto handle = createHandle(cluster);
	if (!handle)
		return tl::make_unexpected(handle.error());
	auto configured = configure(handle->get(), cluster, timeouts);
	if (!configured)
		return tl::make_unexpected(configured.error());

	CallContext context{ clientName(cluster), monHost(handle->get()), timeouts.connect };
	const int ret = rados_connect(handle->get());
	if (ret < 0)
		return tl::make_unexpected(connectError(ret, cluster, context));
	context.timeout = timeouts.operation;
	return std::make_shared<RadosConnection>(std::move(*handle), std::move(context));
}

Result<IoCtxPtr> RadosConnection::openPool(const std::string &pool,
					   const std::string &radosNamespace) const
{
	rados_ioctx_t ioctx = nullptr;
	const int ret = rados_ioctx_create(handle_.get(), pool.c_str(), &ioctx);
	if (ret == -ENOENT)
		return fail(Errc::NotFound, "pool '" + pool + "' does not exist", ENOENT);
	if (ret < 0)
		return tl::make_unexpected(callError(ret, "opening pool '" + pool + "'", context_));
	IoCtxPtr owned(ioctx);
	rados_ioctx_set_namespace(owned.get(), radosNamespace.c_str());
	return owned;
}

Result<std::string> RadosConnection::monCommand(const std::string &command) const
{
	std::array<const char *, 1> argv = { command.c_str() };
	char *out = nullptr;
	size_t outLength = 0;
	char *status = nullptr;
	size_t statusLength = 0;
	const int ret = rados_mon_command(handle_.get(), argv.data(), argv.size(), "", 0, &out,
					  &outLength, &status, &statusLength);
	std::string text = out ? std::string(out, outLength) : std::string();
	const std::string said = status ? std::string(status, statusLength) : std::string();
	rados_buffer_free(out);
	rados_buffer_free(status);
	if (ret < 0)
		return tl::make_unexpected(callError(
			ret, "monitor command " + command + (said.empty() ? "" : " (" + said + ")"),
			context_));
	return text;
}

} /* namespace rbdvolume */
