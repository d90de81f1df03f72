/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* ceph-csi's volume context: keys read, keys ignored, values refused. */
#include "csi/volume_context.hpp"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace rbdvolume::csi {

namespace {

using Context = std::map<std::string, std::string>;
using Strings = std::vector<std::string>;

bool mentions(const Strings &lines, const std::string &start)
{
	return std::any_of(lines.begin(), lines.end(),
			   [&start](const std::string &line) { return line.starts_with(start); });
}

Error parseError(const Context &context)
{
	const Result<VolumeContext> parsed = parseVolumeContext(context);
	EXPECT_FALSE(parsed.has_value());
	return parsed ? Error{} : parsed.error();
}

MounterOptions mounterOptions(const std::string &text)
{
	Strings notes;
	const Result<MounterOptions> parsed = parseMounterOptions("mapOptions", text, notes);
	EXPECT_TRUE(parsed.has_value()) << (parsed ? "" : parsed.error().message);
	return parsed.value_or(MounterOptions{});
}

} /* namespace */

/* What ceph-csi's CreateVolume hands to the node for an ordinary StorageClass. */
TEST(VolumeContext, CephCsiDynamicVolume)
{
	const Context context = {
		{ "clusterID", "rook-ceph" },
		{ "pool", "replicapool" },
		{ "imageName", "csi-vol-0d4b5a8e-7c1a-4f9f-9a43-2b1c7e0f5d11" },
		{ "journalPool", "replicapool" },
		{ "imageFeatures", "layering,exclusive-lock,object-map,fast-diff" },
		{ "imageFormat", "2" },
		{ "csi.storage.k8s.io/pv/name", "pvc-6f1c3a9e-2b1d-4a77-8e3f-5d9c0b2a7e41" },
		{ "csi.storage.k8s.io/pvc/name", "data-postgres-0" },
		{ "csi.storage.k8s.io/pvc/namespace", "db" },
		{ "storage.kubernetes.io/csiProvisionerIdentity",
		  "1700000000000-8081-rbd.csi.ceph.com" },
	};
	const Result<VolumeContext> parsed = parseVolumeContext(context);
	ASSERT_TRUE(parsed.has_value()) << parsed.error().message;
	EXPECT_EQ(parsed->clusterId, "rook-ceph");
	EXPECT_EQ(parsed->pool, "replicapool");
	EXPECT_EQ(parsed->imageName, "csi-vol-0d4b5a8e-7c1a-4f9f-9a43-2b1c7e0f5d11");
	EXPECT_EQ(parsed->radosNamespace, "");
	EXPECT_FALSE(parsed->staticVolume);
	EXPECT_EQ(parsed->mounter, Mounter::Krbd);
	EXPECT_TRUE(parsed->mapOptions.empty());
	EXPECT_TRUE(parsed->mkfsOptions.empty());
	EXPECT_EQ(parsed->imageFeatures, "layering,exclusive-lock,object-map,fast-diff");

	EXPECT_TRUE(mentions(parsed->ignored, "journalPool: ignored, "));
	EXPECT_TRUE(mentions(parsed->ignored, "csi.storage.k8s.io/pv/name: ignored, "));
	EXPECT_TRUE(mentions(parsed->ignored, "csi.storage.k8s.io/pvc/name: ignored, "));
	EXPECT_TRUE(mentions(parsed->ignored, "csi.storage.k8s.io/pvc/namespace: ignored, "));
	EXPECT_TRUE(mentions(parsed->ignored, "storage.kubernetes.io/csiProvisionerIdentity: "));
	EXPECT_EQ(parsed->unknownKeys, Strings{ "imageFormat" });
}

TEST(VolumeContext, StaticVolume)
{
	const Result<VolumeContext> parsed = parseVolumeContext({
		{ "clusterID", "ceph-a" },
		{ "pool", "rbd" },
		{ "staticVolume", "true" },
		{ "imageFeatures", "layering" },
		{ "mounter", "rbd" },
	});
	ASSERT_TRUE(parsed.has_value()) << parsed.error().message;
	EXPECT_TRUE(parsed->staticVolume);
	EXPECT_EQ(parsed->imageName, "");
	EXPECT_EQ(parsed->mounter, Mounter::Krbd);
	EXPECT_TRUE(parsed->ignored.empty());
	EXPECT_TRUE(parsed->unknownKeys.empty());
}

TEST(VolumeContext, BooleansAreTrueOrFalse)
{
	for (const char *key : { "staticVolume", "tryOtherMounters", "encrypted" }) {
		SCOPED_TRACE(key);
		const Result<VolumeContext> off = parseVolumeContext({ { key, "false" } });
		ASSERT_TRUE(off.has_value()) << off.error().message;
		EXPECT_FALSE(off->staticVolume);
		EXPECT_FALSE(off->tryOtherMounters);

		const Error error = parseError({ { key, "yes" } });
		EXPECT_EQ(error.code, Errc::InvalidArgument);
		EXPECT_EQ(error.message, "volume context key '" + std::string(key) +
						 "': expected 'true' or 'false', found 'yes'");
		EXPECT_EQ(parseError({ { key, "True" } }).code, Errc::InvalidArgument);
		EXPECT_EQ(parseError({ { key, "" } }).code, Errc::InvalidArgument);
	}
	const Result<VolumeContext> on = parseVolumeContext({ { "tryOtherMounters", "true" } });
	ASSERT_TRUE(on.has_value());
	EXPECT_TRUE(on->tryOtherMounters);
}

TEST(VolumeContext, Mounter)
{
	const auto mounterOf = [](const std::string &value) {
		const Result<VolumeContext> parsed = parseVolumeContext({ { "mounter", value } });
		EXPECT_TRUE(parsed.has_value()) << value;
		return parsed ? parsed->mounter : Mounter::Krbd;
	};
	EXPECT_EQ(mounterOf("rbd"), Mounter::Krbd);
	EXPECT_EQ(mounterOf(""), Mounter::Krbd);
	EXPECT_EQ(mounterOf("rbd-nbd"), Mounter::Nbd);
	EXPECT_EQ(parseVolumeContext({})->mounter, Mounter::Krbd);

	const Error error = parseError({ { "mounter", "nbd" } });
	EXPECT_EQ(error.code, Errc::InvalidArgument);
	EXPECT_EQ(error.message, "volume context key 'mounter': expected 'rbd' (the kernel "
				 "client) or 'rbd-nbd', found 'nbd'");
	EXPECT_EQ(parseError({ { "mounter", "fuse" } }).code, Errc::InvalidArgument);
}

TEST(VolumeContext, EncryptionKeysAreKeptAsGiven)
{
	const Result<VolumeContext> parsed = parseVolumeContext({
		{ "encrypted", "true" },
		{ "encryptionKMSID", "secrets-metadata" },
		{ "encryptionType", "block" },
		{ "encryptionCipher", "aes-xts-plain64" },
		{ "encryptionKeySize", "256" },
	});
	ASSERT_TRUE(parsed.has_value()) << parsed.error().message;
	EXPECT_TRUE(parsed->encryption.encrypted);
	EXPECT_EQ(parsed->encryption.kmsId, "secrets-metadata");
	EXPECT_EQ(parsed->encryption.type, "block");
	EXPECT_EQ(parsed->encryption.cipher, "aes-xts-plain64");
	EXPECT_EQ(parsed->encryption.keySize, "256");
	EXPECT_TRUE(parsed->ignored.empty());

	EXPECT_FALSE(parseVolumeContext({ { "encrypted", "false" } })->encryption.encrypted);
	const Error error = parseError({ { "encrypted", "yes" } });
	EXPECT_EQ(error.code, Errc::InvalidArgument);
}

TEST(VolumeContext, KnownKeysIgnored)
{
	const Result<VolumeContext> parsed = parseVolumeContext({
		{ "dataPool", "ec-data" },
		{ "cephLogDir", "/var/log/ceph" },
		{ "cephLogStrategy", "compress" },
		{ "volumeNamePrefix", "k8s-" },
		{ "thickProvision", "false" },
		{ "migration", "true" },
	});
	ASSERT_TRUE(parsed.has_value());
	for (const char *key : { "dataPool", "cephLogDir", "cephLogStrategy", "volumeNamePrefix",
				 "thickProvision", "migration" })
		EXPECT_TRUE(mentions(parsed->ignored, std::string(key) + ": ignored, ")) << key;
	EXPECT_TRUE(parsed->unknownKeys.empty());
}

TEST(VolumeContext, UnknownKeysListed)
{
	const Result<VolumeContext> parsed = parseVolumeContext({
		{ "baseIops", "100" },
		{ "poool", "rbd" },
	});
	ASSERT_TRUE(parsed.has_value());
	EXPECT_EQ(parsed->unknownKeys, (Strings{ "baseIops", "poool" }));
	EXPECT_TRUE(parsed->ignored.empty());
}

TEST(VolumeContext, MkfsOptionsSplitOnWhitespace)
{
	const Result<VolumeContext> parsed = parseVolumeContext(
		{ { "mkfsOptions", "  -m0\t-Enodiscard,lazy_itable_init=1  -i 1024 " } });
	ASSERT_TRUE(parsed.has_value());
	EXPECT_EQ(parsed->mkfsOptions,
		  (Strings{ "-m0", "-Enodiscard,lazy_itable_init=1", "-i", "1024" }));
	EXPECT_TRUE(parseVolumeContext({ { "mkfsOptions", "   " } })->mkfsOptions.empty());
}

TEST(MounterOptions, PrefixedLists)
{
	const MounterOptions options = mounterOptions("krbd:lock_on_read;nbd:reattach-timeout=300");
	EXPECT_EQ(options.krbd, Strings{ "lock_on_read" });
	EXPECT_EQ(options.nbd, Strings{ "reattach-timeout=300" });

	const MounterOptions several =
		mounterOptions("krbd:lock_on_read,queue_depth=1024;nbd:io-timeout=30,quiesce");
	EXPECT_EQ(several.krbd, (Strings{ "lock_on_read", "queue_depth=1024" }));
	EXPECT_EQ(several.nbd, (Strings{ "io-timeout=30", "quiesce" }));
}

TEST(MounterOptions, BareListIsKrbd)
{
	const MounterOptions options = mounterOptions("lock_on_read,queue_depth=1024");
	EXPECT_EQ(options.krbd, (Strings{ "lock_on_read", "queue_depth=1024" }));
	EXPECT_TRUE(options.nbd.empty());

	const MounterOptions mixed = mounterOptions("notrim;nbd:quiesce");
	EXPECT_EQ(mixed.krbd, Strings{ "notrim" });
	EXPECT_EQ(mixed.nbd, Strings{ "quiesce" });
}

TEST(MounterOptions, EmptyPiecesSkipped)
{
	EXPECT_TRUE(mounterOptions("").empty());
	EXPECT_TRUE(mounterOptions(";;").empty());
	EXPECT_TRUE(mounterOptions("krbd:").empty());
	const MounterOptions options = mounterOptions(";krbd: a ,, b ;; NBD:c;");
	EXPECT_EQ(options.krbd, (Strings{ "a", "b" }));
	EXPECT_EQ(options.nbd, Strings{ "c" });
}

TEST(MounterOptions, ColonInValueNeedsPrefix)
{
	const MounterOptions options =
		mounterOptions("krbd:read_from_replica=localize,crush_location=zone:zone1");
	EXPECT_EQ(options.krbd,
		  (Strings{ "read_from_replica=localize", "crush_location=zone:zone1" }));

	Strings notes;
	const Result<MounterOptions> bare =
		parseMounterOptions("mapOptions", "crush_location=zone:zone1", notes);
	ASSERT_FALSE(bare.has_value());
	EXPECT_EQ(bare.error().code, Errc::InvalidArgument);
	EXPECT_NE(bare.error().message.find("unknown mounter 'crush_location=zone'"),
		  std::string::npos)
		<< bare.error().message;
}

TEST(MounterOptions, UnknownPrefixIsAnError)
{
	Strings notes;
	const Result<MounterOptions> parsed =
		parseMounterOptions("unmapOptions", "rbd:force", notes);
	ASSERT_FALSE(parsed.has_value());
	EXPECT_EQ(parsed.error().code, Errc::InvalidArgument);
	EXPECT_EQ(parsed.error().message,
		  "volume context key 'unmapOptions': unknown mounter 'rbd' in 'rbd:force'; "
		  "expected 'krbd:OPTIONS', 'nbd:OPTIONS' or OPTIONS without ':' (a value "
		  "containing ':' needs the mounter, as in 'krbd:crush_location=host:a')");

	EXPECT_FALSE(parseMounterOptions("mapOptions", ":a", notes).has_value());

	const Error error = parseError({ { "mapOptions", "krbd:a;fuse:b" } });
	EXPECT_EQ(error.code, Errc::InvalidArgument);
}

TEST(MounterOptions, RepeatedMounterKeepsLastList)
{
	Strings notes;
	const Result<MounterOptions> parsed =
		parseMounterOptions("mapOptions", "krbd:a;nbd:x;krbd:b,c", notes);
	ASSERT_TRUE(parsed.has_value());
	EXPECT_EQ(parsed->krbd, (Strings{ "b", "c" }));
	EXPECT_EQ(parsed->nbd, Strings{ "x" });
	ASSERT_EQ(notes.size(), 1U);
	EXPECT_EQ(notes[0], "mapOptions: krbd options given more than once; the last list 'b,c' "
			    "is used, as ceph-csi does");
}

TEST(VolumeContext, MapAndUnmapOptions)
{
	const Result<VolumeContext> parsed = parseVolumeContext({
		{ "mounter", "rbd-nbd" },
		{ "mapOptions", "krbd:lock_on_read;nbd:reattach-timeout=300" },
		{ "unmapOptions", "krbd:force;nbd:force" },
	});
	ASSERT_TRUE(parsed.has_value());
	EXPECT_EQ(parsed->mounter, Mounter::Nbd);
	EXPECT_EQ(parsed->mapOptions.krbd, Strings{ "lock_on_read" });
	EXPECT_EQ(parsed->mapOptions.nbd, Strings{ "reattach-timeout=300" });
	EXPECT_EQ(parsed->unmapOptions.krbd, Strings{ "force" });
	EXPECT_EQ(parsed->unmapOptions.nbd, Strings{ "force" });
}

} /* namespace rbdvolume::csi */
