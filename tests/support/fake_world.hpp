/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * FakeWorld: one consistent in-memory host (images, mappings, devices, mounts,
 * ownership records) behind every port, for unit tests. It behaves like the
 * kernel where it matters (a busy unmount fails, a bind of an unmounted path
 * binds the directory beneath, a device with mounts cannot be unmapped, a
 * read-only device does not mount read-write) and records every data-safety
 * violation the engine commits against it: formatting over a signature or a
 * read-only mapping, unmounting or mounting over a planted mount, unmapping a
 * planted mapping or one of another image.
 */
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/ports.hpp"

namespace rbdvolume::testing {

enum class FakeOp : uint8_t {
	ReadTable,
	Mount,
	Bind,
	Unmount,
	List,
	Map,
	Unmap,
	EnsureImage,
	ReadsZeroes,
	Format,
	Check,
	Save,
	Grow,
	FollowSize,
	LuksFormat,
	LuksOpen,
	LuksClose,
	LuksGrow,
	Metadata,
	SetMetadata,
};

struct FakeImage {
	std::string signature; /* "" is blank */
	bool ambivalent = false;
	bool data = false;   /* non-zero bytes without a signature */
	bool zeroed = false; /* created by ensureImage and never written since */
	uint64_t size = uint64_t{ 1 } << 30;
	uint64_t fsSize = 0;		/* what the filesystem on it spans */
	std::vector<std::string> users; /* other clients holding it open */
	std::map<std::string, std::string> metadata;
	/* LUKS (signature "crypto_LUKS"): what the mapping shows, and the key that opens it. */
	std::shared_ptr<FakeImage> inner;
	std::string key;
};

/* What a probe gives as the UUID of a signature: this, then the signature's type. */
inline const std::string FakeUuidPrefix = "uuid-of-";

/* LUKS2 reserves this much at the start of the device for its header. */
constexpr uint64_t FakeLuksHeaderBytes = uint64_t{ 16 } << 20;

struct FakeMount {
	MountEntry entry;
	bool foreign = false; /* planted by a test, not made through the ports */
};

struct FakeMapping {
	MappedImage mapped;
	bool foreign = false;
};

class FakeWorld : public MountTable,
		  public Mounter,
		  public BlockProbe,
		  public Mapper,
		  public Images,
		  public Filesystems,
		  public OwnershipStore,
		  public CryptDevices
{
public:
	Host host();

	/* Setting the scene. */
	void addImage(const ImageSpec &image, std::string signature = {}, bool ambivalent = false);
	/* An image someone else created and nothing wrote: blank, and the cluster can prove it. */
	void addUnwrittenImage(const ImageSpec &image);
	bool hasImage(const ImageSpec &image) const;
	void setSignature(const ImageSpec &image, std::string signature, bool ambivalent = false);
	/* Random bytes, no signature: not blank. */
	void setData(const ImageSpec &image);
	/* As `rbd resize` would: the device grows at once, the filesystem does not. */
	void resizeImage(const ImageSpec &image, uint64_t bytes);
	const FakeImage &image(const ImageSpec &image) const { return images_.at(image.display()); }
	std::string signature(const ImageSpec &image) const;
	/* The image's metadata, as `rbd image-meta` would change it. */
	std::map<std::string, std::string> &metadataOf(const ImageSpec &image)
	{
		return images_.at(image.display()).metadata;
	}
	/* Maps as someone else would; returns the device. */
	std::string mapForeign(const ImageSpec &image, bool readOnly = false);
	void mountForeign(const std::string &target, const std::string &device,
			  const std::string &fsType = "ext4");
	/* Drift, as a careless admin or a crash would cause it. */
	bool unmountByHand(const std::string &target);
	bool unmapByHand(const std::string &device); /* the device vanishes, mounts stay */
	void setBusy(const std::string &target, bool busy);
	/* A mapper process of `volume` runs without a device (a map cut short); it holds the image. */
	void addOrphan(const std::string &volume);
	/* A LUKS header on the image, as another tool would write it; the mapping shows `inner`. */
	void luksFormatByHand(const ImageSpec &image, const std::string &key,
			      std::string inner = {});
	/* The volume's LUKS mapping goes, as `cryptsetup close` would take it. */
	bool closeCryptByHand(const std::string &volume);
	const std::vector<CryptMapping> &cryptMappings() const { return crypts_; }
	/* The mapping of `device` reports `fault` ("" healthy), as a stopped or dead server does;
	 * false when there is none. */
	bool setMappingFault(const std::string &device, std::string fault);
	/* `path` becomes a symbolic link: nothing may be mounted on it or below it. */
	void addSymlink(const std::string &path);
	/* `path` becomes a regular file: no filesystem may be mounted on it or below it. */
	void addFile(const std::string &path);

	/*
	 * Faults: the call of `op` after `after` clean ones fails with `code`; with
	 * `effect` the call does its work first (a timeout that happened anyway).
	 */
	void failNext(FakeOp op, Errc code, bool effect = false, unsigned after = 0);
	void clearFaults();
	/* How often `op` was called (faulted calls included). */
	unsigned calls(FakeOp op) const;

	/* What happened. */
	const std::vector<FakeMount> &mounts() const { return mounts_; }
	const std::vector<FakeMapping> &mappings() const { return mappings_; }
	const std::vector<std::string> &log() const { return log_; }
	/* log().size() at each call of save, in order: what changed before each. */
	const std::vector<size_t> &logAtSaves() const { return logAtSaves_; }
	const std::vector<std::string> &violations() const { return violations_; }
	/* What the last format was told the device held. */
	std::optional<DeviceContents> lastFormatContents() const { return lastFormatContents_; }
	void clearLog() { log_.clear(); }
	/* The image's first mapping, "" when unmapped. */
	std::string deviceOf(const ImageSpec &image) const;
	Ownership record(const std::string &volume) const;
	/* Mappings, mounts, images and records, one per line, for failure messages. */
	std::string describe() const;

	/* Ports. */
	Result<std::vector<MountEntry>> read() override;
	Result<Change> mount(const MountRequest &request) override;
	Result<Change> bind(const MountRequest &request) override;
	Result<Change> unmount(const std::string &target) override;
	/* Like unmount, never busy: the mount leaves the tree whatever holds it. */
	Result<Change> detach(const std::string &target) override;
	std::optional<std::string> pathProblem(const std::string &path,
					       MountPointKind kind) override;
	/* The fake's unmount leaves no directory behind. */
	bool mountPointLeft(const std::string & /*path*/) override { return false; }
	ProbeResult probe(const std::string &device) override;
	Result<uint64_t> deviceSize(const std::string &device) override;
	/* Its filesystems record no errors. */
	std::string filesystemErrors(const std::string & /*device*/, const std::string & /*fsType*/,
				     const std::string & /*mountPath*/) override
	{
		return {};
	}
	Result<std::vector<MappedImage>> list() override;
	Result<std::string> map(const MapRequest &request) override;
	Result<Change> unmap(const MapRequest &request, const std::string &device) override;
	Result<std::vector<std::string>> orphans() override;
	Result<Change> stopOrphan(const MapRequest &request) override;
	/* Fake devices follow their image at once (resizeImage); the calls are counted. */
	Result<Change> followImageSize(const MapRequest & /*request*/) override
	{
		(void)fault(FakeOp::FollowSize);
		return Change::Unchanged;
	}
	Result<ImageChange> ensureImage(const ImageRequest &request) override;
	Result<void> checkSoleWriter(const ImageRequest &request) override;
	/* librbd's proof: the image was never written since it was created (zeroed). */
	Result<bool> readsZeroes(const ImageRequest &request) override;
	Result<std::optional<std::string>> metadata(const ImageRequest &request,
						    const std::string &key) override;
	Result<void> setMetadata(const ImageRequest &request, const std::string &key,
				 const std::string &value) override;
	/* The fake cluster's pools never fill. */
	std::string poolFull(const ImageRequest & /*request*/) override { return {}; }
	/* The engine never asks: only the krbd adapter does, on a real cluster. */
	Result<KernelMapFacts> kernelMapFacts(const ImageRequest &request) override
	{
		return fail(Errc::Unsupported, "no kernel maps " + request.image.display());
	}
	/* Other clients that have the image open, as `rbd status` would list them. */
	void setUsers(const ImageSpec &image, std::vector<std::string> clients);
	Result<std::string> format(const std::string &device, const FilesystemSpec &fs,
				   DeviceContents contents) override;
	Result<std::string> check(const std::string &device, const FilesystemSpec &fs) override;
	Result<Change> grow(const std::string &device, const std::string &mountPoint,
			    const FilesystemSpec &fs) override;
	Result<Ownership> load(const std::string &volume) override;
	Result<void> save(const std::string &volume, const Ownership &record) override;
	/* LUKS: the key is the keyfile's path, which stands for its bytes. */
	Result<std::vector<CryptMapping>> opened() override { return crypts_; }
	Result<std::string> formatHeader(const CryptRequest &request,
					 const std::string &device) override;
	Result<std::string> open(const CryptRequest &request, const std::string &device) override;
	Result<Change> close(const std::string &volume) override;
	Result<Change> resize(const std::string &volume) override;

private:
	struct Fault {
		Errc code;
		bool effect;
		unsigned after; /* clean calls still to let through */
	};
	/* The fault to inject on this call, if any. */
	const Fault *fault(FakeOp op);
	tl::unexpected<Error> faultError(FakeOp op);

	FakeMapping *mappingOf(const std::string &device);
	const CryptMapping *cryptOf(const std::string &device) const;
	/* The device is read-only: a read-only mapping, or a LUKS mapping opened read-only. */
	bool readOnlyDevice(const std::string &device);
	FakeImage *imageOf(const std::string &device);
	FakeMount *topMount(const std::string &target);
	bool deviceInUse(const std::string &device) const;
	void checkNotOverForeign(const std::string &target);
	Result<Change> doBind(const MountRequest &request);

	std::map<std::string, FakeImage> images_; /* by ImageSpec::display() */
	std::vector<FakeMapping> mappings_;
	std::vector<CryptMapping> crypts_;
	std::vector<FakeMount> mounts_;
	std::map<std::string, Ownership> records_;
	std::set<std::string> busy_;
	std::set<std::string> symlinks_;
	std::set<std::string> files_;
	std::set<std::string> orphans_; /* volumes */
	std::map<FakeOp, std::deque<Fault>> faults_;
	std::map<FakeOp, unsigned> calls_;
	Fault current_{};
	unsigned nextDevice_ = 0;
	std::vector<std::string> log_;
	std::vector<size_t> logAtSaves_;
	std::vector<std::string> violations_;
	std::optional<DeviceContents> lastFormatContents_;
};

/* "mount", "save", ...: as the log spells an operation. */
const char *fakeOpName(FakeOp op);

/* The image key of a mapping, as FakeWorld and ImageSpec::display() spell it. */
std::string imageKey(const MappedImage &mapped);

} /* namespace rbdvolume::testing */
