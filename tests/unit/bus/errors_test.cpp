/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Errors across the bus: the daemon's name for each error class. */
#include "bus/errors.hpp"

#include <array>
#include <utility>

#include <gtest/gtest.h>

namespace rbdvolume::bus {

namespace {

TEST(BusErrors, EveryErrorClassHasItsName)
{
	const std::array<std::pair<Errc, const char *>, 13> names = { {
		{ Errc::InvalidArgument, "org.rbdvolume1.Error.SpecInvalid" },
		{ Errc::NotFound, "org.rbdvolume1.Error.NotFound" },
		{ Errc::Conflict, "org.rbdvolume1.Error.Conflict" },
		{ Errc::Busy, "org.rbdvolume1.Error.Busy" },
		{ Errc::Timeout, "org.rbdvolume1.Error.Timeout" },
		{ Errc::PermissionDenied, "org.rbdvolume1.Error.PermissionDenied" },
		{ Errc::Unsupported, "org.rbdvolume1.Error.Failed" },
		{ Errc::Io, "org.rbdvolume1.Error.Failed" },
		{ Errc::Unreachable, "org.rbdvolume1.Error.Failed" },
		{ Errc::ShuttingDown, "org.rbdvolume1.Error.ShuttingDown" },
		{ Errc::Disconnected, "org.rbdvolume1.Error.Failed" },
		{ Errc::Blocklisted, "org.rbdvolume1.Error.Failed" },
		{ Errc::Internal, "org.rbdvolume1.Error.Failed" },
	} };
	static_assert(names.size() == static_cast<size_t>(Errc::Count));
	for (const auto &[code, name] : names)
		EXPECT_STREQ(errorName(code), name) << errcName(code);
}

TEST(BusErrors, ANameReadBackIsTheSameClass)
{
	for (const Errc code : { Errc::InvalidArgument, Errc::Conflict, Errc::Busy, Errc::Timeout,
				 Errc::ShuttingDown })
		EXPECT_EQ(errorFromBus(errorName(code), "why").code, code) << errcName(code);
	/* The daemon's NotFound names an image or a device: the operation failed. */
	EXPECT_EQ(errorFromBus(errorName(Errc::NotFound), "why").code, Errc::Io);
}

} /* namespace */

} /* namespace rbdvolume::bus */
