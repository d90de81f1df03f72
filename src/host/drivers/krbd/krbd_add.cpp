/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "host/drivers/krbd/krbd_add.hpp"

#include <algorithm>
#include <array>
#include <string_view>

namespace rbdvolume {

namespace {

bool isToolOption(const std::string &option)
{
	return option == "udev" || option == "noudev";
}

bool has(const std::vector<std::string> &options, std::string_view option)
{
	return std::any_of(options.begin(), options.end(), [&](const std::string &o) {
		return o == option || o.starts_with(std::string(option) + "=");
	});
}

/* ms_mode=legacy, or none: the kernel speaks msgr1 to the monitors. */
bool speaksMsgr2(const std::vector<std::string> &options)
{
	for (const std::string &option : options) {
		if (option.starts_with("ms_mode="))
			return option != "ms_mode=legacy";
	}
	return false;
}

void appendJoined(std::string &out, const std::vector<std::string> &parts, char separator)
{
	for (size_t i = 0; i < parts.size(); ++i) {
		if (i > 0)
			out += separator;
		out += parts[i];
	}
}

/* RBD_FEATURE_* bit by bit (include/rbd/features.h), as `rbd info` names them. */
constexpr std::array<std::string_view, 12> FeatureNames = {
	"layering",   "striping",  "exclusive-lock", "object-map", "fast-diff",	  "deep-flatten",
	"journaling", "data-pool", "operations",     "migrating",  "non-primary", "dirty-cache",
};

} /* namespace */

std::vector<std::string> krbdKernelOptions(const DriverTools &tools, const MapRequest &request)
{
	std::vector<std::string> options;
	for (const std::string &option : request.map.krbdOptions) {
		if (!isToolOption(option) && option != "rw")
			options.push_back(option);
	}
	if (request.map.readOnly) {
		std::erase(options, "rw");
		if (!has(options, "ro"))
			options.emplace_back("ro");
	}
	if (request.map.exclusive && !has(options, "exclusive"))
		options.emplace_back("exclusive");
	if (tools.krbdAbortOnFull && request.map.krbdAbortOnFull && !request.map.readOnly &&
	    !has(options, "abort_on_full"))
		options.emplace_back("abort_on_full");
	return options;
}

Result<std::string> krbdAddLine(const MapRequest &request, const KernelMapFacts &facts,
				const std::vector<std::string> &options, const std::string &keyName)
{
	const bool msgr2 = speaksMsgr2(options);
	const std::vector<std::string> &monitors =
		msgr2 ? facts.msgr2Monitors : facts.msgr1Monitors;
	if (monitors.empty())
		return fail(Errc::InvalidArgument,
			    std::string("the cluster's monitors have no ") +
				    (msgr2 ? "msgr2 (v2) address, which ms_mode asks for"
					   : "msgr1 (v1) address, which krbd needs without "
					     "ms_mode; map with ms_mode=crc (msgr2)"));
	std::string line;
	appendJoined(line, monitors, ',');
	line += " name=" + request.cluster.clientId + ",key=" + keyName;
	for (const std::string &option : options)
		line += "," + option;
	if (!request.image.radosNamespace.empty())
		line += ",_pool_ns=" + request.image.radosNamespace;
	line += " " + request.image.pool + " " + request.image.name + " " +
		(request.image.snapshot.empty() ? std::string("-") : request.image.snapshot);
	return line;
}

std::string missingFeatures(uint64_t features, uint64_t supported, bool readOnly)
{
	/* layering, striping, data-pool, dirty-cache; and for writing, all twelve */
	constexpr uint64_t ReadIncompatible = 0x1 | 0x2 | 0x80 | 0x800;
	constexpr uint64_t WriteIncompatible = 0xfff;
	std::string names;
	const uint64_t missing =
		features & (readOnly ? ReadIncompatible : WriteIncompatible) & ~supported;
	for (size_t bit = 0; bit < 64; ++bit) {
		if ((missing & (uint64_t{ 1 } << bit)) == 0)
			continue;
		if (!names.empty())
			names += ' ';
		names += bit < FeatureNames.size() ? std::string(FeatureNames.at(bit))
						   : "feature bit " + std::to_string(bit);
	}
	return names;
}

} /* namespace rbdvolume */
