/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "host/ownership_files.hpp"

#include <cerrno>
#include <cstring>
#include <sstream>
#include <unistd.h>

#include "common/errno_text.hpp"
#include "common/key_value_text.hpp"
#include "host/fs_util.hpp"

namespace rbdvolume {

std::string formatOwnership(const Ownership &record)
{
	std::ostringstream out;
	out << "# rbd-volume ownership record: what rbd-volume created for this volume\n";
	if (!record.mappedDevice.empty())
		out << "mapped-device=" << record.mappedDevice << '\n';
	if (record.mapPending)
		out << "map-pending=1\n";
	if (record.formatted)
		out << "formatted=1\n";
	if (record.staged)
		out << "staged=1\n";
	if (record.sizedBytes != 0)
		out << "sized-bytes=" << record.sizedBytes << '\n';
	for (const std::string &target : record.publishedTargets)
		out << "published=" << target << '\n';
	return out.str();
}

namespace {

/* A key worth quoting back: never the content of a file that is no record. */
bool isPlainKey(const std::string &key)
{
	return !key.empty() && key.size() <= 32 &&
	       key.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-") == std::string::npos;
}

} /* namespace */

Result<Ownership> parseOwnership(const std::string &text, const std::string &path)
{
	Ownership record;
	for (const auto &[key, value, line] : parseKeyValueText(text)) {
		if (key == "mapped-device")
			record.mappedDevice = value;
		else if (key == "map-pending")
			record.mapPending = value == "1";
		else if (key == "formatted")
			record.formatted = value == "1";
		else if (key == "staged")
			record.staged = value == "1";
		else if (key == "sized-bytes")
			record.sizedBytes = std::strtoull(value.c_str(), nullptr, 10);
		else if (key == "published")
			record.publishedTargets.push_back(value);
		else
			return fail(Errc::Io, path + ":" + std::to_string(line) + ": " +
						      (isPlainKey(key) ? "unknown key '" + key + "'"
								       : "a line that is no key") +
						      " in an ownership record");
	}
	return record;
}

/*
 * A record that cannot be ours (not a regular file, garbage) is moved aside
 * to NAME.damaged and read as empty: what we made is known again from the
 * markers it carries (the mounts' in utab, the fuse and nbd mappings'),
 * and the volume can still go down. Only an I/O error fails the load.
 */
Result<Ownership> OwnershipFiles::load(const std::string &volume)
{
	const std::string file = path(volume);
	auto text = readFile(file);
	if (text && !*text)
		return Ownership{};
	if (!text && text.error().code != Errc::InvalidArgument)
		return tl::make_unexpected(text.error());
	if (text) {
		auto parsed = parseOwnership(**text, file);
		if (parsed)
			return parsed;
	}
	if (rename(file.c_str(), (file + ".damaged").c_str()) < 0)
		return fail(Errc::Io,
			    "cannot move the damaged record '" + file +
				    "' aside: " + errnoText(errno),
			    errno);
	return Ownership{};
}

Result<void> OwnershipFiles::save(const std::string &volume, const Ownership &record)
{
	const std::string file = path(volume);
	if (record.empty()) {
		if (unlink(file.c_str()) < 0 && errno != ENOENT)
			return fail(Errc::Io, "cannot remove '" + file + "': " + errnoText(errno),
				    errno);
		return {};
	}
	if (auto made = makeDirectories(directory_, 0700); !made)
		return made;
	return writeFileAtomic(file, formatOwnership(record), 0600);
}

} /* namespace rbdvolume */
