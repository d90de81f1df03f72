/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* NodeStageVolume's request turned into a runtime spec: ceph-csi's contexts, modes and refusals. */
#include "csi/stage_spec.hpp"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "config/spec_parser.hpp"

namespace rbdvolume::csi {

namespace {

using Context = std::map<std::string, std::string>;
using Strings = std::vector<std::string>;

constexpr const char *StagingPath = "/var/lib/kubelet/plugins/kubernetes.io/csi/rbd.csi.ceph.com/"
				    "3f1e6c2b9d0a4e8f7c6b5a4938271605/globalmount";
constexpr const char *Keyfile = "/run/rbd-volume-csi/keys/pvc_6f1c.key";
constexpr const char *ImageName = "csi-vol-0d4b5a8e-7c1a-4f9f-9a43-2b1c7e0f5d11";
constexpr const char *VolumeId =
	"0001-0009-rook-ceph-0000000000000002-0d4b5a8e-7c1a-4f9f-9a43-2b1c7e0f5d11";

ClusterMap clusterMap()
{
	ClusterMap map;
	map.clusters.push_back(
		ClusterEntry{ "rook-ceph", { "192.0.2.1:6789", "192.0.2.2:6789" }, "" });
	map.clusters.push_back(ClusterEntry{ "tenants", { "v2:198.51.100.7:3300" }, "tenant_a" });
	return map;
}

StageSettings settings()
{
	StageSettings s;
	s.keyfile = Keyfile;
	return s;
}

/* What ceph-csi's provisioner puts in the context of a volume it created. */
Context dynamicContext()
{
	return {
		{ "clusterID", "rook-ceph" },
		{ "pool", "replicapool" },
		{ "imageName", ImageName },
		{ "journalPool", "replicapool" },
		{ "imageFeatures", "layering,exclusive-lock,object-map,fast-diff" },
		{ "csi.storage.k8s.io/pv/name", "pvc-6f1c3a9e-2b1d-4a77-8e3f-5d9c0b2a7e41" },
		{ "csi.storage.k8s.io/pvc/name", "data-postgres-0" },
		{ "csi.storage.k8s.io/pvc/namespace", "db" },
		{ "storage.kubernetes.io/csiProvisionerIdentity",
		  "1700000000000-8081-rbd.csi.ceph.com" },
	};
}

Capability mountCapability(const std::string &fsType = "ext4",
			   AccessMode mode = AccessMode::SingleNodeWriter, Strings flags = {})
{
	Capability capability;
	capability.fsType = fsType;
	capability.mode = mode;
	capability.mountFlags = std::move(flags);
	return capability;
}

Capability blockCapability(AccessMode mode = AccessMode::SingleNodeWriter)
{
	Capability capability;
	capability.block = true;
	capability.mode = mode;
	return capability;
}

StageRequest stageRequest(Context context = dynamicContext(),
			  Capability capability = mountCapability())
{
	StageRequest request;
	request.volumeId = VolumeId;
	request.stagingTargetPath = StagingPath;
	request.capability = std::move(capability);
	request.volumeContext = std::move(context);
	request.clientId = "csi-rbd-node";
	return request;
}

struct Staged {
	Result<VolumeSpec> spec;
	Strings ignored;
};

Staged stage(const StageRequest &request, const StageSettings &s = settings(),
	     const ClusterMap &clusters = clusterMap())
{
	Staged out{ VolumeSpec{}, {} };
	out.spec = stageSpec("pvc_6f1c", request, clusters, s, out.ignored);
	return out;
}

VolumeSpec staged(const StageRequest &request, const StageSettings &s = settings())
{
	const Staged out = stage(request, s);
	EXPECT_TRUE(out.spec.has_value()) << out.spec.error().message;
	return out.spec.value_or(VolumeSpec{});
}

Error stageError(const StageRequest &request, const StageSettings &s = settings(),
		 const ClusterMap &clusters = clusterMap())
{
	const Staged out = stage(request, s, clusters);
	EXPECT_FALSE(out.spec.has_value());
	return out.spec ? Error{} : out.spec.error();
}

bool contains(const std::string &text, const std::string &part)
{
	return text.find(part) != std::string::npos;
}

bool mentions(const Strings &lines, const std::string &start)
{
	return std::any_of(lines.begin(), lines.end(),
			   [&start](const std::string &line) { return line.starts_with(start); });
}

Context with(Context context, const std::string &key, const std::string &value)
{
	context[key] = value;
	return context;
}

Context without(Context context, const std::string &key)
{
	context.erase(key);
	return context;
}

/* The spec the parser reads from `toml`, as if it were /run/rbd-volume/volumes/pvc_6f1c.toml. */
VolumeSpec parsed(const std::string &toml)
{
	const SpecOutcome outcome = parseVolumeSpec(toml, "/run/rbd-volume/volumes/pvc_6f1c.toml");
	for (const Diagnostic &diagnostic : outcome.diagnostics)
		ADD_FAILURE() << diagnostic.format();
	VolumeSpec spec = outcome.spec;
	spec.sourceFile.clear();
	return spec;
}

} /* namespace */

TEST(StageSpec, ReaderOnly)
{
	EXPECT_TRUE(readerOnly(AccessMode::SingleNodeReaderOnly));
	EXPECT_TRUE(readerOnly(AccessMode::MultiNodeReaderOnly));
	for (const AccessMode mode :
	     { AccessMode::Unknown, AccessMode::SingleNodeWriter, AccessMode::MultiNodeSingleWriter,
	       AccessMode::MultiNodeMultiWriter, AccessMode::SingleNodeSingleWriter,
	       AccessMode::SingleNodeMultiWriter })
		EXPECT_FALSE(readerOnly(mode)) << static_cast<int>(mode);
}

TEST(StageSpec, CephCsiDynamicVolume)
{
	const Staged out = stage(stageRequest());
	ASSERT_TRUE(out.spec.has_value()) << out.spec.error().message;
	const VolumeSpec &spec = *out.spec;

	EXPECT_EQ(spec.name, "pvc_6f1c");
	EXPECT_EQ(spec.image.pool, "replicapool");
	EXPECT_EQ(spec.image.radosNamespace, "");
	EXPECT_EQ(spec.image.name, ImageName);
	EXPECT_EQ(spec.image.snapshot, "");
	EXPECT_FALSE(spec.image.create.has_value());

	EXPECT_EQ(spec.cluster.conf, "/etc/ceph/ceph.conf");
	EXPECT_EQ(spec.cluster.clientId, "csi-rbd-node");
	EXPECT_EQ(spec.cluster.keyfile, Keyfile);
	EXPECT_EQ(spec.cluster.keyring, "");
	EXPECT_EQ(spec.cluster.monitors, (Strings{ "192.0.2.1:6789", "192.0.2.2:6789" }));

	EXPECT_EQ(spec.map.driver, Driver::Krbd);
	EXPECT_TRUE(spec.map.krbdOptions.empty());
	EXPECT_TRUE(spec.map.nbdOptions.empty());
	EXPECT_FALSE(spec.map.readOnly);
	EXPECT_FALSE(spec.map.exclusive);
	EXPECT_FALSE(spec.map.multiWriter);

	EXPECT_EQ(spec.mode, VolumeMode::Filesystem);
	ASSERT_TRUE(spec.filesystem.has_value());
	EXPECT_EQ(spec.filesystem->type, FsType::Ext4);
	EXPECT_TRUE(spec.filesystem->mkfsOptions.empty());
	EXPECT_EQ(spec.filesystem->format, FormatPolicy::IfBlank);
	EXPECT_EQ(spec.staging.path, StagingPath);
	EXPECT_TRUE(spec.staging.options.empty());
	EXPECT_TRUE(spec.publish.empty());

	EXPECT_TRUE(mentions(out.ignored, "journalPool: ignored, "));
	EXPECT_TRUE(mentions(out.ignored, "imageFeatures: ignored, "));
	EXPECT_TRUE(mentions(out.ignored, "csi.storage.k8s.io/pv/name: ignored, "));
	EXPECT_TRUE(mentions(out.ignored, "storage.kubernetes.io/csiProvisionerIdentity: ignored"));
}

TEST(StageSpec, DynamicVolumeParsesBackFromToml)
{
	const VolumeSpec spec = staged(stageRequest());
	EXPECT_EQ(spec, parsed(std::string(R"(
[image]
pool = "replicapool"
name = ")") + ImageName + R"("

[cluster]
id = "csi-rbd-node"
keyfile = "/run/rbd-volume-csi/keys/pvc_6f1c.key"
monitors = ["192.0.2.1:6789", "192.0.2.2:6789"]

[map]
driver = "krbd"

[staging]
path = ")" + StagingPath + R"("
)"));
}

TEST(StageSpec, StaticVolume)
{
	const Context context = {
		{ "clusterID", "rook-ceph" },
		{ "pool", "rbd" },
		{ "staticVolume", "true" },
		{ "imageFeatures", "layering" },
	};
	StageRequest request = stageRequest(context);
	request.volumeId = "static-image-1";
	const VolumeSpec spec = staged(request);
	EXPECT_EQ(spec.image.pool, "rbd");
	EXPECT_EQ(spec.image.name, "static-image-1");

	/* In-tree migration: the image is named in the context, not by the handle. */
	request.volumeContext["imageName"] = "kubernetes-dynamic-pvc-1";
	request.volumeContext["migration"] = "true";
	EXPECT_EQ(staged(request).image.name, "kubernetes-dynamic-pvc-1");

	/* The handle must still be a valid image name. */
	request.volumeContext.erase("imageName");
	request.volumeId = "pool/image";
	const Error error = stageError(request);
	EXPECT_EQ(error.code, Errc::InvalidArgument);
	EXPECT_TRUE(contains(error.message, "image.name: ")) << error.message;
}

TEST(StageSpec, DynamicVolumeNeedsImageName)
{
	const Error error = stageError(stageRequest(without(dynamicContext(), "imageName")));
	EXPECT_EQ(error.code, Errc::InvalidArgument);
	EXPECT_TRUE(contains(error.message, "no 'imageName'")) << error.message;
	EXPECT_TRUE(contains(error.message, "provisioner puts imageName in the volume context"))
		<< error.message;
	EXPECT_TRUE(contains(error.message, "journal")) << error.message;

	const Error notStatic = stageError(stageRequest(
		with(without(dynamicContext(), "imageName"), "staticVolume", "false")));
	EXPECT_EQ(notStatic.code, Errc::InvalidArgument);
}

TEST(StageSpec, MissingPool)
{
	const Error error = stageError(stageRequest(without(dynamicContext(), "pool")));
	EXPECT_EQ(error.code, Errc::InvalidArgument);
	EXPECT_TRUE(contains(error.message, "no 'pool'")) << error.message;
}

TEST(StageSpec, UnknownClusterId)
{
	const Error error = stageError(stageRequest(with(dynamicContext(), "clusterID", "other")));
	EXPECT_EQ(error.code, Errc::NotFound);
	EXPECT_EQ(error.message,
		  "clusterID 'other' is not in the cluster map (known: 'rook-ceph', 'tenants')");

	const Error empty = stageError(stageRequest(), settings(), ClusterMap{});
	EXPECT_EQ(empty.code, Errc::NotFound);
	EXPECT_TRUE(contains(empty.message, "the cluster map is empty")) << empty.message;

	const Error missing = stageError(stageRequest(without(dynamicContext(), "clusterID")));
	EXPECT_EQ(missing.code, Errc::InvalidArgument);
	EXPECT_TRUE(contains(missing.message, "no 'clusterID'")) << missing.message;
}

namespace {

/* ceph-csi's KMS config, as the shim's lookup would read it. */
StageSettings withKms()
{
	StageSettings s = settings();
	s.kmsEntry = [](const std::string &id) -> Result<KmsEntry> {
		if (id == "secrets-metadata")
			return KmsEntry{ "metadata", "" };
		if (id == "user-secret")
			return KmsEntry{ "metadata", "storage-encryption-secret" };
		if (id == "vault-test")
			return KmsEntry{ "vault", "" };
		return fail(Errc::InvalidArgument,
			    "encryptionKMSID '" + id + "' is not in config.json");
	};
	return s;
}

} /* namespace */

TEST(StageSpec, EncryptedWithTheMetadataKmsKeepsItsKeyInTheImageForTheVolumeId)
{
	const VolumeSpec spec =
		staged(stageRequest(with(with(dynamicContext(), "encrypted", "true"),
					 "encryptionKMSID", "secrets-metadata")),
		       withKms());
	ASSERT_TRUE(spec.encryption);
	EXPECT_EQ(spec.encryption->source, KeySource::ImageMetadata);
	EXPECT_EQ(spec.encryption->volumeId, VolumeId);
	EXPECT_TRUE(spec.encryption->givenAtUp);
	EXPECT_EQ(spec.encryption->keyfile, "");
	EXPECT_EQ(spec.encryption->cipher, "aes-xts-plain64");
}

TEST(StageSpec, EncryptedWithTheDefaultKmsIsKeyedByThePassphraseItself)
{
	const VolumeSpec spec =
		staged(stageRequest(with(with(with(dynamicContext(), "encrypted", "true"),
					      "encryptionCipher", "serpent-xts-plain64"),
					 "encryptionKeySize", "256")),
		       withKms());
	ASSERT_TRUE(spec.encryption);
	EXPECT_EQ(spec.encryption->source, KeySource::Keyfile);
	EXPECT_TRUE(spec.encryption->givenAtUp);
	EXPECT_EQ(spec.encryption->cipher, "serpent-xts-plain64");
	EXPECT_EQ(spec.encryption->keyBits, 256U);
}

TEST(StageSpec, WhatEncryptionCannotBeIsRefusedByName)
{
	struct Case {
		Context context;
		Capability capability;
		Errc code;
		std::string expected;
	};
	const Context encrypted = with(dynamicContext(), "encrypted", "true");
	const std::vector<Case> cases = {
		{ with(encrypted, "encryptionKMSID", "vault-test"), mountCapability(),
		  Errc::InvalidArgument,
		  "is a 'vault' KMS, which rbd-volume-csi does not support" },
		{ with(encrypted, "encryptionKMSID", "user-secret"), mountCapability(),
		  Errc::InvalidArgument, "Kubernetes Secret 'storage-encryption-secret'" },
		{ with(encrypted, "encryptionKMSID", "nope"), mountCapability(),
		  Errc::InvalidArgument, "'nope' is not in config.json" },
		{ with(encrypted, "encryptionType", "file"), mountCapability(),
		  Errc::InvalidArgument, "'file' (fscrypt) is not supported" },
		{ with(encrypted, "encryptionType", "disk"), mountCapability(),
		  Errc::InvalidArgument, "expected 'block' or 'file'" },
		{ encrypted, blockCapability(), Errc::InvalidArgument,
		  "encrypted block volume (volumeMode: Block) is not supported" },
		{ with(encrypted, "integrityMode", "hmac-sha256"), mountCapability(),
		  Errc::InvalidArgument, "integrityMode is not supported" },
		{ with(encrypted, "encryptionKeySize", "384"), mountCapability(),
		  Errc::InvalidArgument, "expected 256 or 512" },
		{ with(encrypted, "encryptionCipher", "AES"), mountCapability(),
		  Errc::InvalidArgument, "encryptionCipher 'AES'" },
	};
	for (const Case &c : cases) {
		const Error error = stageError(stageRequest(c.context, c.capability), withKms());
		EXPECT_EQ(error.code, c.code) << error.message;
		EXPECT_TRUE(contains(error.message, c.expected)) << error.message;
	}
}

TEST(StageSpec, EncryptionKeysOfAVolumeNotEncryptedAreIgnored)
{
	const Staged out = stage(stageRequest(with(with(dynamicContext(), "encrypted", "false"),
						   "encryptionKMSID", "vault-test")),
				 withKms());
	ASSERT_TRUE(out.spec) << out.spec.error().message;
	EXPECT_FALSE(out.spec->encryption);
	EXPECT_TRUE(mentions(out.ignored, "encryptionKMSID: ignored, the volume is not encrypted"));
}

TEST(StageSpec, RadosNamespace)
{
	/* From the cluster map entry (ceph-csi's rbd.radosNamespace)... */
	const Context tenant = with(dynamicContext(), "clusterID", "tenants");
	const VolumeSpec fromEntry = staged(stageRequest(tenant));
	EXPECT_EQ(fromEntry.image.radosNamespace, "tenant_a");
	EXPECT_EQ(fromEntry.cluster.monitors, Strings{ "v2:198.51.100.7:3300" });

	/* ...unless the context names one. */
	const VolumeSpec fromContext =
		staged(stageRequest(with(tenant, "radosNamespace", "tenant_b")));
	EXPECT_EQ(fromContext.image.radosNamespace, "tenant_b");
	EXPECT_EQ(staged(stageRequest(with(dynamicContext(), "radosNamespace", "ns1")))
			  .image.radosNamespace,
		  "ns1");
	EXPECT_EQ(staged(stageRequest(with(tenant, "radosNamespace", ""))).image.radosNamespace,
		  "tenant_a");
}

TEST(StageSpec, ClusterSettings)
{
	StageSettings s = settings();
	s.conf = "/etc/rbd-volume-csi/ceph.conf";
	EXPECT_EQ(staged(stageRequest(), s).cluster.conf, "/etc/rbd-volume-csi/ceph.conf");

	StageRequest request = stageRequest();
	request.clientId.clear();
	const Error noUser = stageError(request);
	EXPECT_EQ(noUser.code, Errc::InvalidArgument);
	EXPECT_TRUE(contains(noUser.message, "userID")) << noUser.message;

	request.clientId = "client.admin";
	const Error prefixed = stageError(request);
	EXPECT_EQ(prefixed.code, Errc::InvalidArgument);
	EXPECT_TRUE(contains(prefixed.message, "cluster.id: ")) << prefixed.message;
}

TEST(StageSpec, NbdMounterWithOptionsForBoth)
{
	const Context context = with(with(dynamicContext(), "mounter", "rbd-nbd"), "mapOptions",
				     "krbd:lock_on_read;nbd:reattach-timeout=300");
	const Staged out = stage(stageRequest(context));
	ASSERT_TRUE(out.spec.has_value()) << out.spec.error().message;
	EXPECT_EQ(out.spec->map.driver, Driver::Nbd);
	EXPECT_EQ(out.spec->map.nbdOptions, Strings{ "reattach-timeout=300" });
	EXPECT_TRUE(out.spec->map.krbdOptions.empty());
	EXPECT_TRUE(mentions(out.ignored, "mapOptions krbd:lock_on_read: ignored, the volume is "
					  "mapped with nbd"));
}

TEST(StageSpec, KrbdMounterKeepsKrbdOptions)
{
	const Context context =
		with(dynamicContext(), "mapOptions", "krbd:lock_on_read;nbd:reattach-timeout=300");
	const Staged out = stage(stageRequest(context));
	ASSERT_TRUE(out.spec.has_value()) << out.spec.error().message;
	EXPECT_EQ(out.spec->map.driver, Driver::Krbd);
	EXPECT_EQ(out.spec->map.krbdOptions, Strings{ "lock_on_read" });
	EXPECT_TRUE(out.spec->map.nbdOptions.empty());
	EXPECT_TRUE(mentions(out.ignored, "mapOptions nbd:reattach-timeout=300: ignored"));
}

TEST(StageSpec, BareListMapOptions)
{
	const VolumeSpec spec = staged(stageRequest(
		with(dynamicContext(), "mapOptions", "lock_on_read,queue_depth=1024,noudev")));
	EXPECT_EQ(spec.map.krbdOptions, (Strings{ "lock_on_read", "queue_depth=1024", "noudev" }));
	const VolumeSpec replica = staged(
		stageRequest(with(dynamicContext(), "mapOptions",
				  "krbd:read_from_replica=localize,crush_location=zone:zone1")));
	EXPECT_EQ(replica.map.krbdOptions,
		  (Strings{ "read_from_replica=localize", "crush_location=zone:zone1" }));
}

TEST(StageSpec, BadMapOptionSyntax)
{
	const Error prefix =
		stageError(stageRequest(with(dynamicContext(), "mapOptions", "fuse:a")));
	EXPECT_EQ(prefix.code, Errc::InvalidArgument);
	EXPECT_TRUE(contains(prefix.message, "unknown mounter 'fuse'")) << prefix.message;

	const Error colon = stageError(
		stageRequest(with(dynamicContext(), "mapOptions", "crush_location=zone:z1")));
	EXPECT_EQ(colon.code, Errc::InvalidArgument);

	const Error unmap =
		stageError(stageRequest(with(dynamicContext(), "unmapOptions", "rbd:force")));
	EXPECT_EQ(unmap.code, Errc::InvalidArgument);
	EXPECT_TRUE(contains(unmap.message, "'unmapOptions'")) << unmap.message;
}

TEST(StageSpec, RefusedMapOptions)
{
	const auto refused = [](const std::string &mounter, const std::string &options) {
		Context context = with(dynamicContext(), "mapOptions", options);
		if (!mounter.empty())
			context["mounter"] = mounter;
		return stageError(stageRequest(context));
	};

	const Error ro = refused("", "krbd:ro");
	EXPECT_EQ(ro.code, Errc::InvalidArgument);
	EXPECT_TRUE(contains(ro.message, "'ro' is not allowed")) << ro.message;
	EXPECT_TRUE(contains(ro.message, "access mode")) << ro.message;

	const Error exclusive = refused("", "exclusive");
	EXPECT_EQ(exclusive.code, Errc::InvalidArgument);
	EXPECT_TRUE(contains(exclusive.message, "'exclusive' is not allowed: rbd-volume-csi does "
						"not hold the exclusive lock"))
		<< exclusive.message;

	const Error unknown = refused("", "krbd:lock_on_raed");
	EXPECT_TRUE(contains(unknown.message, "unknown krbd option 'lock_on_raed'"))
		<< unknown.message;

	const Error cookie = refused("rbd-nbd", "nbd:cookie=abc");
	EXPECT_EQ(cookie.code, Errc::InvalidArgument);
	EXPECT_TRUE(contains(cookie.message, "'cookie' is not allowed here: rbd-volume sets it"))
		<< cookie.message;

	const Error readOnly = refused("rbd-nbd", "nbd:read-only");
	EXPECT_TRUE(contains(readOnly.message, "'read-only' is not allowed")) << readOnly.message;

	/* rbd-nbd options are written without "--", in ceph-csi and in our spec. */
	const Error dashes = refused("rbd-nbd", "nbd:--io-timeout=30");
	EXPECT_EQ(dashes.code, Errc::InvalidArgument);
	EXPECT_TRUE(contains(dashes.message, "unknown nbd option")) << dashes.message;

	/* Options for the driver that does not map the volume are not checked, only reported. */
	EXPECT_TRUE(stage(stageRequest(with(dynamicContext(), "mapOptions", "nbd:cookie=x"))).spec);
}

TEST(StageSpec, ForcedFuseIgnoresMapOptions)
{
	StageSettings s = settings();
	s.forcedDriver = Driver::Fuse;
	const Context context = with(with(dynamicContext(), "mounter", "rbd-nbd"), "mapOptions",
				     "krbd:lock_on_read;nbd:reattach-timeout=300");
	const Staged out = stage(stageRequest(context), s);
	ASSERT_TRUE(out.spec.has_value()) << out.spec.error().message;
	EXPECT_EQ(out.spec->map.driver, Driver::Fuse);
	EXPECT_TRUE(out.spec->map.krbdOptions.empty());
	EXPECT_TRUE(out.spec->map.nbdOptions.empty());
	EXPECT_TRUE(mentions(out.ignored, "mapOptions krbd:lock_on_read: ignored, the volume is "
					  "mapped with fuse"));
	EXPECT_TRUE(mentions(out.ignored, "mapOptions nbd:reattach-timeout=300: ignored"));
	EXPECT_TRUE(
		mentions(out.ignored, "mounter: ignored, this node maps every volume with fuse"));

	/* Options fuse does not take are not judged either. */
	EXPECT_TRUE(stage(stageRequest(with(dynamicContext(), "mapOptions", "krbd:ro")), s).spec);
}

TEST(StageSpec, ForcedDrivers)
{
	StageSettings s = settings();
	s.forcedDriver = Driver::Krbd;
	const Context nbd = with(with(dynamicContext(), "mounter", "rbd-nbd"), "mapOptions",
				 "krbd:lock_on_read;nbd:reattach-timeout=300");
	const Staged krbd = stage(stageRequest(nbd), s);
	ASSERT_TRUE(krbd.spec.has_value());
	EXPECT_EQ(krbd.spec->map.driver, Driver::Krbd);
	EXPECT_EQ(krbd.spec->map.krbdOptions, Strings{ "lock_on_read" });
	EXPECT_TRUE(mentions(krbd.ignored, "mounter: ignored"));

	/* "auto": the host picks the driver, so both lists stay. */
	s.forcedDriver = Driver::Auto;
	const VolumeSpec automatic = staged(stageRequest(nbd), s);
	EXPECT_EQ(automatic.map.driver, Driver::Auto);
	EXPECT_EQ(automatic.map.krbdOptions, Strings{ "lock_on_read" });
	EXPECT_EQ(automatic.map.nbdOptions, Strings{ "reattach-timeout=300" });
}

TEST(StageSpec, FilesystemTypes)
{
	EXPECT_EQ(staged(stageRequest(dynamicContext(), mountCapability(""))).filesystem->type,
		  FsType::Ext4);
	EXPECT_EQ(staged(stageRequest(dynamicContext(), mountCapability("ext4"))).filesystem->type,
		  FsType::Ext4);
	EXPECT_EQ(staged(stageRequest(dynamicContext(), mountCapability("xfs"))).filesystem->type,
		  FsType::Xfs);
	for (const char *type : { "btrfs", "ext3", "EXT4", "xfs " }) {
		const Error error =
			stageError(stageRequest(dynamicContext(), mountCapability(type)));
		EXPECT_EQ(error.code, Errc::InvalidArgument) << type;
		EXPECT_TRUE(contains(error.message, "'ext4' (the default) and 'xfs'"))
			<< error.message;
	}
}

TEST(StageSpec, XfsGetsNouuid)
{
	const VolumeSpec xfs = staged(stageRequest(dynamicContext(), mountCapability("xfs")));
	EXPECT_EQ(xfs.staging.options, Strings{ "nouuid" });

	const VolumeSpec given = staged(
		stageRequest(dynamicContext(), mountCapability("xfs", AccessMode::SingleNodeWriter,
							       { "nouuid", "discard" })));
	EXPECT_EQ(given.staging.options, (Strings{ "nouuid", "discard" }));

	const VolumeSpec ext4 = staged(stageRequest(dynamicContext(), mountCapability("ext4")));
	EXPECT_TRUE(ext4.staging.options.empty());
}

TEST(StageSpec, MountFlags)
{
	const auto flagsOf = [](Strings flags) {
		return staged(stageRequest(dynamicContext(),
					   mountCapability("ext4", AccessMode::SingleNodeWriter,
							   std::move(flags))))
			.staging.options;
	};
	EXPECT_EQ(flagsOf({ "discard" }), Strings{ "discard" });
	EXPECT_EQ(flagsOf({ "noatime,nodiratime", " discard ", "" }),
		  (Strings{ "noatime", "nodiratime", "discard" }));
	/* "rw" is the default for a writer: dropped. */
	EXPECT_EQ(flagsOf({ "rw", "noatime" }), Strings{ "noatime" });

	for (const char *flag : { "bind", "remount", "rbind", "move", "x-rbd-volume.owner=x" }) {
		const Error error = stageError(stageRequest(
			dynamicContext(), mountCapability("ext4", AccessMode::SingleNodeWriter,
							  { "discard", flag })));
		EXPECT_EQ(error.code, Errc::InvalidArgument) << flag;
		EXPECT_TRUE(contains(error.message, std::string("mount flag '") + flag + "'"))
			<< error.message;
	}
}

TEST(StageSpec, RoMountFlagMapsReadOnly)
{
	const VolumeSpec spec = staged(
		stageRequest(dynamicContext(), mountCapability("ext4", AccessMode::SingleNodeWriter,
							       { "ro", "noatime" })));
	EXPECT_TRUE(spec.map.readOnly);
	EXPECT_EQ(spec.staging.options, Strings{ "noatime" });

	const Error both = stageError(
		stageRequest(dynamicContext(),
			     mountCapability("ext4", AccessMode::SingleNodeWriter, { "ro,rw" })));
	EXPECT_EQ(both.code, Errc::InvalidArgument);
	EXPECT_EQ(both.message, "mount flags 'ro' and 'rw' contradict each other");

	const Error rwReader = stageError(
		stageRequest(dynamicContext(),
			     mountCapability("ext4", AccessMode::MultiNodeReaderOnly, { "rw" })));
	EXPECT_EQ(rwReader.code, Errc::InvalidArgument);
	EXPECT_TRUE(contains(rwReader.message, "MULTI_NODE_READER_ONLY")) << rwReader.message;
}

TEST(StageSpec, ReaderOnlyModesMapReadOnly)
{
	for (const AccessMode mode :
	     { AccessMode::SingleNodeReaderOnly, AccessMode::MultiNodeReaderOnly }) {
		EXPECT_TRUE(staged(stageRequest(dynamicContext(), mountCapability("ext4", mode)))
				    .map.readOnly);
		const VolumeSpec block =
			staged(stageRequest(dynamicContext(), blockCapability(mode)));
		EXPECT_TRUE(block.map.readOnly);
		EXPECT_FALSE(block.map.multiWriter);
	}
	for (const AccessMode mode :
	     { AccessMode::SingleNodeWriter, AccessMode::SingleNodeSingleWriter,
	       AccessMode::SingleNodeMultiWriter }) {
		const VolumeSpec spec =
			staged(stageRequest(dynamicContext(), mountCapability("ext4", mode)));
		EXPECT_FALSE(spec.map.readOnly);
		EXPECT_FALSE(spec.map.multiWriter);
	}
}

TEST(StageSpec, UnsupportedAccessModes)
{
	const Error unknown = stageError(
		stageRequest(dynamicContext(), mountCapability("ext4", AccessMode::Unknown)));
	EXPECT_EQ(unknown.code, Errc::InvalidArgument);
	EXPECT_TRUE(contains(unknown.message, "UNKNOWN")) << unknown.message;
	EXPECT_EQ(stageError(stageRequest(dynamicContext(), blockCapability(AccessMode::Unknown)))
			  .code,
		  Errc::InvalidArgument);

	const Error singleWriter = stageError(
		stageRequest(dynamicContext(), blockCapability(AccessMode::MultiNodeSingleWriter)));
	EXPECT_EQ(singleWriter.code, Errc::InvalidArgument);
	EXPECT_TRUE(contains(singleWriter.message, "MULTI_NODE_SINGLE_WRITER is not supported"))
		<< singleWriter.message;

	/* The value a bad caller sends, out of the enum's range on purpose. */
	const auto bogus =
		static_cast<AccessMode>(42); // NOLINT(clang-analyzer-optin.core.EnumCastOutOfRange)
	const Error outOfRange =
		stageError(stageRequest(dynamicContext(), mountCapability("ext4", bogus)));
	EXPECT_EQ(outOfRange.code, Errc::InvalidArgument);
}

TEST(StageSpec, MultiNodeMultiWriter)
{
	const Error mount = stageError(stageRequest(
		dynamicContext(), mountCapability("ext4", AccessMode::MultiNodeMultiWriter)));
	EXPECT_EQ(mount.code, Errc::InvalidArgument);
	EXPECT_TRUE(contains(mount.message, "block volumes only")) << mount.message;

	const VolumeSpec block = staged(
		stageRequest(dynamicContext(), blockCapability(AccessMode::MultiNodeMultiWriter)));
	EXPECT_TRUE(block.map.multiWriter);
	EXPECT_FALSE(block.map.readOnly);
	EXPECT_EQ(block.mode, VolumeMode::Block);
}

TEST(StageSpec, BlockVolume)
{
	Capability capability = blockCapability();
	capability.mountFlags = { "discard" };
	capability.fsType = "ext4";
	const Context context = with(dynamicContext(), "mkfsOptions", "-m0");
	const Staged out = stage(stageRequest(context, capability));
	ASSERT_TRUE(out.spec.has_value()) << out.spec.error().message;
	EXPECT_EQ(out.spec->mode, VolumeMode::Block);
	EXPECT_FALSE(out.spec->filesystem.has_value());
	EXPECT_EQ(out.spec->staging.path, std::string(StagingPath) + "/rbd-volume.block");
	EXPECT_EQ(out.spec->staging.path, std::string(StagingPath) + "/" + BlockStagingFile);
	EXPECT_TRUE(out.spec->staging.options.empty());
	EXPECT_TRUE(mentions(out.ignored, "mount flag 'discard': ignored"));
	EXPECT_TRUE(mentions(out.ignored, "fsType 'ext4': ignored"));
	EXPECT_TRUE(mentions(out.ignored, "mkfsOptions: ignored"));
}

TEST(StageSpec, BlockNbdMultiWriterParsesBackFromToml)
{
	const Context context =
		with(with(with(dynamicContext(), "clusterID", "tenants"), "mounter", "rbd-nbd"),
		     "mapOptions", "nbd:reattach-timeout=300,io-timeout=0");
	const VolumeSpec spec =
		staged(stageRequest(context, blockCapability(AccessMode::MultiNodeMultiWriter)));
	EXPECT_EQ(spec, parsed(std::string(R"(
mode = "block"

[image]
pool = "replicapool"
namespace = "tenant_a"
name = ")") + ImageName + R"("

[cluster]
id = "csi-rbd-node"
keyfile = "/run/rbd-volume-csi/keys/pvc_6f1c.key"
monitors = ["v2:198.51.100.7:3300"]

[map]
driver = "nbd"
multi-writer = true

[map.nbd]
options = ["reattach-timeout=300", "io-timeout=0"]

[staging]
path = ")" + StagingPath + R"(/rbd-volume.block"
)"));
}

TEST(StageSpec, MkfsOptions)
{
	const Context context =
		with(dynamicContext(), "mkfsOptions", "-m0 -Enodiscard,lazy_itable_init=1 -i 1024");
	const VolumeSpec spec = staged(stageRequest(context));
	EXPECT_EQ(spec.filesystem->mkfsOptions,
		  (Strings{ "-m0", "-Enodiscard,lazy_itable_init=1", "-i", "1024" }));

	/* ceph-csi runs no custom mkfs for static volumes. */
	const Staged fixed = stage(stageRequest(
		with(with(context, "staticVolume", "true"), "imageName", "static-image")));
	ASSERT_TRUE(fixed.spec.has_value());
	EXPECT_TRUE(fixed.spec->filesystem->mkfsOptions.empty());
	EXPECT_TRUE(mentions(fixed.ignored, "mkfsOptions: ignored"));

	for (const char *force : { "-F", "-qF", "-m0 -F" }) {
		const Error error =
			stageError(stageRequest(with(dynamicContext(), "mkfsOptions", force)));
		EXPECT_EQ(error.code, Errc::InvalidArgument) << force;
		EXPECT_TRUE(contains(error.message, "force flag")) << error.message;
	}
	const Error xfsForce = stageError(
		stageRequest(with(dynamicContext(), "mkfsOptions", "-f"), mountCapability("xfs")));
	EXPECT_EQ(xfsForce.code, Errc::InvalidArgument);
}

TEST(StageSpec, XfsReadOnlyParsesBackFromToml)
{
	const Context context = with(with(dynamicContext(), "mapOptions", "lock_on_read"),
				     "mkfsOptions", "-m reflink=0");
	const VolumeSpec spec = staged(stageRequest(
		context, mountCapability("xfs", AccessMode::MultiNodeReaderOnly, { "discard" })));
	EXPECT_EQ(spec, parsed(std::string(R"(
[image]
pool = "replicapool"
name = ")") + ImageName + R"("

[cluster]
id = "csi-rbd-node"
keyfile = "/run/rbd-volume-csi/keys/pvc_6f1c.key"
monitors = ["192.0.2.1:6789", "192.0.2.2:6789"]

[map]
driver = "krbd"
read-only = true

[map.krbd]
options = ["lock_on_read"]

[filesystem]
type = "xfs"
mkfs-options = ["-m", "reflink=0"]

[staging]
path = ")" + StagingPath + R"("
options = ["discard", "nouuid"]
)"));
}

TEST(StageSpec, UnknownAndIgnoredKeysReported)
{
	const Context context =
		with(with(with(dynamicContext(), "baseIops", "100"), "tryOtherMounters", "true"),
		     "unmapOptions", "krbd:force");
	const Staged out = stage(stageRequest(context));
	ASSERT_TRUE(out.spec.has_value());
	EXPECT_TRUE(mentions(out.ignored, "baseIops: ignored, not a volume context key"));
	EXPECT_TRUE(mentions(out.ignored, "tryOtherMounters: ignored"));
	EXPECT_TRUE(mentions(out.ignored, "unmapOptions: ignored, rbd-volume unmaps only what it "
					  "mapped"));
}

TEST(StageSpec, InvalidValuesFailValidation)
{
	/* A name the caller derived badly is a bug, still refused in words. */
	Staged out{ VolumeSpec{}, {} };
	out.spec = stageSpec("pvc-6f1c", stageRequest(), clusterMap(), settings(), out.ignored);
	ASSERT_FALSE(out.spec.has_value());
	EXPECT_EQ(out.spec.error().code, Errc::InvalidArgument);
	EXPECT_TRUE(contains(out.spec.error().message, "name: ")) << out.spec.error().message;

	const Error pool = stageError(stageRequest(with(dynamicContext(), "pool", "a/b")));
	EXPECT_EQ(pool.code, Errc::InvalidArgument);
	EXPECT_TRUE(contains(pool.message, "would be invalid: image.pool: ")) << pool.message;

	ClusterMap badMonitors = clusterMap();
	badMonitors.clusters[0].monitors = { "192.0.2.1:6789,192.0.2.2:6789" };
	const Error monitors = stageError(stageRequest(), settings(), badMonitors);
	EXPECT_EQ(monitors.code, Errc::InvalidArgument);
	EXPECT_TRUE(contains(monitors.message, "cluster.monitors[0]: ")) << monitors.message;

	StageSettings relative = settings();
	relative.keyfile = "keys/pvc.key";
	const Error keyfile = stageError(stageRequest(), relative);
	EXPECT_EQ(keyfile.code, Errc::InvalidArgument);
	EXPECT_TRUE(contains(keyfile.message, "cluster.keyfile: ")) << keyfile.message;

	StageRequest request = stageRequest();
	request.stagingTargetPath = "/";
	const Error staging = stageError(request);
	EXPECT_EQ(staging.code, Errc::InvalidArgument);
	EXPECT_TRUE(contains(staging.message, "staging.path: ")) << staging.message;
}

} /* namespace rbdvolume::csi */
