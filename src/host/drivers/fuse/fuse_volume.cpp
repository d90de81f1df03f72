/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "host/drivers/fuse/fuse_volume.hpp"

#include <sstream>

#include "common/key_value_text.hpp"

namespace rbdvolume {

FuseVolume FuseVolume::fromSpec(const VolumeSpec &spec)
{
	FuseVolume volume;
	volume.pool = spec.image.pool;
	volume.radosNamespace = spec.image.radosNamespace;
	volume.image = spec.image.name;
	volume.conf = spec.cluster.conf;
	volume.clientId = spec.cluster.clientId;
	volume.keyring = spec.cluster.keyring;
	volume.keyfile = spec.cluster.keyfile;
	for (const std::string &monitor : spec.cluster.monitors)
		volume.monitors += (volume.monitors.empty() ? "" : ",") + monitor;
	return volume;
}

std::string formatFuseVolume(const FuseVolume &volume)
{
	std::ostringstream out;
	out << "# rbd-volume fuse driver: the image rbd-fuse@NAME.service shows\n"
	    << "pool=" << volume.pool << '\n'
	    << "namespace=" << volume.radosNamespace << '\n'
	    << "image=" << volume.image << '\n'
	    << "conf=" << volume.conf << '\n'
	    << "id=" << volume.clientId << '\n'
	    << "keyring=" << volume.keyring << '\n'
	    << "keyfile=" << volume.keyfile << '\n'
	    << "monitors=" << volume.monitors << '\n';
	return out.str();
}

Result<FuseVolume> parseFuseVolume(const std::string &text, const std::string &path)
{
	FuseVolume volume;
	for (const auto &[key, value, line] : parseKeyValueText(text)) {
		std::string *field = key == "pool"	  ? &volume.pool
				     : key == "namespace" ? &volume.radosNamespace
				     : key == "image"	  ? &volume.image
				     : key == "conf"	  ? &volume.conf
				     : key == "id"	  ? &volume.clientId
				     : key == "keyring"	  ? &volume.keyring
				     : key == "keyfile"	  ? &volume.keyfile
				     : key == "monitors"  ? &volume.monitors
							  : nullptr;
		if (!field)
			return fail(Errc::InvalidArgument, path + ":" + std::to_string(line) +
								   ": unknown key '" + key + "'");
		*field = value;
	}
	if (volume.pool.empty() || volume.image.empty())
		return fail(Errc::InvalidArgument, path + ": names no pool and image");
	return volume;
}

std::vector<std::string> rbdFuseArgv(const std::string &rbdFuse, const FuseVolume &volume,
				     const std::string &mountPoint)
{
	std::vector<std::string> argv = { rbdFuse,     mountPoint, "-f",       "-c",
					  volume.conf, "-p",	   volume.pool };
	if (!volume.radosNamespace.empty())
		argv.insert(argv.end(), { "--namespace", volume.radosNamespace });
	argv.insert(argv.end(), { "-r", volume.image });
	return argv;
}

std::vector<std::string> rbdFuseEnv(const FuseVolume &volume)
{
	std::string args = "--id=" + volume.clientId;
	if (!volume.keyring.empty())
		args += " --keyring=" + volume.keyring;
	if (!volume.keyfile.empty())
		args += " --keyfile=" + volume.keyfile;
	if (!volume.monitors.empty())
		args += " --mon-host=" + volume.monitors;
	return { "CEPH_ARGS=" + args };
}

} /* namespace rbdvolume */
