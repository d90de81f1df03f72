/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "config/volume_spec.hpp"

namespace rbdvolume {

std::string ImageSpec::display() const
{
	std::string out = pool + '/';
	if (!radosNamespace.empty())
		out += radosNamespace + '/';
	out += name;
	if (!snapshot.empty())
		out += '@' + snapshot;
	return out;
}

} /* namespace rbdvolume */
