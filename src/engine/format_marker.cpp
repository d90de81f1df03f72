/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "engine/format_marker.hpp"

#include "common/clock_time.hpp"

namespace rbdvolume {

std::string formatMarker(const std::string &type, const std::string &uuid, const std::string &host,
			 std::chrono::system_clock::time_point when)
{
	std::string marker = type;
	if (!uuid.empty())
		marker += " uuid=" + uuid;
	if (!host.empty())
		marker += " host=" + host;
	return marker + " time=" + utcTime(when);
}

std::string markedButBlank(const ImageSpec &image, const std::string &device,
			   const std::vector<MadeRecord> &records)
{
	std::string made;
	std::string removes;
	for (const MadeRecord &record : records) {
		made += (made.empty() ? "'" : ", '") + record.marker + "' (metadata " + record.key +
			")";
		removes += (removes.empty() ? "" : "; ") + std::string("rbd image-meta remove ") +
			   image.display() + " " + record.key;
	}
	return "rbd-volume made " + made + " on " + image.display() + ", but " + device +
	       " now looks blank; refusing to write over it. If its data is gone for good: " +
	       removes;
}

} /* namespace rbdvolume */
