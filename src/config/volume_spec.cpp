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

const char *pbkdfName(Pbkdf pbkdf)
{
	switch (pbkdf) {
	case Pbkdf::Argon2id:
		return "argon2id";
	case Pbkdf::Argon2i:
		return "argon2i";
	case Pbkdf::Pbkdf2:
		return "pbkdf2";
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
