/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* loadClusterMap(): reading the cluster map, bounded in size, and choosing its parser. */
#include "csi/cluster_map_load.hpp"

#include <cerrno>
#include <exception>
#include <optional>
#include <string>
#include <utility>

#include "common/char_class.hpp"
#include "common/errno_text.hpp"
#include "common/result.hpp"
#include "config/text_file.hpp"
#include "csi/cluster_map_json.hpp"

namespace rbdvolume::csi {

namespace {

/* A config.json of a few clusters is a few KiB; a huge file is a mistake (or /dev/zero). */
constexpr size_t MaxClusterMapBytes = size_t{ 1024 } * 1024;

} /* namespace */

ClusterMapFormat detectClusterMapFormat(std::string_view text)
{
	const size_t start = text.find_first_not_of(" \t\r\n");
	if (start == std::string_view::npos)
		return ClusterMapFormat::Toml;
	if (text[start] == '{')
		return ClusterMapFormat::Json;
	if (text[start] != '[')
		return ClusterMapFormat::Toml;
	const std::string_view rest = text.substr(start + 1);
	if (!rest.empty() && rest.front() == '[')
		return ClusterMapFormat::Toml;
	const size_t next = rest.find_first_not_of(" \t");
	if (next != std::string_view::npos && (isAsciiLetter(rest[next]) || rest[next] == '_'))
		return ClusterMapFormat::Toml;
	return ClusterMapFormat::Json;
}

ClusterMapOutcome loadClusterMap(const std::string &path)
{
	try {
		Result<std::optional<std::string>> text =
			readSmallTextFile(path, MaxClusterMapBytes, "a cluster map");
		if (!text)
			return clusterMapFailure(path, text.error().message);
		if (!*text)
			return clusterMapFailure(path,
						 "cannot read the file: " + errnoText(ENOENT));
		if (detectClusterMapFormat(**text) == ClusterMapFormat::Json)
			return parseClusterMapJson(**text, path);
		return parseClusterMapToml(**text, path);
	} catch (const std::exception &error) {
		return clusterMapFailure(path, std::string("internal error while reading: ") +
						       error.what());
	} catch (...) {
		return clusterMapFailure(path, "internal error while reading: unknown exception");
	}
}

} /* namespace rbdvolume::csi */
