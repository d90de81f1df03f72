/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "config/volume_spec.hpp"

namespace rbdvolume {

const char *driverName(Driver driver)
{
	switch (driver) {
	case Driver::Auto:
		return "auto";
	case Driver::Krbd:
		return "krbd";
	case Driver::Nbd:
		return "nbd";
	case Driver::Fuse:
		return "fuse";
	}
	return "?";
}

const char *fsTypeName(FsType type)
{
	switch (type) {
	case FsType::Ext4:
		return "ext4";
	case FsType::Xfs:
		return "xfs";
	}
	return "?";
}

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
