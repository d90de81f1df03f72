/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "host/drivers/fuse/fuse_volume.hpp"

#include <array>

#include "common/state_file.hpp"

namespace rbdvolume {

FuseVolume FuseVolume::of(const MapRequest &request)
{
	FuseVolume volume;
	volume.pool = request.image.pool;
	volume.radosNamespace = request.image.radosNamespace;
	volume.image = request.image.name;
	volume.conf = request.cluster.conf;
	volume.clientId = request.cluster.clientId;
	volume.keyring = request.cluster.keyring;
	volume.keyfile = request.cluster.keyfile;
	for (const std::string &monitor : request.cluster.monitors)
		volume.monitors += (volume.monitors.empty() ? "" : ",") + monitor;
	return volume;
}

namespace {

constexpr std::array<StateKey, 8> FuseVolumeKeys = { {
	{ "pool", StateValue::Text, false, true },
	{ "namespace", StateValue::Text },
	{ "image", StateValue::Text, false, true },
	{ "conf", StateValue::Text },
	{ "id", StateValue::Text },
	{ "keyring", StateValue::Text },
	{ "keyfile", StateValue::Text },
	{ "monitors", StateValue::Text },
} };

/* Unnamed: its messages predate the schema and stay as they were. */
constexpr StateSchema FuseVolumeSchema{ "", FuseVolumeKeys };

} /* namespace */

Result<std::string> formatFuseVolume(const FuseVolume &volume)
{
	StateWriter out(FuseVolumeSchema,
			"rbd-volume fuse driver: the image rbd-fuse@NAME.service shows");
	out.add("pool", volume.pool);
	out.add("namespace", volume.radosNamespace);
	out.add("image", volume.image);
	out.add("conf", volume.conf);
	out.add("id", volume.clientId);
	out.add("keyring", volume.keyring);
	out.add("keyfile", volume.keyfile);
	out.add("monitors", volume.monitors);
	return out.text();
}

Result<FuseVolume> parseFuseVolume(const std::string &text, const std::string &path)
{
	auto fields = parseStateText(text, path, FuseVolumeSchema);
	if (!fields)
		return tl::make_unexpected(fields.error());
	FuseVolume volume;
	volume.pool = fields->text("pool").value_or("");
	volume.radosNamespace = fields->text("namespace").value_or("");
	volume.image = fields->text("image").value_or("");
	volume.conf = fields->text("conf").value_or("");
	volume.clientId = fields->text("id").value_or("");
	volume.keyring = fields->text("keyring").value_or("");
	volume.keyfile = fields->text("keyfile").value_or("");
	volume.monitors = fields->text("monitors").value_or("");
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
