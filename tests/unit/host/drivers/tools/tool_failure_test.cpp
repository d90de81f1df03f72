/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Reading the errno out of a Ceph tool's message, and classing the failure by it. */
#include "host/drivers/tools/tool_failure.hpp"

#include <cerrno>

#include <gtest/gtest.h>

namespace rbdvolume::testing {
namespace {

TEST(ToolFailure, ErrnoFromCephsMessage)
{
	EXPECT_EQ(cephToolErrno("rbd: map failed: (6) No such device or address"), 6);
	EXPECT_EQ(cephToolErrno("rbd-nbd: failed to open image (pool (x)): (2) No such file"), 2);
	EXPECT_EQ(cephToolErrno("rbd: map failed: (110) Connection timed out"), 110);
	EXPECT_EQ(cephToolErrno("Job for rbd-nbd@data.service failed (see journal)."), 0);
	EXPECT_EQ(cephToolErrno("(123456) too long"), 0);
	EXPECT_EQ(cephToolErrno("()"), 0);
	EXPECT_EQ(cephToolErrno(""), 0);
}

TEST(ToolFailure, ClassesByErrno)
{
	EXPECT_EQ(errcForErrno(ENOENT), Errc::NotFound);
	EXPECT_EQ(errcForErrno(EBUSY), Errc::Busy);
	EXPECT_EQ(errcForErrno(EACCES), Errc::PermissionDenied);
	EXPECT_EQ(errcForErrno(ENXIO), Errc::Unsupported);
	EXPECT_EQ(errcForErrno(EINVAL), Errc::InvalidArgument);
	/* The tool's own timeout is a definite failure: only our kill is uncertain. */
	EXPECT_EQ(errcForErrno(ETIMEDOUT), Errc::Io);
	EXPECT_EQ(errcForErrno(0), Errc::Io);
}

TEST(ToolFailure, SignalsAreIoWhateverTheText)
{
	CommandOutput output;
	output.termSignal = 9;
	output.err = "rbd: map failed: (16) Device or resource busy\n";
	const Error error = toolFailure("rbd device map rbd/data", output).value();
	EXPECT_EQ(error.code, Errc::Io);
	EXPECT_EQ(error.message, "rbd device map rbd/data: killed by signal 9: rbd: map failed: "
				 "(16) Device or resource busy");
}

/* The line that names the problem, not the last line of a usage text after it. */
TEST(ToolFailure, DescribesTheErrorBeforeAUsageText)
{
	CommandOutput output;
	output.exitStatus = 1;
	output.err = "Filesystem must be larger than 300MB.\nUsage: mkfs.xfs\n"
		     "/* blocksize */\t\t[-b size=num]\n<value> is xxx (512 byte blocks).\n";
	EXPECT_EQ(output.describe(), "exit status 1: Filesystem must be larger than 300MB.");
	output.err = "usage: rbd-nbd map [options]\n  --device DEV\n";
	EXPECT_EQ(output.describe(), "exit status 1: usage: rbd-nbd map [options]");
	output.err = "warning: one\nmkfs.ext4: Device size reported to be zero.\n";
	EXPECT_EQ(output.describe(), "exit status 1: mkfs.ext4: Device size reported to be zero.");
	output.err.clear();
	output.out = "only stdout\n";
	EXPECT_EQ(output.describe(), "exit status 1: only stdout");
}

} /* namespace */
} /* namespace rbdvolume::testing */
