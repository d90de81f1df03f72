/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "host/given_passphrases.hpp"

namespace rbdvolume {

void GivenPassphrases::give(const std::string &volume, Secret passphrase)
{
	const std::lock_guard lock(mutex_);
	given_.insert_or_assign(volume, std::move(passphrase));
}

Result<Secret> GivenPassphrases::copyOf(const std::string &volume) const
{
	const std::lock_guard lock(mutex_);
	const auto it = given_.find(volume);
	if (it == given_.end())
		return fail(
			Errc::NotFound,
			"volume '" + volume +
				"': its passphrase comes with its up request (given-at-up), and "
				"none came since rbd-volumed started; bring it up again with it");
	return Secret(it->second.view());
}

void GivenPassphrases::forget(const std::string &volume)
{
	const std::lock_guard lock(mutex_);
	given_.erase(volume);
}

} /* namespace rbdvolume */
