/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The Images port over the librados and librbd C API. */
#pragma once

#include "engine/ports.hpp"
#include "host/ceph/ceph_timeouts.hpp"
#include "host/ceph/connection_cache.hpp"
#include "host/ceph/image_info.hpp"
#include "host/ceph/pool_watch.hpp"

namespace rbdvolume {

/*
 * Talks to each cluster identity the specs name through one cached
 * connection; safe to call from several threads. Every call is bounded by
 * the timeouts, so an unreachable cluster is Errc::Timeout, never a hang.
 * Inspection opens images read-only and so never shows up as a watcher.
 */
class LibrbdCluster : public Images
{
public:
	explicit LibrbdCluster(CephTimeouts timeouts = {});

	/*
	 * Missing: created from [image.create] (Changed), else NotFound.
	 * Existing: Conflict when its features differ from the listed ones or
	 * it is larger than the spec's size (never shrunk); grown when smaller.
	 * With a snapshot in the spec, only its existence is checked.
	 */
	Result<ImageChange> ensureImage(const ImageRequest &request) override;

	/* The image (or the spec's snapshot of it) as a read-only open sees it. */
	virtual Result<ImageInfo> imageInfo(const ImageRequest &request);

	/*
	 * Before a read-write map: Busy, naming them, when any other client
	 * uses the image (watches its header; a live exclusive-lock owner always
	 * does). A stale lock of a dead client does not count. Fine at once for
	 * a read-only or multi-writer spec.
	 */
	Result<void> checkSoleWriter(const ImageRequest &request) override;
	Result<bool> readsZeroes(const ImageRequest &request) override;

	/* Of the image's head, open read-only to read and read-write to set. */
	Result<std::optional<std::string>> metadata(const ImageRequest &request,
						    const std::string &key) override;
	Result<void> setMetadata(const ImageRequest &request, const std::string &key,
				 const std::string &value) override;

	/* Read-write images only: what the last refreshPools() heard of their pool. */
	std::string poolFull(const ImageRequest &request) override;
	Result<KernelMapFacts> kernelMapFacts(const ImageRequest &request) override;
	/*
	 * Asks the monitors of each cluster with a pool looked at which pools
	 * are full (bounded by the operation timeout); true when that changed.
	 */
	bool refreshPools();
	bool watchingPools() { return pools_.watching(); }

	/* Identities with a live connection; for tests. */
	size_t connectionCount() const { return connections_.size(); }

private:
	struct Session {
		std::shared_ptr<RadosConnection> connection;
		IoCtxPtr ioctx;
	};

	Result<Session> openSession(const ImageRequest &request);
	/* Drops the session's connection when `error` says it went bad. */
	void settle(const ImageRequest &request, const Session &session, const Error &error);

	ConnectionCache connections_;
	PoolWatch pools_;
};

} /* namespace rbdvolume */
