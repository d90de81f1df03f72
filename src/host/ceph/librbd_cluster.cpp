/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "host/ceph/librbd_cluster.hpp"

#include <algorithm>
#include <cerrno>

#include <rbd/librbd.h>

#include "common/size_text.hpp"
#include "host/ceph/image_features.hpp"
#include "host/ceph/monitor_map.hpp"
#include "host/ceph/rbd_image.hpp"

namespace rbdvolume {

namespace {

ImageRef headOf(const ImageSpec &image)
{
	ImageSpec head = image;
	head.snapshot.clear();
	return { image.name, "", head.display() };
}

ImageRef refOf(const ImageSpec &image)
{
	return { image.name, image.snapshot, image.display() };
}

Result<void> namespaceExists(rados_ioctx_t ioctx, const ImageSpec &image,
			     const CallContext &context)
{
	if (image.radosNamespace.empty())
		return {};
	bool exists = false;
	const int ret = rbd_namespace_exists(ioctx, image.radosNamespace.c_str(), &exists);
	if (ret < 0)
		return tl::make_unexpected(callError(
			ret, "looking up namespace '" + image.radosNamespace + "'", context));
	if (!exists)
		return fail(Errc::NotFound,
			    "namespace '" + image.radosNamespace + "' does not exist in pool '" +
				    image.pool + "'; rbd-volume creates images, not namespaces",
			    ENOENT);
	return {};
}

Result<ImageOptionsPtr> createOptions(const CreateSpec &create)
{
	rbd_image_options_t raw = nullptr;
	rbd_image_options_create(&raw);
	ImageOptionsPtr options(raw);
	int ret = rbd_image_options_set_uint64(options.get(), RBD_IMAGE_OPTION_FORMAT, 2);
	if (ret == 0 && !create.features.empty()) {
		/* Without a list the cluster's rbd_default_features apply. */
		auto bits = featureBits(create.features);
		if (!bits)
			return tl::make_unexpected(bits.error());
		ret = rbd_image_options_set_uint64(options.get(), RBD_IMAGE_OPTION_FEATURES, *bits);
	}
	if (ret < 0)
		return fail(Errc::Internal, "setting the image options failed", -ret);
	return options;
}

/* Fails with EEXIST (Errc::Conflict) when another host created it meanwhile. */
Result<void> createImage(rados_ioctx_t ioctx, const ImageSpec &image, const CallContext &context)
{
	auto options = createOptions(*image.create);
	if (!options)
		return tl::make_unexpected(options.error());
	const int ret =
		rbd_create4(ioctx, image.name.c_str(), image.create->sizeBytes, options->get());
	if (ret < 0)
		return tl::make_unexpected(
			callError(ret, "creating image " + headOf(image).display, context));
	return {};
}

Result<void> checkFeatures(const RbdImage &opened, const ImageSpec &image)
{
	const CreateSpec &create = *image.create;
	if (create.features.empty())
		return {};
	auto wanted = featureBits(create.features);
	if (!wanted)
		return tl::make_unexpected(wanted.error());
	auto bits = opened.features();
	if (!bits)
		return tl::make_unexpected(bits.error());
	const uint64_t have = comparableFeatures(*bits);
	if (have == comparableFeatures(*wanted))
		return {};
	return fail(Errc::Conflict,
		    "image " + headOf(image).display + " has features '" + featureNames(have) +
			    "' but the spec's [image.create] lists '" + featureNames(*wanted) +
			    "'; rbd-volume does not change the features of an existing image");
}

/* An existing image against [image.create]: same features, never larger, grown if smaller. */
Result<ImageChange> reconcileExisting(rados_ioctx_t ioctx, const RbdImage &opened,
				      const ImageSpec &image, const CallContext &context)
{
	auto featuresOk = checkFeatures(opened, image);
	if (!featuresOk)
		return tl::make_unexpected(featuresOk.error());
	auto size = opened.size();
	if (!size)
		return tl::make_unexpected(size.error());
	const uint64_t wanted = image.create->sizeBytes;
	if (*size == wanted)
		return ImageChange{};
	if (*size > wanted)
		return fail(Errc::Conflict, "image " + headOf(image).display + " is " +
						    sizeText(*size) + ", larger than the spec's " +
						    sizeText(wanted) +
						    "; rbd-volume never shrinks an image");
	/* Only growing needs a read-write open, and only for as long as it takes. */
	auto writable = RbdImage::openReadWrite(ioctx, headOf(image), context);
	if (!writable)
		return tl::make_unexpected(writable.error());
	auto grown = writable->grow(wanted);
	if (!grown)
		return tl::make_unexpected(grown.error());
	return ImageChange{ Change::Changed,
			    "grown from " + sizeText(*size) + " to " + sizeText(wanted) };
}

Result<ImageChange> inspectExisting(rados_ioctx_t ioctx, const ImageSpec &image,
				    const CallContext &context)
{
	auto opened = RbdImage::openReadOnly(ioctx, headOf(image), context);
	if (!opened)
		return tl::make_unexpected(opened.error());
	if (!image.create)
		return ImageChange{};
	return reconcileExisting(ioctx, *opened, image, context);
}

Result<ImageChange> createMissing(rados_ioctx_t ioctx, const ImageSpec &image,
				  const CallContext &context)
{
	auto inNamespace = namespaceExists(ioctx, image, context);
	if (!inNamespace)
		return tl::make_unexpected(inNamespace.error());
	if (!image.create)
		return fail(Errc::NotFound,
			    "image '" + headOf(image).display +
				    "' does not exist (and the spec has no [image.create])",
			    ENOENT);
	auto created = createImage(ioctx, image, context);
	if (created)
		return ImageChange{ Change::Changed,
				    "created, " + sizeText(image.create->sizeBytes), true };
	/* Someone else created it meanwhile: judge theirs like any existing image. */
	if (created.error().sysErrno == EEXIST)
		return inspectExisting(ioctx, image, context);
	return tl::make_unexpected(created.error());
}

/* With a snapshot only its existence counts: snapshots are never created or resized. */
Result<ImageChange> ensureSnapshot(rados_ioctx_t ioctx, const ImageSpec &image,
				   const CallContext &context)
{
	auto head = RbdImage::openReadOnly(ioctx, headOf(image), context);
	if (!head && head.error().code == Errc::NotFound)
		return fail(Errc::NotFound,
			    "image '" + headOf(image).display +
				    "' does not exist (the spec maps its snapshot '" +
				    image.snapshot + "')",
			    ENOENT);
	if (!head)
		return tl::make_unexpected(head.error());
	auto snapshot = RbdImage::openReadOnly(ioctx, refOf(image), context);
	if (!snapshot && snapshot.error().code == Errc::NotFound)
		return fail(Errc::NotFound,
			    "snapshot '" + image.snapshot + "' of image '" + headOf(image).display +
				    "' does not exist",
			    ENOENT);
	if (!snapshot)
		return tl::make_unexpected(snapshot.error());
	return ImageChange{};
}

Result<ImageChange> ensureOn(rados_ioctx_t ioctx, const ImageSpec &image,
			     const CallContext &context)
{
	if (!image.snapshot.empty())
		return ensureSnapshot(ioctx, image, context);
	auto changed = inspectExisting(ioctx, image, context);
	if (!changed && changed.error().code == Errc::NotFound &&
	    changed.error().sysErrno == ENOENT)
		return createMissing(ioctx, image, context);
	return changed;
}

Result<ImageInfo> readInfo(rados_ioctx_t ioctx, const ImageSpec &image, const CallContext &context)
{
	auto opened = RbdImage::openReadOnly(ioctx, refOf(image), context);
	if (!opened && opened.error().sysErrno == ENOENT)
		return fail(Errc::NotFound, "image '" + image.display() + "' does not exist",
			    ENOENT);
	if (!opened)
		return tl::make_unexpected(opened.error());
	ImageInfo info;
	auto size = opened->size();
	if (!size)
		return tl::make_unexpected(size.error());
	info.sizeBytes = *size;
	auto features = opened->features();
	if (!features)
		return tl::make_unexpected(features.error());
	info.features = *features;
	auto watchers = opened->watchers();
	if (!watchers)
		return tl::make_unexpected(watchers.error());
	info.watchers = std::move(*watchers);
	auto owners = opened->lockOwners();
	if (!owners)
		return tl::make_unexpected(owners.error());
	info.lockOwners = std::move(*owners);
	return info;
}

/* "ADDR (client.ID)" for each watcher, marking the one that owns the exclusive lock. */
std::string usersText(const ImageInfo &info)
{
	std::string out;
	for (const std::string &watcher : info.watchers) {
		const size_t space = watcher.rfind(' ');
		const std::string address = watcher.substr(0, space);
		std::string client = space == std::string::npos ? "" : watcher.substr(space + 1);
		if (std::find(info.lockOwners.begin(), info.lockOwners.end(), address) !=
		    info.lockOwners.end())
			client += std::string(client.empty() ? "" : ", ") + "exclusive-lock owner";
		out += (out.empty() ? "" : ", ") + address +
		       (client.empty() ? "" : " (" + client + ")");
	}
	return out;
}

} /* namespace */

LibrbdCluster::LibrbdCluster(CephTimeouts timeouts) : connections_(timeouts)
{
}

Result<LibrbdCluster::Session> LibrbdCluster::openSession(const ImageRequest &request)
{
	auto connection = connections_.get(request.cluster);
	if (!connection)
		return tl::make_unexpected(connection.error());
	auto ioctx = (*connection)->openPool(request.image.pool, request.image.radosNamespace);
	if (!ioctx) {
		settle(request, Session{ *connection, nullptr }, ioctx.error());
		return tl::make_unexpected(ioctx.error());
	}
	return Session{ std::move(*connection), std::move(*ioctx) };
}

void LibrbdCluster::settle(const ImageRequest &request, const Session &session, const Error &error)
{
	if (isConnectionFault(error))
		connections_.drop(request.cluster, session.connection);
}

Result<ImageChange> LibrbdCluster::ensureImage(const ImageRequest &request)
{
	auto session = openSession(request);
	if (!session)
		return tl::make_unexpected(session.error());
	auto changed =
		ensureOn(session->ioctx.get(), request.image, session->connection->context());
	if (!changed)
		settle(request, *session, changed.error());
	return changed;
}

Result<ImageInfo> LibrbdCluster::imageInfo(const ImageRequest &request)
{
	auto session = openSession(request);
	if (!session)
		return tl::make_unexpected(session.error());
	auto info = readInfo(session->ioctx.get(), request.image, session->connection->context());
	if (!info)
		settle(request, *session, info.error());
	return info;
}

Result<void> LibrbdCluster::checkSoleWriter(const ImageRequest &request)
{
	if (request.multiWriter || request.readOnly)
		return {};
	auto info = imageInfo(request);
	if (!info)
		return tl::make_unexpected(info.error());
	/*
	 * Every live client of an image watches its header, a lock owner too.
	 * A lock owner without a watch is a dead client's stale lock: librbd
	 * breaks it (and blocklists its owner) on the next acquire, so it does
	 * not make the image busy -- else a crashed host would block the
	 * failover until someone removed its lock by hand.
	 */
	if (info->watchers.empty())
		return {};
	return fail(Errc::Busy,
		    "image " + request.image.display() + " is in use by " + usersText(*info) +
			    "; refusing a read-write map. Set map.multi-writer (block mode) to "
			    "share it",
		    EBUSY);
}

Result<bool> LibrbdCluster::readsZeroes(const ImageRequest &request)
{
	auto session = openSession(request);
	if (!session)
		return tl::make_unexpected(session.error());
	auto opened = RbdImage::openReadOnly(session->ioctx.get(), headOf(request.image),
					     session->connection->context());
	auto unwritten =
		opened ? opened->neverWritten() : Result<bool>(tl::make_unexpected(opened.error()));
	if (!unwritten)
		settle(request, *session, unwritten.error());
	return unwritten;
}

Result<std::optional<std::string>> LibrbdCluster::metadata(const ImageRequest &request,
							   const std::string &key)
{
	auto session = openSession(request);
	if (!session)
		return tl::make_unexpected(session.error());
	auto opened = RbdImage::openReadOnly(session->ioctx.get(), headOf(request.image),
					     session->connection->context());
	auto value =
		opened ? opened->metadata(key)
		       : Result<std::optional<std::string>>(tl::make_unexpected(opened.error()));
	if (!value)
		settle(request, *session, value.error());
	return value;
}

Result<void> LibrbdCluster::setMetadata(const ImageRequest &request, const std::string &key,
					const std::string &value)
{
	auto session = openSession(request);
	if (!session)
		return tl::make_unexpected(session.error());
	auto opened = RbdImage::openReadWrite(session->ioctx.get(), headOf(request.image),
					      session->connection->context());
	auto set = opened ? opened->setMetadata(key, value)
			  : Result<void>(tl::make_unexpected(opened.error()));
	if (!set)
		settle(request, *session, set.error());
	return set;
}

/*
 * The monitors as the monitors themselves list them (what librados was told
 * may be host names, or one monitor of several), and the head's features:
 * a snapshot's are the image's.
 */
Result<KernelMapFacts> LibrbdCluster::kernelMapFacts(const ImageRequest &request)
{
	auto session = openSession(request);
	if (!session)
		return tl::make_unexpected(session.error());
	auto dump = session->connection->monCommand(R"({"prefix": "mon dump"})");
	if (!dump) {
		settle(request, *session, dump.error());
		return tl::make_unexpected(dump.error());
	}
	auto opened = RbdImage::openReadOnly(session->ioctx.get(), headOf(request.image),
					     session->connection->context());
	auto features =
		opened ? opened->features() : Result<uint64_t>(tl::make_unexpected(opened.error()));
	if (!features) {
		settle(request, *session, features.error());
		return tl::make_unexpected(features.error());
	}
	MonitorAddresses monitors = monitorAddresses(*dump);
	return KernelMapFacts{ std::move(monitors.msgr1), std::move(monitors.msgr2), *features };
}

std::string LibrbdCluster::poolFull(const ImageRequest &request)
{
	if (request.readOnly)
		return {};
	return pools_.look(request.cluster, request.image.pool);
}

bool LibrbdCluster::refreshPools()
{
	return pools_.refresh([this](const ClusterSpec &cluster) -> Result<std::string> {
		auto connection = connections_.get(cluster);
		if (!connection)
			return tl::make_unexpected(connection.error());
		auto pools =
			(*connection)
				->monCommand(R"({"prefix": "osd pool ls", "detail": "detail"})");
		if (!pools && isConnectionFault(pools.error()))
			connections_.drop(cluster, *connection);
		return pools;
	});
}

} /* namespace rbdvolume */
