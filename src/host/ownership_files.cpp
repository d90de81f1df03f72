/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "host/ownership_files.hpp"

#include <array>
#include <cerrno>
#include <cstring>
#include <unistd.h>

#include "common/errno_text.hpp"
#include "common/fs_util.hpp"
#include "common/state_file.hpp"

namespace rbdvolume {

namespace {

constexpr std::array<StateKey, 9> OwnershipKeys = { {
	{ "mapped-device", StateValue::Path },
	{ "map-pending", StateValue::Flag },
	{ "formatted", StateValue::Flag },
	{ "luks-formatted", StateValue::Flag },
	{ "luks-pending", StateValue::Flag },
	{ "crypt-span-bytes", StateValue::Number },
	{ "staged", StateValue::Flag },
	{ "sized-bytes", StateValue::Number },
	{ "published", StateValue::Path, true },
} };

constexpr StateSchema OwnershipSchema{ "an ownership record", OwnershipKeys };

} /* namespace */

Result<std::string> formatOwnership(const Ownership &record)
{
	StateWriter out(OwnershipSchema,
			"rbd-volume ownership record: what rbd-volume created for this volume");
	if (!record.mappedDevice.empty())
		out.add("mapped-device", record.mappedDevice);
	out.addFlag("map-pending", record.mapPending);
	out.addFlag("formatted", record.formatted);
	out.addFlag("luks-formatted", record.luksFormatted);
	out.addFlag("luks-pending", record.luksPending);
	if (record.cryptSpanBytes != 0)
		out.addNumber("crypt-span-bytes", record.cryptSpanBytes);
	out.addFlag("staged", record.staged);
	if (record.sizedBytes != 0)
		out.addNumber("sized-bytes", record.sizedBytes);
	for (const std::string &target : record.publishedTargets)
		out.add("published", target);
	return out.text();
}

Result<Ownership> parseOwnership(const std::string &text, const std::string &path)
{
	auto fields = parseStateText(text, path, OwnershipSchema);
	if (!fields)
		return tl::make_unexpected(fields.error());
	Ownership record;
	record.mappedDevice = fields->text("mapped-device").value_or("");
	record.mapPending = fields->flag("map-pending");
	record.formatted = fields->flag("formatted");
	record.luksFormatted = fields->flag("luks-formatted");
	record.luksPending = fields->flag("luks-pending");
	record.cryptSpanBytes = fields->number("crypt-span-bytes");
	record.staged = fields->flag("staged");
	record.sizedBytes = fields->number("sized-bytes");
	record.publishedTargets = fields->all("published");
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
		return failErrno("cannot move the damaged record '" + file + "' aside", errno);
	return Ownership{};
}

Result<void> OwnershipFiles::save(const std::string &volume, const Ownership &record)
{
	const std::string file = path(volume);
	if (record.empty()) {
		if (unlink(file.c_str()) < 0 && errno != ENOENT)
			return failErrno("cannot remove '" + file + "'", errno);
		return {};
	}
	if (auto made = makeDirectories(directory_, 0700); !made)
		return made;
	auto text = formatOwnership(record);
	if (!text)
		return tl::make_unexpected(text.error());
	return writeFileAtomic(file, *text, 0600);
}

} /* namespace rbdvolume */
