/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Pass-through options: krbd, rbd-nbd, mount options and mkfs force flags. */
#include "config/spec_options.hpp"

#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

namespace rbdvolume {

TEST(SpecOptions, GoodKrbdOptions)
{
	for (const std::string_view good : { "fsid=7e0e6d8a-0d56-4b63-9d8d-6a4c3b4b0f11",
					     "ip=192.0.2.10",
					     "share",
					     "noshare",
					     "crc",
					     "nocrc",
					     "cephx_require_signatures",
					     "nocephx_require_signatures",
					     "tcp_nodelay",
					     "notcp_nodelay",
					     "cephx_sign_messages",
					     "nocephx_sign_messages",
					     "mount_timeout=60",
					     "osd_request_timeout=0",
					     "osdkeepalive=5",
					     "osd_idle_ttl=60",
					     "queue_depth=128",
					     "lock_on_read",
					     "lock_timeout=30",
					     "notrim",
					     "abort_on_full",
					     "alloc_size=65536",
					     "crush_location=host:a|rack:b",
					     "read_from_replica=no",
					     "read_from_replica=balance",
					     "read_from_replica=localize",
					     "compression_hint=none",
					     "compression_hint=compressible",
					     "compression_hint=incompressible",
					     "ms_mode=legacy",
					     "ms_mode=crc",
					     "ms_mode=secure",
					     "ms_mode=prefer-crc",
					     "ms_mode=prefer-secure",
					     "rxbounce",
					     "udev",
					     "noudev" }) {
		SCOPED_TRACE(good);
		EXPECT_EQ(krbdOptionProblem(good), std::nullopt);
	}
}

TEST(SpecOptions, BadKrbdOptions)
{
	EXPECT_EQ(krbdOptionProblem("ro"), "'ro' is not allowed here: set map.read-only instead");
	EXPECT_EQ(krbdOptionProblem("exclusive"),
		  "'exclusive' is not allowed here: set map.exclusive instead");
	EXPECT_EQ(krbdOptionProblem("read_only=1"),
		  "'read_only' is not allowed here: set map.read-only instead");
	EXPECT_EQ(krbdOptionProblem("lock_on_reads"),
		  "unknown krbd option 'lock_on_reads'; did you mean 'lock_on_read'?");
	EXPECT_EQ(krbdOptionProblem("bogus"), "unknown krbd option 'bogus'");
	EXPECT_EQ(krbdOptionProblem("ip"), "expected 'ip=VALUE', found 'ip'");
	EXPECT_EQ(krbdOptionProblem("alloc_size=64k"),
		  "expected a whole number for 'alloc_size', found 'alloc_size=64k'");
	EXPECT_EQ(krbdOptionProblem("queue_depth=12345678901"),
		  "expected a whole number for 'queue_depth', found 'queue_depth=12345678901'");
	EXPECT_EQ(krbdOptionProblem("compression_hint=zstd"),
		  "expected one of 'none', 'compressible', 'incompressible' for "
		  "'compression_hint', found 'compression_hint=zstd'");
	EXPECT_EQ(krbdOptionProblem("udev=1"), "expected 'udev' without a value, found 'udev=1'");
	EXPECT_EQ(krbdOptionProblem("a b"),
		  "expected one krbd option per entry, without ',' or whitespace, found 'a b'");
}

TEST(SpecOptions, GoodNbdOptions)
{
	for (const std::string_view good :
	     { "reattach-timeout=300", "io-timeout=0", "quiesce", "quiesce-hook=/usr/bin/hook",
	       "max_part=16", "nbds_max=64", "encryption-format=luks1", "encryption-format=luks2",
	       "encryption-passphrase-file=/etc/keys/x" }) {
		SCOPED_TRACE(good);
		EXPECT_EQ(nbdOptionProblem(good), std::nullopt);
	}
}

TEST(SpecOptions, BadNbdOptions)
{
	EXPECT_EQ(nbdOptionProblem("device=/dev/nbd3"),
		  "'device' is not allowed here: rbd-volume sets it");
	EXPECT_EQ(nbdOptionProblem("read-only"),
		  "'read-only' is not allowed here: set map.read-only instead");
	EXPECT_EQ(nbdOptionProblem("encryption-passphrase-file=/etc/../x"),
		  "expected a normal absolute path for 'encryption-passphrase-file', found "
		  "'encryption-passphrase-file=/etc/../x'");
	EXPECT_EQ(nbdOptionProblem("max_part"), "expected 'max_part=VALUE', found 'max_part'");
	EXPECT_EQ(nbdOptionProblem("quiesce=yes"),
		  "expected 'quiesce' without a value, found 'quiesce=yes'");
	EXPECT_EQ(nbdOptionProblem("timeout=30"), "unknown nbd option 'timeout'");
	EXPECT_EQ(nbdOptionProblem(""), "expected a non-empty nbd option, found ''");
	/* krbd options are not nbd options. */
	EXPECT_EQ(nbdOptionProblem("queue_depth=128"), "unknown nbd option 'queue_depth'");
}

TEST(SpecOptions, MountOptions)
{
	for (const std::string_view good :
	     { "noatime", "nodev", "nosuid", "noexec", "discard", "data=ordered", "x-systemd.foo",
	       "context=system_u:object_r:svirt_sandbox_file_t:s0" }) {
		SCOPED_TRACE(good);
		EXPECT_EQ(mountOptionProblem(good), std::nullopt);
	}
	for (const std::string_view bad :
	     { "rw", "ro", "bind", "rbind", "remount", "move", "x-rbd-volume", "x-rbd-volume.owner",
	       "a,b", "a b", "" }) {
		SCOPED_TRACE(bad);
		EXPECT_NE(mountOptionProblem(bad), std::nullopt);
	}
	EXPECT_EQ(mountOptionProblem("ro"), "'ro' is not allowed here: read-only has its own key");
}

TEST(SpecOptions, MkfsForceFlagsReadLikeGetopt)
{
	using Args = std::vector<std::string>;
	using Indexes = std::vector<size_t>;
	EXPECT_EQ(mkfsForceArguments(FsType::Ext4, Args{ "-m", "0", "-L", "data" }), Indexes{});
	EXPECT_EQ(mkfsForceArguments(FsType::Ext4, Args{ "-F" }), Indexes{ 0 });
	EXPECT_EQ(mkfsForceArguments(FsType::Ext4, Args{ "-q", "-FF" }), Indexes{ 1 });
	EXPECT_EQ(mkfsForceArguments(FsType::Ext4, Args{ "-qF" }), Indexes{ 0 });
	/* A value, attached or separate, is not a flag. */
	EXPECT_EQ(mkfsForceArguments(FsType::Ext4, Args{ "-LF" }), Indexes{});
	EXPECT_EQ(mkfsForceArguments(FsType::Ext4, Args{ "-L", "-F" }), Indexes{});
	EXPECT_EQ(mkfsForceArguments(FsType::Ext4, Args{ "-L", "-F", "-F" }), Indexes{ 2 });
	/* After "--" come operands, not options. */
	EXPECT_EQ(mkfsForceArguments(FsType::Ext4, Args{ "--", "-F" }), Indexes{});
	/* -f is not ext4's force flag; -F is not xfs's. */
	EXPECT_EQ(mkfsForceArguments(FsType::Ext4, Args{ "-f" }), Indexes{});
	EXPECT_EQ(mkfsForceArguments(FsType::Xfs, Args{ "-F" }), Indexes{});
	EXPECT_EQ(mkfsForceArguments(FsType::Xfs, Args{ "-f" }), Indexes{ 0 });
	EXPECT_EQ(mkfsForceArguments(FsType::Xfs, Args{ "-qf" }), Indexes{ 0 });
	EXPECT_EQ(mkfsForceArguments(FsType::Xfs, Args{ "-m", "crc=1", "-L", "f" }), Indexes{});
	EXPECT_EQ(mkfsForceArguments(FsType::Xfs, Args{ "-Lf" }), Indexes{});
}

} /* namespace rbdvolume */
