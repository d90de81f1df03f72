/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * GivenPassphrases: the passphrases callers hand rbd-volumed with an up
 * request (rbd-volume-csi's stage secret), for volumes whose [encryption]
 * says given-at-up. Kept in this process's memory only, never in a file,
 * wiped when the volume is taken down or the daemon exits: a restarted
 * daemon opens such a volume again only once the next up brings it.
 * Shared by the bus thread that receives them and the workers that use them.
 */
#pragma once

#include <map>
#include <mutex>
#include <string>

#include "common/result.hpp"
#include "common/secret.hpp"

namespace rbdvolume {

class GivenPassphrases
{
public:
	/* Replaces what `volume` was given before. */
	void give(const std::string &volume, Secret passphrase);
	/* A copy of what `volume` was given; NotFound, saying how to give it, when nothing was. */
	Result<Secret> copyOf(const std::string &volume) const;
	void forget(const std::string &volume);

private:
	mutable std::mutex mutex_;
	std::map<std::string, Secret> given_;
};

} /* namespace rbdvolume */
