/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "host/proc_mount_table.hpp"

#include <algorithm>
#include <cstdlib>

#include "common/file_io.hpp"
#include "host/mountinfo.hpp"

namespace rbdvolume {

namespace {

/* Far beyond a host's table (10,000 mounts are about 1.5 MiB), short of a runaway. */
constexpr size_t MountTableBytes = size_t{ 64 } << 20;

/* libmount's own rule: LIBMOUNT_UTAB, else /run/mount/utab. */
std::string utabPath()
{
	/* NOLINTNEXTLINE(concurrency-mt-unsafe): nothing sets the environment after start */
	const char *path = std::getenv("LIBMOUNT_UTAB");
	return path != nullptr && *path != '\0' ? path : "/run/mount/utab";
}

} /* namespace */

Result<std::vector<MountEntry>> ProcMountTable::read()
{
	auto mountinfo = readFileBounded("/proc/self/mountinfo", MountTableBytes);
	if (!mountinfo || !*mountinfo)
		return fail(Errc::Io, "cannot read the mount table: /proc/self/mountinfo: " +
					      (mountinfo ? "missing" : mountinfo.error().message));
	auto entries = parseMountinfo(**mountinfo);
	if (!entries)
		return entries;
	/* Read after the table: a line for a mount the table does not show yet waits for the next read. */
	const std::string utab = utabPath();
	auto lines = readFileBounded(utab, MountTableBytes, Symlinks::Follow);
	if (!lines)
		return fail(Errc::Io,
			    "cannot read the mount table: " + utab + ": " + lines.error().message);
	if (*lines)
		applyOwners(*entries, parseUtab(**lines));
	return entries;
}

Result<std::optional<MountEntry>> visibleMount(const std::string &target)
{
	auto entries = ProcMountTable().read();
	if (!entries)
		return tl::make_unexpected(entries.error());
	const auto top = std::find_if(entries->rbegin(), entries->rend(),
				      [&](const MountEntry &e) { return e.target == target; });
	if (top == entries->rend())
		return std::optional<MountEntry>();
	return std::optional<MountEntry>(std::move(*top));
}

} /* namespace rbdvolume */
