/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* NodeStageVolume's request turned into a runtime VolumeSpec, checked by the spec parser. */
#include "csi/stage_spec.hpp"

#include <algorithm>
#include <array>
#include <span>
#include <string_view>
#include <utility>

#include "common/text_escape.hpp"
#include "common/volume_name.hpp"
#include "config/spec_options.hpp"
#include "config/spec_render.hpp"
#include "config/spec_values.hpp"
#include "csi/volume_context.hpp"

namespace rbdvolume::csi {

namespace {

const char *accessModeName(AccessMode mode)
{
	switch (mode) {
	case AccessMode::Unknown:
		return "UNKNOWN";
	case AccessMode::SingleNodeWriter:
		return "SINGLE_NODE_WRITER";
	case AccessMode::SingleNodeReaderOnly:
		return "SINGLE_NODE_READER_ONLY";
	case AccessMode::MultiNodeReaderOnly:
		return "MULTI_NODE_READER_ONLY";
	case AccessMode::MultiNodeSingleWriter:
		return "MULTI_NODE_SINGLE_WRITER";
	case AccessMode::MultiNodeMultiWriter:
		return "MULTI_NODE_MULTI_WRITER";
	case AccessMode::SingleNodeSingleWriter:
		return "SINGLE_NODE_SINGLE_WRITER";
	case AccessMode::SingleNodeMultiWriter:
		return "SINGLE_NODE_MULTI_WRITER";
	}
	return "an unknown access mode";
}

/*
 * ceph-csi offers neither UNKNOWN nor MULTI_NODE_SINGLE_WRITER (Kubernetes
 * never asks for the latter), and allows MULTI_NODE_MULTI_WRITER only for
 * block volumes: a filesystem mounted read-write on several hosts at once
 * is corrupted by the first write.
 */
Result<void> checkAccessMode(const Capability &capability)
{
	switch (capability.mode) {
	case AccessMode::SingleNodeWriter:
	case AccessMode::SingleNodeReaderOnly:
	case AccessMode::MultiNodeReaderOnly:
	case AccessMode::SingleNodeSingleWriter:
	case AccessMode::SingleNodeMultiWriter:
		return {};
	case AccessMode::MultiNodeMultiWriter:
		if (capability.block)
			return {};
		return fail(Errc::InvalidArgument,
			    "access mode MULTI_NODE_MULTI_WRITER (ReadWriteMany) is supported for "
			    "block volumes only: a filesystem cannot be mounted read-write on "
			    "several hosts at once");
	case AccessMode::Unknown:
		return fail(Errc::InvalidArgument,
			    "the volume capability has no access mode (UNKNOWN)");
	case AccessMode::MultiNodeSingleWriter:
		break;
	}
	return fail(
		Errc::InvalidArgument,
		std::string("access mode ") + accessModeName(capability.mode) +
			" is not supported; supported are SINGLE_NODE_WRITER, "
			"SINGLE_NODE_SINGLE_WRITER, SINGLE_NODE_MULTI_WRITER, the *_READER_ONLY "
			"modes and MULTI_NODE_MULTI_WRITER for block volumes");
}

void reportContext(const VolumeContext &context, std::vector<std::string> &ignored)
{
	ignored.insert(ignored.end(), context.ignored.begin(), context.ignored.end());
	for (const std::string &key : context.unknownKeys)
		ignored.push_back(escaped(key) +
				  ": ignored, not a volume context key rbd-volume-csi "
				  "knows");
	if (!context.imageFeatures.empty())
		ignored.emplace_back("imageFeatures: ignored, the node never creates images and "
				     "maps whatever features the image has");
	if (context.tryOtherMounters)
		ignored.emplace_back(
			"tryOtherMounters: ignored, rbd-volume does not switch drivers "
			"by image features");
	if (!context.unmapOptions.empty())
		ignored.emplace_back(
			"unmapOptions: ignored, rbd-volume unmaps only what it mapped, "
			"with its own options");
}

std::string knownClusterIds(const ClusterMap &clusters)
{
	if (clusters.clusters.empty())
		return "the cluster map is empty";
	std::string out = "known: ";
	for (size_t i = 0; i < clusters.clusters.size(); ++i) {
		if (i != 0)
			out += ", ";
		out += quoted(clusters.clusters[i].clusterId);
	}
	return out;
}

Result<const ClusterEntry *> clusterEntry(const ClusterMap &clusters, const VolumeContext &context)
{
	if (context.clusterId.empty())
		return fail(Errc::InvalidArgument,
			    "the volume context has no 'clusterID': rbd-volume-csi needs it to "
			    "find the cluster's monitors");
	const ClusterEntry *entry = clusters.find(context.clusterId);
	if (entry == nullptr)
		return fail(Errc::NotFound, "clusterID " + quoted(context.clusterId) +
						    " is not in the cluster map (" +
						    knownClusterIds(clusters) + ")");
	return entry;
}

/*
 * ceph-csi's provisioner puts imageName in the volume context of every
 * volume it creates; the node plugin could also find it in the RADOS
 * journal from the volume ID, which rbd-volume does not read. A static
 * volume's handle is its image name.
 */
Result<std::string> imageName(const StageRequest &request, const VolumeContext &context)
{
	if (!context.imageName.empty())
		return context.imageName;
	if (context.staticVolume)
		return request.volumeId;
	return fail(Errc::InvalidArgument,
		    "the volume context has no 'imageName' and the volume is not static "
		    "(staticVolume: \"true\"): ceph-csi's provisioner puts imageName in the "
		    "volume context, and rbd-volume-csi does not look volume IDs up in the "
		    "RADOS journal");
}

Result<ImageSpec> imageOf(const StageRequest &request, const VolumeContext &context,
			  const ClusterEntry &entry)
{
	if (context.pool.empty())
		return fail(Errc::InvalidArgument,
			    "the volume context has no 'pool': the image's pool is required");
	Result<std::string> name = imageName(request, context);
	if (!name)
		return tl::make_unexpected(std::move(name.error()));

	/* No [image.create]: the node never creates images, the provisioner does. */
	ImageSpec image;
	image.pool = context.pool;
	image.name = std::move(*name);
	image.radosNamespace =
		context.radosNamespace.empty() ? entry.radosNamespace : context.radosNamespace;
	return image;
}

Result<ClusterSpec> clusterOf(const StageRequest &request, const ClusterEntry &entry,
			      const StageSettings &settings)
{
	if (request.clientId.empty())
		return fail(Errc::InvalidArgument,
			    "no Ceph user: the stage secrets need 'userID' (or 'adminId')");
	ClusterSpec cluster;
	if (!settings.conf.empty())
		cluster.conf = settings.conf;
	cluster.clientId = request.clientId;
	cluster.keyfile = settings.keyfile;
	cluster.monitors = entry.monitors;
	return cluster;
}

std::string commaList(const std::vector<std::string> &options)
{
	std::string out;
	for (const std::string &option : options) {
		if (!out.empty())
			out += ',';
		out += option;
	}
	return out;
}

void ignoreOptions(std::string_view mounter, const std::vector<std::string> &options, Driver driver,
		   std::vector<std::string> &ignored)
{
	if (options.empty())
		return;
	ignored.push_back("mapOptions " + std::string(mounter) + ":" + escaped(commaList(options)) +
			  ": ignored, the volume is mapped with " + driverName(driver));
}

Driver driverOf(const VolumeContext &context, const StageSettings &settings,
		std::vector<std::string> &ignored)
{
	const Driver wanted = context.mounter == Mounter::Nbd ? Driver::Nbd : Driver::Krbd;
	if (!settings.forcedDriver)
		return wanted;
	if (*settings.forcedDriver != wanted)
		ignored.push_back(
			std::string("mounter: ignored, this node maps every volume with ") +
			driverName(*settings.forcedDriver));
	return *settings.forcedDriver;
}

/*
 * Map options our spec refuses because it has keys of its own for them,
 * which a CSI request cannot set: read-only follows the access mode, and
 * the shim never asks for the exclusive lock. The spec's message would
 * point at those keys; these point at what a Kubernetes user can change.
 */
struct CsiRefusal {
	std::string_view name;
	std::string_view why;
};

constexpr std::string_view ByAccessMode =
	"rbd-volume maps read-only exactly when the access mode is *_READER_ONLY (or a mount "
	"flag says 'ro')";
constexpr std::string_view NoExclusive =
	"rbd-volume-csi does not hold the exclusive lock; remove it from mapOptions";

constexpr std::array<CsiRefusal, 4> KrbdRefusals = { {
	{ "ro", ByAccessMode },
	{ "rw", ByAccessMode },
	{ "read_only", ByAccessMode },
	{ "exclusive", NoExclusive },
} };
constexpr std::array<CsiRefusal, 2> NbdRefusals = { {
	{ "read-only", ByAccessMode },
	{ "exclusive", NoExclusive },
} };

std::optional<std::string> refusalProblem(std::string_view option,
					  std::span<const CsiRefusal> refusals)
{
	const std::string_view name = option.substr(0, option.find('='));
	for (const CsiRefusal &refusal : refusals) {
		if (refusal.name == name)
			return quoted(option) + " is not allowed: " + std::string(refusal.why);
	}
	return {};
}

Result<void> checkMapOptions(std::string_view mounter, const std::vector<std::string> &options)
{
	const bool krbd = mounter == "krbd";
	for (const std::string &option : options) {
		auto problem = krbd ? refusalProblem(option, KrbdRefusals)
				    : refusalProblem(option, NbdRefusals);
		if (!problem)
			problem = krbd ? krbdOptionProblem(option) : nbdOptionProblem(option);
		if (problem)
			return fail(Errc::InvalidArgument, "volume context key 'mapOptions', " +
								   std::string(mounter) +
								   " options: " + *problem);
	}
	return {};
}

/*
 * The options of the driver that maps the volume; with driver "auto" the
 * host picks the driver, so both lists are kept. rbd-nbd options are
 * written without "--" in ceph-csi's mapOptions and in our spec alike.
 */
Result<MapSpec> mapOf(const VolumeContext &context, const StageSettings &settings,
		      std::vector<std::string> &ignored)
{
	MapSpec map;
	map.driver = driverOf(context, settings, ignored);
	const MounterOptions &options = context.mapOptions;
	const bool krbd = map.driver == Driver::Krbd || map.driver == Driver::Auto;
	const bool nbd = map.driver == Driver::Nbd || map.driver == Driver::Auto;
	if (krbd) {
		if (auto checked = checkMapOptions("krbd", options.krbd); !checked)
			return tl::make_unexpected(std::move(checked.error()));
		map.krbdOptions = options.krbd;
	} else {
		ignoreOptions("krbd", options.krbd, map.driver, ignored);
	}
	if (nbd) {
		if (auto checked = checkMapOptions("nbd", options.nbd); !checked)
			return tl::make_unexpected(std::move(checked.error()));
		map.nbdOptions = options.nbd;
	} else {
		ignoreOptions("nbd", options.nbd, map.driver, ignored);
	}
	return map;
}

/* The capability's mount flags, split on ',' (an entry may hold several), "ro"/"rw" taken out. */
struct MountFlags {
	std::vector<std::string> options;
	bool readOnly = false;	/* "ro" was among them */
	bool readWrite = false; /* "rw" was among them */
};

std::string_view trimmedFlag(std::string_view flag)
{
	constexpr std::string_view Space = " \t\n\r\v\f";
	const size_t first = flag.find_first_not_of(Space);
	if (first == std::string_view::npos)
		return {};
	return flag.substr(first, flag.find_last_not_of(Space) - first + 1);
}

/*
 * "ro" is not refused, although ceph-csi only mounts read-only with it
 * (mapping read-write): our spec has one read-only switch, map.read-only,
 * so "ro" maps the image read-only and the staging mount and every publish
 * bind follow. That is the stricter reading: nothing on this host can
 * write to the image, not a journal replay, an fsck, a mkfs or a grow. Its
 * cost is that an ext4 whose journal needs recovery does not mount (the
 * stage fails, visibly) where ceph-csi would replay the journal. Refusing
 * "ro" instead would break PVs that work with ceph-csi, and dropping it
 * would mount read-write what the operator asked to be read-only.
 * "rw" is the default and is dropped; it conflicts with "ro" and with a
 * read-only access mode.
 */
Result<MountFlags> mountFlagsOf(const std::vector<std::string> &flags)
{
	MountFlags out;
	for (const std::string &entry : flags) {
		std::string_view rest = entry;
		for (;;) {
			const size_t comma = rest.find(',');
			const std::string_view flag = trimmedFlag(rest.substr(0, comma));
			if (flag == "ro")
				out.readOnly = true;
			else if (flag == "rw")
				out.readWrite = true;
			else if (!flag.empty())
				out.options.emplace_back(flag);
			if (comma == std::string_view::npos)
				break;
			rest.remove_prefix(comma + 1);
		}
	}
	if (out.readOnly && out.readWrite)
		return fail(Errc::InvalidArgument,
			    "mount flags 'ro' and 'rw' contradict each other");
	for (const std::string &option : out.options) {
		if (const auto problem = mountOptionProblem(option))
			return fail(Errc::InvalidArgument,
				    "mount flag " + quoted(option) + ": " + *problem);
	}
	return out;
}

Result<FsType> fsTypeOf(std::string_view fsType)
{
	if (fsType.empty())
		return FsType::Ext4;
	if (const std::optional<FsType> type = valueIn(FsTypeNames, fsType))
		return *type;
	return fail(Errc::InvalidArgument,
		    "fsType " + quoted(fsType) +
			    " is not supported: rbd-volume formats and mounts "
			    "'ext4' (the default) and 'xfs'");
}

/*
 * ceph-csi's mkfsOptions replace its default mkfs arguments; our spec's
 * are added after rbd-volume's defaults. mke2fs and mkfs.xfs let a later
 * option override an earlier one, so the effect is the same but for the
 * defaults that cannot be undone (xfs -K, no discard at mkfs). ceph-csi
 * runs no custom mkfs for static volumes; neither do we.
 */
std::vector<std::string> mkfsOptionsOf(const VolumeContext &context,
				       std::vector<std::string> &ignored)
{
	if (context.mkfsOptions.empty())
		return {};
	if (!context.staticVolume)
		return context.mkfsOptions;
	ignored.emplace_back("mkfsOptions: ignored, a static volume is formatted (if blank) with "
			     "rbd-volume's defaults, as ceph-csi does");
	return {};
}

void addOnce(std::vector<std::string> &options, std::string_view option)
{
	if (std::find(options.begin(), options.end(), option) == options.end())
		options.emplace_back(option);
}

Result<void> applyFilesystem(VolumeSpec &spec, const StageRequest &request,
			     const VolumeContext &context, MountFlags flags,
			     std::vector<std::string> &ignored)
{
	const Result<FsType> type = fsTypeOf(request.capability.fsType);
	if (!type)
		return tl::make_unexpected(type.error());

	spec.mode = VolumeMode::Filesystem;
	FilesystemSpec &fs = spec.filesystem.emplace();
	fs.type = *type;
	fs.mkfsOptions = mkfsOptionsOf(context, ignored);
	const std::vector<size_t> forced = mkfsForceArguments(fs.type, fs.mkfsOptions);
	if (!forced.empty())
		return fail(Errc::InvalidArgument,
			    "volume context key 'mkfsOptions': " +
				    quoted(fs.mkfsOptions[forced.front()]) +
				    " turns on mkfs's force flag, and rbd-volume never formats "
				    "over a signature");

	spec.staging.path = request.stagingTargetPath;
	spec.staging.options = std::move(flags.options);
	/* Clones share their source's XFS UUID; without nouuid they cannot mount side by side (ceph-csi#966). */
	if (fs.type == FsType::Xfs)
		addOnce(spec.staging.options, "nouuid");
	return {};
}

/* A block volume's device is bound onto a file: nothing to format, nothing to mount with flags. */
void applyBlock(VolumeSpec &spec, const StageRequest &request, const VolumeContext &context,
		std::vector<std::string> &ignored)
{
	spec.mode = VolumeMode::Block;
	spec.filesystem.reset();
	spec.staging.path = request.stagingTargetPath + "/" + BlockStagingFile;
	spec.staging.options.clear();
	if (!request.capability.fsType.empty())
		ignored.push_back("fsType " + quoted(request.capability.fsType) +
				  ": ignored, a block volume has no filesystem");
	for (const std::string &flag : request.capability.mountFlags)
		ignored.push_back("mount flag " + quoted(flag) +
				  ": ignored, a block volume is not mounted");
	if (!context.mkfsOptions.empty())
		ignored.emplace_back("mkfsOptions: ignored, a block volume has no filesystem");
}

/*
 * The spec as the parser accepts it from a file, or InvalidArgument naming
 * every problem by field: the parser's own checks, not a copy of them.
 */
/* The encryption keys of a volume that is not encrypted, reported as ignored. */
void reportUnencrypted(const EncryptionContext &context, std::vector<std::string> &ignored)
{
	const std::array<std::pair<std::string_view, const std::string *>, 6> keys = { {
		{ "encryptionType", &context.type },
		{ "encryptionKMSID", &context.kmsId },
		{ "encryptionCipher", &context.cipher },
		{ "encryptionKeySize", &context.keySize },
		{ "encryptionSectorSize", &context.sectorSize },
		{ "integrityMode", &context.integrity },
	} };
	for (const auto &[key, value] : keys) {
		if (!value->empty())
			ignored.push_back(std::string(key) +
					  ": ignored, the volume is not encrypted");
	}
}

Result<void> checkEncryptionType(const EncryptionContext &context, bool block)
{
	if (context.type == "file")
		return fail(Errc::InvalidArgument,
			    "encryptionType 'file' (fscrypt) is not supported by rbd-volume-csi; "
			    "'block' (LUKS2 on the image, the default) is");
	if (!context.type.empty() && context.type != "block")
		return fail(Errc::InvalidArgument, "encryptionType " + quoted(context.type) +
							   ": expected 'block' or 'file'");
	if (block)
		return fail(Errc::InvalidArgument,
			    "an encrypted block volume (volumeMode: Block) is not supported by "
			    "rbd-volume-csi yet; encrypted filesystem volumes are");
	if (!context.sectorSize.empty() || !context.integrity.empty())
		return fail(Errc::InvalidArgument,
			    std::string(context.sectorSize.empty() ? "integrityMode"
								   : "encryptionSectorSize") +
				    " is not supported by rbd-volume-csi; leave it out of the "
				    "StorageClass");
	return {};
}

/* How the data is keyed: ceph-csi's default KMS, or its "metadata" KMS. */
Result<void> applyKms(EncryptionSpec &encryption, const StageRequest &request,
		      const EncryptionContext &context, const StageSettings &settings)
{
	/* ceph-csi's default KMS: the stage secret's passphrase is the LUKS passphrase. */
	if (context.kmsId.empty()) {
		encryption.source = KeySource::Keyfile;
		return {};
	}
	if (!settings.kmsEntry)
		return fail(Errc::Internal, "no KMS config to look encryptionKMSID up in");
	Result<KmsEntry> entry = settings.kmsEntry(context.kmsId);
	if (!entry)
		return tl::make_unexpected(std::move(entry.error()));
	if (entry->type != "metadata")
		return fail(
			Errc::InvalidArgument,
			"encryptionKMSID " + quoted(context.kmsId) + " is a " +
				quoted(entry->type) +
				" KMS, which rbd-volume-csi does not support: it supports "
				"ceph-csi's 'metadata' KMS and its default (no encryptionKMSID)");
	if (!entry->secretName.empty())
		return fail(
			Errc::InvalidArgument,
			"encryptionKMSID " + quoted(context.kmsId) +
				" reads its passphrase from the Kubernetes Secret " +
				quoted(entry->secretName) +
				", which rbd-volume-csi cannot read; leave secretName out so that "
				"the stage secret's encryptionPassphrase is used");
	encryption.source = KeySource::ImageMetadata;
	encryption.volumeId = request.volumeId;
	return {};
}

Result<EncryptionSpec> encryptionOf(const StageRequest &request, const EncryptionContext &context,
				    const StageSettings &settings)
{
	if (auto type = checkEncryptionType(context, request.capability.block); !type)
		return tl::make_unexpected(std::move(type.error()));
	EncryptionSpec encryption;
	encryption.givenAtUp = true;
	if (!context.cipher.empty()) {
		if (const std::optional<std::string> problem = cipherProblem(context.cipher))
			return fail(Errc::InvalidArgument,
				    "encryptionCipher " + quoted(context.cipher) + ": " + *problem);
		encryption.cipher = context.cipher;
	}
	if (!context.keySize.empty()) {
		if (context.keySize != "256" && context.keySize != "512")
			return fail(Errc::InvalidArgument, "encryptionKeySize " +
								   quoted(context.keySize) +
								   ": expected 256 or 512 (bits)");
		encryption.keyBits = context.keySize == "256" ? 256U : 512U;
	}
	if (auto kms = applyKms(encryption, request, context, settings); !kms)
		return tl::make_unexpected(std::move(kms.error()));
	return encryption;
}

Result<VolumeSpec> validated(const VolumeSpec &spec)
{
	SpecOutcome checked = checkBuiltSpec(spec, spec.name + ".toml");
	if (!checked.ok()) {
		std::string message =
			"the runtime spec of volume " + quoted(spec.name) + " would be invalid: ";
		for (size_t i = 0; i < checked.diagnostics.size(); ++i) {
			const Diagnostic &problem = checked.diagnostics[i];
			/* The one whole-file problem a rendered spec can have is its name. */
			message += (i == 0 ? "" : "; ") +
				   (problem.field.empty() ? std::string("name") : problem.field) +
				   ": " + problem.message;
		}
		return fail(Errc::InvalidArgument, std::move(message));
	}
	checked.spec.sourceFile = spec.sourceFile;
	return std::move(checked.spec);
}

} /* namespace */

bool readerOnly(AccessMode mode)
{
	return mode == AccessMode::SingleNodeReaderOnly || mode == AccessMode::MultiNodeReaderOnly;
}

Result<VolumeSpec> stageSpec(const std::string &name, const StageRequest &request,
			     const ClusterMap &clusters, const StageSettings &settings,
			     std::vector<std::string> &ignored)
{
	const Capability &capability = request.capability;
	if (auto mode = checkAccessMode(capability); !mode)
		return tl::make_unexpected(std::move(mode.error()));

	Result<VolumeContext> context = parseVolumeContext(request.volumeContext);
	if (!context)
		return tl::make_unexpected(std::move(context.error()));
	reportContext(*context, ignored);

	const Result<const ClusterEntry *> entry = clusterEntry(clusters, *context);
	if (!entry)
		return tl::make_unexpected(entry.error());

	VolumeSpec spec;
	spec.name = name;
	Result<ImageSpec> image = imageOf(request, *context, **entry);
	if (!image)
		return tl::make_unexpected(std::move(image.error()));
	spec.image = std::move(*image);
	Result<ClusterSpec> cluster = clusterOf(request, **entry, settings);
	if (!cluster)
		return tl::make_unexpected(std::move(cluster.error()));
	spec.cluster = std::move(*cluster);

	MountFlags flags;
	if (!capability.block) {
		Result<MountFlags> parsed = mountFlagsOf(capability.mountFlags);
		if (!parsed)
			return tl::make_unexpected(std::move(parsed.error()));
		flags = std::move(*parsed);
		if (flags.readWrite && readerOnly(capability.mode))
			return fail(Errc::InvalidArgument,
				    std::string("mount flag 'rw' contradicts the access mode ") +
					    accessModeName(capability.mode));
	}

	Result<MapSpec> map = mapOf(*context, settings, ignored);
	if (!map)
		return tl::make_unexpected(std::move(map.error()));
	spec.map = std::move(*map);
	spec.map.readOnly = readerOnly(capability.mode) || flags.readOnly;
	spec.map.multiWriter = capability.mode == AccessMode::MultiNodeMultiWriter;

	if (context->encryption.encrypted) {
		Result<EncryptionSpec> encryption =
			encryptionOf(request, context->encryption, settings);
		if (!encryption)
			return tl::make_unexpected(std::move(encryption.error()));
		spec.encryption = std::move(*encryption);
	} else {
		reportUnencrypted(context->encryption, ignored);
	}

	if (capability.block) {
		applyBlock(spec, request, *context, ignored);
	} else {
		auto applied = applyFilesystem(spec, request, *context, std::move(flags), ignored);
		if (!applied)
			return tl::make_unexpected(std::move(applied.error()));
	}
	return validated(spec);
}

} /* namespace rbdvolume::csi */
