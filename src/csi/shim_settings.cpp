/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "csi/shim_settings.hpp"

#include <charconv>
#include <functional>

#include "common/char_class.hpp"
#include "common/host_name.hpp"
#include "common/paths.hpp"

namespace rbdvolume::csi {

const char *const ShimUsage =
	"usage: rbd-volume-csi [OPTION...]\n"
	"The CSI node plugin of rbd-volume: serves CSI Identity and Node on a unix\n"
	"socket, writes runtime specs, and lets rbd-volumed do the work.\n"
	"\n"
	"  --endpoint PATH          the CSI socket (default\n"
	"                           /var/lib/kubelet/plugins/rbd.volume.csi/csi.sock)\n"
	"  --driver-name NAME       the CSI driver name (default rbd.volume.csi)\n"
	"  --node-id ID             this node's ID (default: the host name)\n"
	"  --cluster-map FILE       clusterID to monitors: our TOML, or ceph-csi's\n"
	"                           config.json (default /etc/rbd-volume/csi-clusters.toml)\n"
	"  --kms-config FILE        ceph-csi's KMS config.json, for encryptionKMSID (default\n"
	"                           /etc/ceph-csi-encryption-kms-config/config.json)\n"
	"  --registration-dir DIR   register with kubelet there (default\n"
	"                           /var/lib/kubelet/plugins_registry; \"\" to not register)\n"
	"  --driver DRIVER          krbd, nbd or fuse for every volume, whatever the\n"
	"                           volume context's mounter says\n"
	"  --topology KEY=VALUE     a topology segment of this node (repeatable)\n"
	"  --max-volumes N          the most volumes this node takes (default: no limit)\n"
	"  --max-wait SECONDS       the longest a call waits for rbd-volumed (default 100)\n"
	"  --runtime-dir DIR        where runtime specs and keys go (default /run/rbd-volume)\n"
	"  --log-level info|debug   debug also logs what each request ignored\n"
	"  --help, --version\n";

namespace {

Result<int64_t> number(const std::string &flag, const std::string &text, int64_t min, int64_t max)
{
	int64_t value = 0;
	const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
	if (ec != std::errc() || end != text.data() + text.size() || value < min || value > max)
		return fail(Errc::InvalidArgument,
			    flag + ": expected a whole number from " + std::to_string(min) +
				    " to " + std::to_string(max) + ", found '" + text + "'");
	return value;
}

Result<void> checkPath(const std::string &flag, const std::string &path, bool emptyOk)
{
	if ((emptyOk && path.empty()) || paths::isNormalAbsolutePath(path))
		return {};
	return fail(Errc::InvalidArgument,
		    flag + ": expected an absolute path without '.' or '..', found '" + path + "'");
}

using Setter = std::function<Result<void>(ShimSettings &, const std::string &)>;

const std::map<std::string, Setter> &setters()
{
	static const std::map<std::string, Setter> table = {
		{ "--endpoint",
		  [](ShimSettings &s, const std::string &v) {
			  s.endpoint = v.starts_with("unix://") ? v.substr(7) : v;
			  return checkPath("--endpoint", s.endpoint, false);
		  } },
		{ "--driver-name",
		  [](ShimSettings &s, const std::string &v) -> Result<void> {
			  if (const auto problem = driverNameProblem(v))
				  return fail(Errc::InvalidArgument, "--driver-name: " + *problem);
			  s.driverName = v;
			  return {};
		  } },
		{ "--node-id",
		  [](ShimSettings &s, const std::string &v) -> Result<void> {
			  if (v.empty() || v.size() > 256)
				  return fail(Errc::InvalidArgument,
					      "--node-id: expected 1 to 256 characters");
			  s.nodeId = v;
			  return {};
		  } },
		{ "--cluster-map",
		  [](ShimSettings &s, const std::string &v) {
			  s.clusterMap = v;
			  return checkPath("--cluster-map", v, false);
		  } },
		{ "--kms-config",
		  [](ShimSettings &s, const std::string &v) {
			  s.kmsConfig = v;
			  return checkPath("--kms-config", v, false);
		  } },
		{ "--registration-dir",
		  [](ShimSettings &s, const std::string &v) {
			  s.registrationDir = v;
			  return checkPath("--registration-dir", v, true);
		  } },
		{ "--runtime-dir",
		  [](ShimSettings &s, const std::string &v) {
			  s.runtimeDir = v;
			  return checkPath("--runtime-dir", v, false);
		  } },
		{ "--driver",
		  [](ShimSettings &s, const std::string &v) -> Result<void> {
			  /* every driver but auto: a forced driver is one driver */
			  const std::optional<Driver> driver = valueIn(DriverNames, v);
			  if (!driver || *driver == Driver::Auto)
				  return fail(Errc::InvalidArgument,
					      "--driver: expected krbd, nbd or fuse, found '" + v +
						      "'");
			  s.forcedDriver = driver;
			  return {};
		  } },
		{ "--topology",
		  [](ShimSettings &s, const std::string &v) -> Result<void> {
			  const size_t eq = v.find('=');
			  if (eq == 0 || eq == std::string::npos || eq + 1 == v.size())
				  return fail(Errc::InvalidArgument,
					      "--topology: expected KEY=VALUE, found '" + v + "'");
			  s.topology[v.substr(0, eq)] = v.substr(eq + 1);
			  return {};
		  } },
		{ "--max-volumes",
		  [](ShimSettings &s, const std::string &v) -> Result<void> {
			  auto n = number("--max-volumes", v, 0, 1000000);
			  if (!n)
				  return tl::make_unexpected(n.error());
			  s.maxVolumes = *n;
			  return {};
		  } },
		{ "--max-wait",
		  [](ShimSettings &s, const std::string &v) -> Result<void> {
			  auto n = number("--max-wait", v, 1, 3600);
			  if (!n)
				  return tl::make_unexpected(n.error());
			  s.maxWait = std::chrono::seconds(*n);
			  return {};
		  } },
		{ "--log-level",
		  [](ShimSettings &s, const std::string &v) -> Result<void> {
			  if (v != "info" && v != "debug")
				  return fail(Errc::InvalidArgument,
					      "--log-level: expected info or debug, found '" + v +
						      "'");
			  s.logLevel = v == "debug" ? log::Level::Debug : log::Level::Info;
			  return {};
		  } },
	};
	return table;
}

} /* namespace */

std::optional<std::string> driverNameProblem(const std::string &name)
{
	if (name.empty() || name.size() > 63)
		return "a driver name has 1 to 63 characters";
	if (!isAsciiAlnum(name.front()) || !isAsciiAlnum(name.back()))
		return "a driver name begins and ends with a letter or a digit";
	for (const char c : name) {
		if (!isAsciiAlnum(c) && c != '-' && c != '_' && c != '.')
			return std::string("a driver name has only letters, digits, '-', '_' and "
					   "'.', not '") +
			       c + "'";
	}
	return {};
}

Result<ShimSettings> parseShimSettings(const std::vector<std::string> &args)
{
	ShimSettings settings;
	for (size_t i = 0; i < args.size(); i++) {
		const std::string &arg = args[i];
		if (arg == "--help" || arg == "-h") {
			settings.help = true;
			continue;
		}
		if (arg == "--version") {
			settings.version = true;
			continue;
		}
		const size_t eq = arg.find('=');
		const std::string flag = arg.substr(0, eq);
		const auto setter = setters().find(flag);
		if (setter == setters().end())
			return fail(Errc::InvalidArgument, "unknown option '" + arg + "'");
		std::string value;
		if (eq != std::string::npos)
			value = arg.substr(eq + 1);
		else if (i + 1 < args.size())
			value = args[++i];
		else
			return fail(Errc::InvalidArgument, flag + ": a value is missing");
		if (auto set = setter->second(settings, value); !set)
			return tl::make_unexpected(set.error());
	}
	if (settings.nodeId.empty())
		settings.nodeId = hostName();
	if (settings.nodeId.empty())
		return fail(Errc::InvalidArgument, "no --node-id given and no host name to use");
	return settings;
}

} /* namespace rbdvolume::csi */
