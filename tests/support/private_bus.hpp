/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A private dbus-daemon for one test suite: its own socket in a temporary directory. */
#pragma once

#include <memory>
#include <string>

#include <sys/types.h>

#include "temp_dir.hpp"

namespace rbdvolume::testing {

class PrivateBus
{
public:
	/*
	 * Starts dbus-daemon; nullptr with `problem` set when it cannot. With
	 * `activationExec`, org.rbdvolume1 is activatable: a call to it that
	 * may start its service has the bus run that command.
	 */
	static std::unique_ptr<PrivateBus> start(std::string &problem,
						 const std::string &activationExec = "");

	PrivateBus() = default;
	~PrivateBus();
	PrivateBus(const PrivateBus &) = delete;
	PrivateBus &operator=(const PrivateBus &) = delete;
	PrivateBus(PrivateBus &&) = delete;
	PrivateBus &operator=(PrivateBus &&) = delete;

	/* What DBUS_SYSTEM_BUS_ADDRESS is set to for a client of this bus. */
	const std::string &address() const { return address_; }

	/* The dbus-daemon program: $RBDV_DBUS_DAEMON, or dbus-daemon on $PATH; "" if none. */
	static std::string program();

private:
	TempDir dir_;
	std::string address_;
	pid_t pid_ = -1;
};

/* RBDV_REQUIRE_INTEGRATION=1 (CI): a bus that cannot start fails the test, never skips it. */
bool integrationRequired();

} /* namespace rbdvolume::testing */
