/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "fake_world.hpp"

#include <algorithm>
#include <sstream>

namespace rbdvolume::testing {

const char *fakeOpName(FakeOp op)
{
	static const std::map<FakeOp, const char *> names = {
		{ FakeOp::ReadTable, "read-table" },
		{ FakeOp::Mount, "mount" },
		{ FakeOp::Bind, "bind" },
		{ FakeOp::Unmount, "unmount" },
		{ FakeOp::List, "list" },
		{ FakeOp::Map, "map" },
		{ FakeOp::Unmap, "unmap" },
		{ FakeOp::EnsureImage, "ensure-image" },
		{ FakeOp::ReadsZeroes, "reads-zeroes" },
		{ FakeOp::Format, "format" },
		{ FakeOp::Check, "check" },
		{ FakeOp::Save, "save" },
		{ FakeOp::Grow, "grow" },
		{ FakeOp::FollowSize, "follow-size" },
		{ FakeOp::LuksFormat, "luks-format" },
		{ FakeOp::LuksOpen, "luks-open" },
		{ FakeOp::LuksClose, "luks-close" },
		{ FakeOp::LuksGrow, "luks-grow" },
		{ FakeOp::Metadata, "metadata" },
		{ FakeOp::SetMetadata, "set-metadata" },
	};
	return names.at(op);
}

std::string imageKey(const MappedImage &mapped)
{
	ImageSpec image;
	image.pool = mapped.pool;
	image.radosNamespace = mapped.radosNamespace;
	image.name = mapped.image;
	image.snapshot = mapped.snapshot;
	return image.display();
}

Host FakeWorld::host()
{
	return Host{ *this, *this, *this, *this, *this, *this, *this, *this };
}

void FakeWorld::addImage(const ImageSpec &image, std::string signature, bool ambivalent)
{
	FakeImage &added = images_[image.display()];
	added = FakeImage{};
	added.signature = std::move(signature);
	added.ambivalent = ambivalent;
	added.fsSize = added.signature.empty() ? 0 : added.size;
}

void FakeWorld::addUnwrittenImage(const ImageSpec &image)
{
	addImage(image);
	images_.at(image.display()).zeroed = true;
}

bool FakeWorld::hasImage(const ImageSpec &image) const
{
	return images_.contains(image.display());
}

void FakeWorld::setSignature(const ImageSpec &image, std::string signature, bool ambivalent)
{
	auto &img = images_.at(image.display());
	img.signature = std::move(signature);
	img.ambivalent = ambivalent;
	img.data = false;
	img.zeroed = false;
	/* Whoever wrote a filesystem made it fill the device. */
	img.fsSize = img.signature.empty() ? 0 : img.size;
}

void FakeWorld::setData(const ImageSpec &image)
{
	auto &img = images_.at(image.display());
	img.signature.clear();
	img.ambivalent = false;
	img.data = true;
	img.zeroed = false;
	img.fsSize = 0;
}

std::string FakeWorld::signature(const ImageSpec &image) const
{
	const auto it = images_.find(image.display());
	return it == images_.end() ? std::string() : it->second.signature;
}

std::string FakeWorld::mapForeign(const ImageSpec &image, bool readOnly)
{
	FakeMapping mapping;
	mapping.mapped = MappedImage{ image.pool,
				      image.radosNamespace,
				      image.name,
				      image.snapshot,
				      "/dev/rbd" + std::to_string(nextDevice_++),
				      Driver::Krbd,
				      readOnly,
				      {},
				      {},
				      {} };
	mapping.foreign = true;
	mappings_.push_back(mapping);
	return mapping.mapped.device;
}

void FakeWorld::mountForeign(const std::string &target, const std::string &device,
			     const std::string &fsType)
{
	mounts_.push_back(FakeMount{ MountEntry{ target, device, "/", fsType, false, "" }, true });
}

bool FakeWorld::unmountByHand(const std::string &target)
{
	const auto it = std::find_if(mounts_.rbegin(), mounts_.rend(),
				     [&](const FakeMount &m) { return m.entry.target == target; });
	if (it == mounts_.rend())
		return false;
	mounts_.erase(std::next(it).base());
	return true;
}

bool FakeWorld::unmapByHand(const std::string &device)
{
	const auto it = std::find_if(mappings_.begin(), mappings_.end(), [&](const FakeMapping &m) {
		return m.mapped.device == device;
	});
	if (it == mappings_.end())
		return false;
	mappings_.erase(it);
	return true;
}

void FakeWorld::setBusy(const std::string &target, bool busy)
{
	if (busy)
		busy_.insert(target);
	else
		busy_.erase(target);
}

void FakeWorld::failNext(FakeOp op, Errc code, bool effect, unsigned after)
{
	faults_[op].push_back(Fault{ code, effect, after });
}

unsigned FakeWorld::calls(FakeOp op) const
{
	const auto it = calls_.find(op);
	return it == calls_.end() ? 0 : it->second;
}

void FakeWorld::clearFaults()
{
	faults_.clear();
}

const FakeWorld::Fault *FakeWorld::fault(FakeOp op)
{
	calls_[op]++;
	auto it = faults_.find(op);
	if (it == faults_.end() || it->second.empty())
		return nullptr;
	if (it->second.front().after > 0) {
		it->second.front().after--;
		return nullptr;
	}
	current_ = it->second.front();
	it->second.pop_front();
	return &current_;
}

tl::unexpected<Error> FakeWorld::faultError(FakeOp op)
{
	log_.push_back(std::string("fault ") + fakeOpName(op) + ": " + errcName(current_.code));
	return fail(current_.code,
		    std::string("injected ") + errcName(current_.code) + " in " + fakeOpName(op));
}

FakeMapping *FakeWorld::mappingOf(const std::string &device)
{
	const auto it = std::find_if(mappings_.begin(), mappings_.end(), [&](const FakeMapping &m) {
		return m.mapped.device == device;
	});
	return it == mappings_.end() ? nullptr : &*it;
}

const CryptMapping *FakeWorld::cryptOf(const std::string &device) const
{
	const auto it = std::find_if(crypts_.begin(), crypts_.end(),
				     [&](const CryptMapping &c) { return c.device == device; });
	return it == crypts_.end() ? nullptr : &*it;
}

bool FakeWorld::readOnlyDevice(const std::string &device)
{
	if (const CryptMapping *crypt = cryptOf(device))
		return crypt->readOnly;
	const FakeMapping *mapping = mappingOf(device);
	return mapping && mapping->mapped.readOnly;
}

FakeImage *FakeWorld::imageOf(const std::string &device)
{
	if (const CryptMapping *crypt = cryptOf(device)) {
		FakeImage *outer = imageOf(crypt->backing);
		return outer ? outer->inner.get() : nullptr;
	}
	FakeMapping *mapping = mappingOf(device);
	if (!mapping)
		return nullptr;
	const auto it = images_.find(imageKey(mapping->mapped));
	return it == images_.end() ? nullptr : &it->second;
}

FakeMount *FakeWorld::topMount(const std::string &target)
{
	const auto it = std::find_if(mounts_.rbegin(), mounts_.rend(),
				     [&](const FakeMount &m) { return m.entry.target == target; });
	return it == mounts_.rend() ? nullptr : &*it;
}

bool FakeWorld::deviceInUse(const std::string &device) const
{
	if (std::any_of(crypts_.begin(), crypts_.end(),
			[&](const CryptMapping &c) { return c.backing == device; }))
		return true;
	return std::any_of(mounts_.begin(), mounts_.end(), [&](const FakeMount &m) {
		return m.entry.source == device ||
		       (m.entry.fsType == "devtmpfs" && "/dev" + m.entry.root == device);
	});
}

/* The engine never stacks a mount of its own over one it did not make. */
void FakeWorld::checkNotOverForeign(const std::string &target)
{
	if (const FakeMount *top = topMount(target); top && top->foreign)
		violations_.push_back("mounted over a foreign mount on " + target);
}

Result<std::vector<MountEntry>> FakeWorld::read()
{
	if (fault(FakeOp::ReadTable))
		return faultError(FakeOp::ReadTable);
	std::vector<MountEntry> entries;
	entries.reserve(mounts_.size());
	for (const FakeMount &m : mounts_)
		entries.push_back(m.entry);
	return entries;
}

void FakeWorld::addOrphan(const std::string &volume)
{
	orphans_.insert(volume);
}

Result<std::vector<std::string>> FakeWorld::orphans()
{
	return std::vector<std::string>(orphans_.begin(), orphans_.end());
}

Result<Change> FakeWorld::stopOrphan(const MapRequest &request)
{
	if (orphans_.erase(request.volume) == 0)
		return Change::Unchanged;
	log_.push_back("stop-orphan " + request.volume);
	return Change::Changed;
}

void FakeWorld::addSymlink(const std::string &path)
{
	symlinks_.insert(path);
}

bool FakeWorld::setMappingFault(const std::string &device, std::string fault)
{
	FakeMapping *mapping = mappingOf(device);
	if (mapping == nullptr)
		return false;
	mapping->mapped.fault = std::move(fault);
	return true;
}

void FakeWorld::addFile(const std::string &path)
{
	files_.insert(path);
}

/* As the real mounter says it: the first link on the way, or a file where a directory must be. */
std::optional<std::string> FakeWorld::pathProblem(const std::string &path, MountPointKind kind)
{
	for (const std::string &link : symlinks_) {
		if (path == link || path.rfind(link + "/", 0) == 0)
			return "'" + link +
			       "' is a symbolic link; rbd-volume never mounts through a "
			       "symbolic link";
	}
	for (const std::string &file : files_) {
		if ((path == file && kind == MountPointKind::Directory) ||
		    path.rfind(file + "/", 0) == 0)
			return "'" + file + "' is not a directory";
	}
	return std::nullopt;
}

Result<Change> FakeWorld::mount(const MountRequest &request)
{
	const Fault *f = fault(FakeOp::Mount);
	if (f && !f->effect)
		return faultError(FakeOp::Mount);
	if (auto problem = pathProblem(request.target, MountPointKind::Directory))
		return fail(Errc::Conflict, *problem, ELOOP);

	const MountEntry wanted{ request.target, request.source,   "/",
				 request.fsType, request.readOnly, request.owner };
	if (const FakeMount *top = topMount(request.target); top && top->entry == wanted)
		return f ? Result<Change>(faultError(FakeOp::Mount)) : Change::Unchanged;

	const FakeImage *image = imageOf(request.source);
	if (!image)
		return fail(Errc::NotFound, "special device " + request.source + " does not exist");
	if (image->signature != request.fsType || image->ambivalent)
		return fail(Errc::InvalidArgument,
			    "wrong fs type, bad superblock on " + request.source);
	if (readOnlyDevice(request.source) && !request.readOnly)
		return fail(Errc::PermissionDenied, request.source + " is write-protected");

	checkNotOverForeign(request.target);
	mounts_.push_back(FakeMount{ wanted, false });
	log_.push_back("mount " + request.source + " " + request.target + " " + request.fsType +
		       (request.readOnly ? " ro" : " rw"));
	if (f)
		return faultError(FakeOp::Mount);
	return Change::Changed;
}

Result<Change> FakeWorld::doBind(const MountRequest &request)
{
	const bool node = mappingOf(request.source) || cryptOf(request.source);
	if (auto problem = pathProblem(request.target,
				       node ? MountPointKind::File : MountPointKind::Directory))
		return fail(Errc::Conflict, *problem, ELOOP);
	MountEntry entry;
	entry.target = request.target;
	entry.readOnly = request.readOnly;
	entry.owner = request.owner;
	if (node) {
		entry.source = "devtmpfs";
		entry.root = request.source.substr(4); /* the node's path below /dev */
		entry.fsType = "devtmpfs";
	} else if (const FakeMount *source = topMount(request.source)) {
		entry.source = source->entry.source;
		entry.root = source->entry.root;
		entry.fsType = source->entry.fsType;
	} else if (request.source.rfind("/dev/", 0) == 0) {
		return fail(Errc::NotFound, "special device " + request.source + " does not exist");
	} else {
		/* Nothing mounted there: the kernel binds the directory of the root fs. */
		entry.source = "/dev/vda";
		entry.root = request.source;
		entry.fsType = "ext4";
	}
	if (const FakeMount *top = topMount(request.target); top && top->entry == entry)
		return Change::Unchanged;
	checkNotOverForeign(request.target);
	mounts_.push_back(FakeMount{ entry, false });
	log_.push_back("bind " + request.source + " " + request.target +
		       (request.readOnly ? " ro" : " rw"));
	return Change::Changed;
}

Result<Change> FakeWorld::bind(const MountRequest &request)
{
	const Fault *f = fault(FakeOp::Bind);
	if (f && !f->effect)
		return faultError(FakeOp::Bind);
	auto change = doBind(request);
	if (f)
		return faultError(FakeOp::Bind);
	return change;
}

Result<Change> FakeWorld::unmount(const std::string &target)
{
	const Fault *f = fault(FakeOp::Unmount);
	if (f && !f->effect)
		return faultError(FakeOp::Unmount);
	FakeMount *top = topMount(target);
	if (!top)
		return f ? Result<Change>(faultError(FakeOp::Unmount)) : Change::Unchanged;
	if (busy_.contains(target))
		return fail(Errc::Busy, "target is busy: " + target);
	if (top->foreign)
		violations_.push_back("unmounted a foreign mount on " + target);
	unmountByHand(target);
	log_.push_back("unmount " + target);
	if (f)
		return faultError(FakeOp::Unmount);
	return Change::Changed;
}

Result<Change> FakeWorld::detach(const std::string &target)
{
	FakeMount *top = topMount(target);
	if (!top)
		return Change::Unchanged;
	if (top->foreign)
		violations_.push_back("detached a foreign mount on " + target);
	unmountByHand(target);
	log_.push_back("detach " + target);
	return Change::Changed;
}

ProbeResult FakeWorld::probe(const std::string &device)
{
	const FakeImage *image = imageOf(device);
	if (!image)
		return ProbeResult{ ProbeKind::Failed, "no such device " + device };
	if (image->ambivalent)
		return ProbeResult{ ProbeKind::Ambivalent, image->signature, image->size, 0 };
	if (image->signature.empty() && image->data)
		return ProbeResult{ ProbeKind::Data, "non-zero bytes at offset 0", image->size, 0 };
	if (image->signature.empty())
		return ProbeResult{ ProbeKind::Blank, "", image->size, 0 };
	return ProbeResult{ ProbeKind::Signature, image->signature, image->size, image->fsSize,
			    FakeUuidPrefix + image->signature };
}

Result<std::vector<MappedImage>> FakeWorld::list()
{
	if (fault(FakeOp::List))
		return faultError(FakeOp::List);
	std::vector<MappedImage> out;
	out.reserve(mappings_.size());
	for (const FakeMapping &m : mappings_)
		out.push_back(m.mapped);
	return out;
}

Result<std::string> FakeWorld::map(const MapRequest &request)
{
	const Fault *f = fault(FakeOp::Map);
	if (f && !f->effect)
		return faultError(FakeOp::Map);
	const std::string key = request.image.display();
	if (!images_.contains(key))
		return fail(Errc::NotFound, "image " + key + " does not exist");
	for (const FakeMapping &m : mappings_) {
		if (imageKey(m.mapped) == key)
			return f ? Result<std::string>(faultError(FakeOp::Map))
				 : Result<std::string>(m.mapped.device);
	}
	FakeMapping mapping;
	const Driver driver =
		request.map.driver == Driver::Auto ? Driver::Krbd : request.map.driver;
	mapping.mapped = MappedImage{ request.image.pool,
				      request.image.radosNamespace,
				      request.image.name,
				      request.image.snapshot,
				      "/dev/rbd" + std::to_string(nextDevice_++),
				      driver,
				      request.readOnly(),
				      {},
				      /* as fuse and nbd mark theirs; krbd has no marker */
				      driver == Driver::Krbd ? std::string() : request.volume,
				      {} };
	mappings_.push_back(mapping);
	log_.push_back("map " + key + " " + mapping.mapped.device);
	if (f)
		return faultError(FakeOp::Map);
	return mapping.mapped.device;
}

Result<Change> FakeWorld::unmap(const MapRequest &request, const std::string &device)
{
	const Fault *f = fault(FakeOp::Unmap);
	if (f && !f->effect)
		return faultError(FakeOp::Unmap);
	const FakeMapping *mapping = mappingOf(device);
	if (!mapping)
		return f ? Result<Change>(faultError(FakeOp::Unmap)) : Change::Unchanged;
	if (deviceInUse(device))
		return fail(Errc::Busy, device + " is still mounted");
	if (mapping->foreign)
		violations_.push_back("unmapped a foreign mapping " + device);
	if (imageKey(mapping->mapped) != request.image.display())
		violations_.push_back("unmapped " + device + ", a mapping of another image");
	unmapByHand(device);
	log_.push_back("unmap " + device);
	if (f)
		return faultError(FakeOp::Unmap);
	return Change::Changed;
}

Result<ImageChange> FakeWorld::ensureImage(const ImageRequest &request)
{
	const Fault *f = fault(FakeOp::EnsureImage);
	if (f && !f->effect)
		return faultError(FakeOp::EnsureImage);
	const std::string key = request.image.display();
	if (images_.contains(key)) {
		/* As librbd's resize would: grow to the spec's size, never shrink. */
		FakeImage &image = images_.at(key);
		ImageChange change;
		if (request.image.create && request.image.create->sizeBytes > image.size) {
			image.size = request.image.create->sizeBytes;
			log_.push_back("resize " + key);
			change = { Change::Changed, "grown" };
		}
		return f ? Result<ImageChange>(faultError(FakeOp::EnsureImage)) : change;
	}
	if (!request.image.create)
		return fail(Errc::NotFound, "image " + key + " does not exist");
	images_[key] = FakeImage{};
	images_[key].size = request.image.create->sizeBytes;
	images_[key].zeroed = true;
	log_.push_back("create " + key);
	if (f)
		return faultError(FakeOp::EnsureImage);
	return ImageChange{ Change::Changed, "created", true };
}

Result<bool> FakeWorld::readsZeroes(const ImageRequest &request)
{
	if (fault(FakeOp::ReadsZeroes) != nullptr)
		return faultError(FakeOp::ReadsZeroes);
	const auto it = images_.find(request.image.display());
	if (it == images_.end())
		return fail(Errc::NotFound, "image " + request.image.display() + " does not exist");
	const FakeImage &image = it->second;
	return image.zeroed && image.signature.empty() && !image.data;
}

Result<std::string> FakeWorld::format(const std::string &device, const FilesystemSpec &fs,
				      DeviceContents contents)
{
	const Fault *f = fault(FakeOp::Format);
	if (f && !f->effect)
		return faultError(FakeOp::Format);
	FakeImage *image = imageOf(device);
	if (!image)
		return fail(Errc::NotFound, "no such device " + device);
	if (!image->signature.empty() || image->ambivalent)
		violations_.push_back("formatted " + device + " over '" + image->signature + "'");
	if (image->data)
		violations_.push_back("formatted " + device + " over data without a signature");
	if (contents == DeviceContents::Zeroes &&
	    (!image->zeroed || !image->signature.empty() || image->data))
		violations_.push_back("formatted " + device +
				      " as if it held zeroes, but it was written before");
	lastFormatContents_ = contents;
	image->zeroed = false;
	image->data = false;
	if (readOnlyDevice(device))
		violations_.push_back("formatted " + device + ", a read-only mapping");
	image->signature = fsTypeName(fs.type);
	image->ambivalent = false;
	image->fsSize = image->size;
	log_.push_back("mkfs " + device + " " + image->signature);
	if (f)
		return faultError(FakeOp::Format);
	return "mkfs." + image->signature + " " + device;
}

Result<std::string> FakeWorld::check(const std::string &device, const FilesystemSpec &fs)
{
	if (fault(FakeOp::Check))
		return faultError(FakeOp::Check);
	const FakeImage *image = imageOf(device);
	if (!image || image->signature != fsTypeName(fs.type))
		return fail(Errc::Conflict,
			    "fsck found no " + std::string(fsTypeName(fs.type)) + " on " + device);
	log_.push_back("fsck " + device);
	return std::string("clean");
}

void FakeWorld::setUsers(const ImageSpec &image, std::vector<std::string> clients)
{
	images_.at(image.display()).users = std::move(clients);
}

Result<std::optional<std::string>> FakeWorld::metadata(const ImageRequest &request,
						       const std::string &key)
{
	if (fault(FakeOp::Metadata))
		return faultError(FakeOp::Metadata);
	const auto it = images_.find(request.image.display());
	if (it == images_.end())
		return fail(Errc::NotFound, "image " + request.image.display() + " does not exist");
	const auto value = it->second.metadata.find(key);
	if (value == it->second.metadata.end())
		return std::optional<std::string>();
	return std::optional<std::string>(value->second);
}

Result<void> FakeWorld::setMetadata(const ImageRequest &request, const std::string &key,
				    const std::string &value)
{
	const Fault *f = fault(FakeOp::SetMetadata);
	if (f && !f->effect)
		return faultError(FakeOp::SetMetadata);
	const auto it = images_.find(request.image.display());
	if (it == images_.end())
		return fail(Errc::NotFound, "image " + request.image.display() + " does not exist");
	it->second.metadata[key] = value;
	log_.push_back("set-metadata " + request.image.display() + " " + key);
	if (f)
		return faultError(FakeOp::SetMetadata);
	return {};
}

Result<void> FakeWorld::checkSoleWriter(const ImageRequest &request)
{
	if (request.readOnly || request.multiWriter)
		return {};
	if (orphans_.contains(request.volume))
		return fail(Errc::Busy, "image " + request.image.display() +
						" is in use by its own orphan mapper; refusing a "
						"read-write map");
	const auto it = images_.find(request.image.display());
	if (it == images_.end() || it->second.users.empty())
		return {};
	return fail(Errc::Busy, "image " + request.image.display() + " is in use by " +
					it->second.users.front() + "; refusing a read-write map");
}

Result<uint64_t> FakeWorld::deviceSize(const std::string &device)
{
	const FakeImage *image = imageOf(device);
	if (!image)
		return fail(Errc::NotFound, "no such device " + device);
	return image->size;
}

void FakeWorld::resizeImage(const ImageSpec &image, uint64_t bytes)
{
	images_.at(image.display()).size = bytes;
}

/* Like xfs_growfs (online only) and resize2fs (online, or offline when unmounted). */
Result<Change> FakeWorld::grow(const std::string &device, const std::string &mountPoint,
			       const FilesystemSpec &fs)
{
	const Fault *f = fault(FakeOp::Grow);
	if (f && !f->effect)
		return faultError(FakeOp::Grow);
	FakeImage *image = imageOf(device);
	if (!image)
		return fail(Errc::NotFound, "no such device " + device);
	if (mountPoint.empty() && (image->signature != fsTypeName(fs.type) || image->ambivalent))
		violations_.push_back("grew " + device + ", which carries '" + image->signature +
				      "'");
	if (!mountPoint.empty()) {
		const FakeMount *mount = topMount(mountPoint);
		if (mount && mount->entry.fsType != fsTypeName(fs.type))
			violations_.push_back("grew " + mountPoint + " as " + fsTypeName(fs.type) +
					      ", but it is " + mount->entry.fsType);
	}
	if (mountPoint.empty()) {
		if (fs.type == FsType::Xfs)
			return fail(Errc::Unsupported, "xfs grows only while mounted");
		if (deviceInUse(device))
			return fail(Errc::Busy,
				    device + " is mounted: an offline grow needs it not to be");
	} else {
		const FakeMount *mount = topMount(mountPoint);
		if (!mount || mount->entry.source != device)
			return fail(Errc::NotFound, device + " is not mounted on " + mountPoint);
	}
	const Change change = image->fsSize == image->size ? Change::Unchanged : Change::Changed;
	image->fsSize = image->size;
	if (change == Change::Changed)
		log_.push_back("grow " + device + (mountPoint.empty() ? " offline" : " online"));
	if (f)
		return faultError(FakeOp::Grow);
	return change;
}

Result<Ownership> FakeWorld::load(const std::string &volume)
{
	const auto it = records_.find(volume);
	return it == records_.end() ? Ownership{} : it->second;
}

Result<void> FakeWorld::save(const std::string &volume, const Ownership &record)
{
	logAtSaves_.push_back(log_.size());
	if (fault(FakeOp::Save))
		return faultError(FakeOp::Save);
	if (record.empty())
		records_.erase(volume);
	else
		records_[volume] = record;
	return {};
}

std::string FakeWorld::deviceOf(const ImageSpec &image) const
{
	const auto it = std::find_if(mappings_.begin(), mappings_.end(), [&](const FakeMapping &m) {
		return imageKey(m.mapped) == image.display();
	});
	return it == mappings_.end() ? std::string() : it->mapped.device;
}

Ownership FakeWorld::record(const std::string &volume) const
{
	const auto it = records_.find(volume);
	return it == records_.end() ? Ownership{} : it->second;
}

std::string FakeWorld::describe() const
{
	std::ostringstream out;
	for (const FakeMapping &m : mappings_)
		out << "mapped " << imageKey(m.mapped) << " " << m.mapped.device
		    << (m.mapped.readOnly ? " ro" : " rw") << (m.foreign ? " foreign" : "") << '\n';
	for (const FakeMount &m : mounts_)
		out << "mount " << m.entry.target << " <- " << m.entry.source << m.entry.root << " "
		    << m.entry.fsType << (m.entry.readOnly ? " ro" : " rw")
		    << (m.foreign ? " foreign" : "") << (m.entry.owner.empty() ? "" : " owner=")
		    << m.entry.owner << '\n';
	for (const auto &[name, image] : images_)
		out << "image " << name << " '" << image.signature << "'"
		    << (image.ambivalent ? " ambivalent" : "") << '\n';
	for (const CryptMapping &c : crypts_)
		out << "crypt " << c.device << " <- " << c.backing << (c.readOnly ? " ro" : " rw")
		    << '\n';
	for (const auto &[name, record] : records_) {
		out << "record " << name << ": device '" << record.mappedDevice << "'"
		    << (record.mapPending ? " map-pending" : "")
		    << (record.formatted ? " formatted" : "")
		    << (record.luksFormatted ? " luks-formatted" : "")
		    << (record.staged ? " staged" : "") << " targets";
		for (const std::string &target : record.publishedTargets)
			out << ' ' << target;
		out << '\n';
	}
	return out.str();
}

void FakeWorld::luksFormatByHand(const ImageSpec &image, const std::string &key, std::string inner)
{
	FakeImage &outer = images_.at(image.display());
	outer.signature = LuksSignature;
	outer.ambivalent = false;
	outer.data = false;
	outer.zeroed = false;
	outer.fsSize = 0;
	outer.key = key;
	outer.inner = std::make_shared<FakeImage>();
	outer.inner->size = outer.size - FakeLuksHeaderBytes;
	outer.inner->signature = std::move(inner);
	outer.inner->fsSize = outer.inner->signature.empty() ? 0 : outer.inner->size;
}

bool FakeWorld::closeCryptByHand(const std::string &volume)
{
	const auto it = std::find_if(crypts_.begin(), crypts_.end(), [&](const CryptMapping &c) {
		return c.name == cryptNameOf(volume);
	});
	if (it == crypts_.end())
		return false;
	crypts_.erase(it);
	return true;
}

/*
 * Like a LUKS2 format that then zeroes where a probe looks, through the new
 * mapping. A fault with effect comes between the two: the header is there,
 * and its mapping shows noise. A header already there is kept and zeroed.
 */
Result<std::string> FakeWorld::formatHeader(const CryptRequest &request, const std::string &device)
{
	const Fault *f = fault(FakeOp::LuksFormat);
	if (f && !f->effect)
		return faultError(FakeOp::LuksFormat);
	FakeImage *image = imageOf(device);
	if (!image)
		return fail(Errc::NotFound, "no such device " + device);
	if (readOnlyDevice(device))
		violations_.push_back("encrypted " + device + ", a read-only mapping");
	if (image->signature != LuksSignature) {
		if (!image->signature.empty() || image->ambivalent || image->data)
			violations_.push_back("encrypted " + device + " over '" + image->signature +
					      "'" + (image->data ? " and data" : ""));
		luksFormatByHand(request.image, request.encryption.keyfile);
		image->inner->data = true; /* the image's zeros, decrypted */
		log_.push_back("luks-format " + device);
	} else {
		log_.push_back("luks-format-finish " + device);
	}
	if (f)
		return faultError(FakeOp::LuksFormat);
	/* The real port zeroes through the mapping and leaves it open. */
	if (!cryptOf(cryptDeviceOf(request.volume))) {
		crypts_.push_back(CryptMapping{ cryptNameOf(request.volume),
						cryptDeviceOf(request.volume), device, false });
		log_.push_back("luks-open " + device + " " + cryptNameOf(request.volume));
	}
	if (!image->inner->signature.empty())
		violations_.push_back("zeroed the start of " + device + "'s mapping over '" +
				      image->inner->signature + "'");
	image->inner->data = false;
	return std::string("LUKS2, ") + request.encryption.cipher;
}

Result<std::string> FakeWorld::open(const CryptRequest &request, const std::string &device)
{
	const Fault *f = fault(FakeOp::LuksOpen);
	if (f && !f->effect)
		return faultError(FakeOp::LuksOpen);
	const FakeImage *image = imageOf(device);
	if (!image)
		return fail(Errc::NotFound, "no such device " + device);
	if (image->signature != LuksSignature)
		return fail(Errc::InvalidArgument, device + " is not a valid LUKS device");
	if (image->key != request.encryption.keyfile)
		return fail(Errc::PermissionDenied,
			    "the passphrase opens no key slot of " + device + "; nothing opened");
	const std::string name = cryptNameOf(request.volume);
	if (const CryptMapping *open = cryptOf(cryptDeviceOf(request.volume))) {
		if (open->backing != device)
			return fail(Errc::Conflict, name + " is open over " + open->backing);
		if (f)
			return faultError(FakeOp::LuksOpen);
		return open->device;
	}
	crypts_.push_back(CryptMapping{ name, cryptDeviceOf(request.volume), device,
					request.readOnly || readOnlyDevice(device) });
	log_.push_back("luks-open " + device + " " + name);
	if (f)
		return faultError(FakeOp::LuksOpen);
	return cryptDeviceOf(request.volume);
}

Result<Change> FakeWorld::close(const std::string &volume)
{
	const Fault *f = fault(FakeOp::LuksClose);
	if (f && !f->effect)
		return faultError(FakeOp::LuksClose);
	const std::string device = cryptDeviceOf(volume);
	if (!cryptOf(device))
		return f ? Result<Change>(faultError(FakeOp::LuksClose)) : Change::Unchanged;
	if (deviceInUse(device))
		return fail(Errc::Busy, device + " is still in use");
	closeCryptByHand(volume);
	log_.push_back("luks-close " + cryptNameOf(volume));
	if (f)
		return faultError(FakeOp::LuksClose);
	return Change::Changed;
}

Result<Change> FakeWorld::resize(const std::string &volume)
{
	const Fault *f = fault(FakeOp::LuksGrow);
	if (f && !f->effect)
		return faultError(FakeOp::LuksGrow);
	const CryptMapping *crypt = cryptOf(cryptDeviceOf(volume));
	if (!crypt)
		return fail(Errc::NotFound, cryptNameOf(volume) + " is not open");
	FakeImage *outer = imageOf(crypt->backing);
	const uint64_t size = outer->size - FakeLuksHeaderBytes;
	Change change = Change::Unchanged;
	if (outer->inner->size != size) {
		outer->inner->size = size;
		log_.push_back("luks-grow " + crypt->name);
		change = Change::Changed;
	}
	if (f)
		return faultError(FakeOp::LuksGrow);
	return change;
}

} /* namespace rbdvolume::testing */
