/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What an operator reads in the journal when a volume's status changes: it
 * came up or went down (MESSAGE_IDs VolumeUp, VolumeDown), a refusal or a
 * lost mapper appeared (FormatRefused, MapperLost, or a plain warning). The
 * steps themselves are recorded as they run (host/step_record). Nothing is
 * written when nothing changed, nor for the first sighting after a start.
 */
#pragma once

#include <string>
#include <vector>

#include "daemon/volume_status.hpp"
#include "journal/log.hpp"

namespace rbdvolume::daemon {

/* One volume's record of its status changes, fed each status it shows. */
class VolumeRecord
{
public:
	/*
	 * `atStart`: the volume was there when the daemon started, so its first
	 * sighting is what already was, no news. A volume added later is news
	 * when it turns out up.
	 */
	explicit VolumeRecord(bool atStart)
		: settled_(atStart ? bus::Phase::Unknown : bus::Phase::Down)
	{
	}

	/* The lines for the change from `before` to `after`; none when it is no news. */
	std::vector<log::Line> changed(const VolumeStatus &before, const VolumeStatus &after);

private:
	/*
	 * The last phase shown but pending and unknown: a pass shows a volume
	 * pending while it runs, and one that changed nothing is no news.
	 */
	bus::Phase settled_;
};

} /* namespace rbdvolume::daemon */
