/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* ceph-csi's volume context read into plain values, key by key. */
#include "csi/volume_context.hpp"

#include <algorithm>
#include <array>
#include <utility>

#include "common/char_class.hpp"
#include "common/text_escape.hpp"

namespace rbdvolume::csi {

namespace {

using Handler = Result<void> (*)(std::string_view key, std::string_view value, VolumeContext &out);

/* A key of ceph-csi's volume context: read by `handler`, or ignored for `reason`. */
struct KeyRule {
	std::string_view key;
	Handler handler = nullptr;
	std::string_view reason = {}; // NOLINT(readability-redundant-member-init)
};

std::string_view trimmed(std::string_view text)
{
	while (!text.empty() && isAsciiSpace(text.front()))
		text.remove_prefix(1);
	while (!text.empty() && isAsciiSpace(text.back()))
		text.remove_suffix(1);
	return text;
}

std::string lowered(std::string_view text)
{
	std::string out(text);
	std::transform(out.begin(), out.end(), out.begin(), [](char c) {
		return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
	});
	return out;
}

/* Every piece between separators, empty ones included. */
std::vector<std::string_view> splitOn(std::string_view text, char separator)
{
	std::vector<std::string_view> pieces;
	for (;;) {
		const size_t at = text.find(separator);
		pieces.push_back(text.substr(0, at));
		if (at == std::string_view::npos)
			return pieces;
		text.remove_prefix(at + 1);
	}
}

/* "a, b,,c" -> {"a", "b", "c"} */
std::vector<std::string> optionList(std::string_view list)
{
	std::vector<std::string> options;
	for (const std::string_view piece : splitOn(list, ',')) {
		const std::string_view option = trimmed(piece);
		if (!option.empty())
			options.emplace_back(option);
	}
	return options;
}

std::vector<std::string> whitespaceSplit(std::string_view text)
{
	std::vector<std::string> words;
	size_t at = 0;
	while (at < text.size()) {
		if (isAsciiSpace(text[at])) {
			++at;
			continue;
		}
		size_t end = at;
		while (end < text.size() && !isAsciiSpace(text[end]))
			++end;
		words.emplace_back(text.substr(at, end - at));
		at = end;
	}
	return words;
}

std::string joined(const std::vector<std::string> &items)
{
	std::string out;
	for (const std::string &item : items) {
		if (!out.empty())
			out += ',';
		out += item;
	}
	return out;
}

/* Stores `list` for one mounter; a mounter named twice keeps its last list, as in ceph-csi. */
void storeOptions(std::string_view key, std::string_view mounter, std::vector<std::string> list,
		  std::vector<std::string> &slot, bool &seen, std::vector<std::string> &notes)
{
	if (seen)
		notes.push_back(std::string(key) + ": " + std::string(mounter) +
				" options given more than once; the last list " +
				quoted(joined(list)) + " is used, as ceph-csi does");
	seen = true;
	slot = std::move(list);
}

Result<bool> parseBool(std::string_view key, std::string_view value)
{
	if (value == "true")
		return true;
	if (value == "false")
		return false;
	return fail(Errc::InvalidArgument, "volume context key " + quoted(key) +
						   ": expected 'true' or 'false', found " +
						   quoted(value));
}

Result<void> readClusterId(std::string_view /*key*/, std::string_view value, VolumeContext &out)
{
	out.clusterId = value;
	return {};
}

Result<void> readPool(std::string_view /*key*/, std::string_view value, VolumeContext &out)
{
	out.pool = value;
	return {};
}

Result<void> readImageName(std::string_view /*key*/, std::string_view value, VolumeContext &out)
{
	out.imageName = value;
	return {};
}

Result<void> readRadosNamespace(std::string_view /*key*/, std::string_view value,
				VolumeContext &out)
{
	out.radosNamespace = value;
	return {};
}

Result<void> readStaticVolume(std::string_view key, std::string_view value, VolumeContext &out)
{
	const Result<bool> flag = parseBool(key, value);
	if (!flag)
		return tl::make_unexpected(flag.error());
	out.staticVolume = *flag;
	return {};
}

Result<void> readTryOtherMounters(std::string_view key, std::string_view value, VolumeContext &out)
{
	const Result<bool> flag = parseBool(key, value);
	if (!flag)
		return tl::make_unexpected(flag.error());
	out.tryOtherMounters = *flag;
	return {};
}

Result<void> readMounter(std::string_view key, std::string_view value, VolumeContext &out)
{
	if (value.empty() || value == "rbd") {
		out.mounter = Mounter::Krbd;
		return {};
	}
	if (value == "rbd-nbd") {
		out.mounter = Mounter::Nbd;
		return {};
	}
	return fail(Errc::InvalidArgument, "volume context key " + quoted(key) +
						   ": expected 'rbd' (the kernel client) or "
						   "'rbd-nbd', found " +
						   quoted(value));
}

Result<void> readMapOptions(std::string_view key, std::string_view value, VolumeContext &out)
{
	Result<MounterOptions> options = parseMounterOptions(key, value, out.ignored);
	if (!options)
		return tl::make_unexpected(options.error());
	out.mapOptions = std::move(*options);
	return {};
}

Result<void> readUnmapOptions(std::string_view key, std::string_view value, VolumeContext &out)
{
	Result<MounterOptions> options = parseMounterOptions(key, value, out.ignored);
	if (!options)
		return tl::make_unexpected(options.error());
	out.unmapOptions = std::move(*options);
	return {};
}

Result<void> readMkfsOptions(std::string_view /*key*/, std::string_view value, VolumeContext &out)
{
	out.mkfsOptions = whitespaceSplit(value);
	return {};
}

Result<void> readImageFeatures(std::string_view /*key*/, std::string_view value, VolumeContext &out)
{
	out.imageFeatures = value;
	return {};
}

Result<void> readEncrypted(std::string_view key, std::string_view value, VolumeContext &out)
{
	const Result<bool> flag = parseBool(key, value);
	if (!flag)
		return tl::make_unexpected(flag.error());
	out.encryption.encrypted = *flag;
	return {};
}

/* The encryption keys other than `encrypted`, kept as given. */
template<std::string EncryptionContext::*Field>
Result<void> readEncryptionKey(std::string_view /*key*/, std::string_view value, VolumeContext &out)
{
	out.encryption.*Field = value;
	return {};
}

constexpr std::string_view ProvisionerOnly = "used by the provisioner only";

constexpr std::array Keys = {
	KeyRule{ "clusterID", readClusterId },
	KeyRule{ "pool", readPool },
	KeyRule{ "imageName", readImageName },
	KeyRule{ "radosNamespace", readRadosNamespace },
	KeyRule{ "staticVolume", readStaticVolume },
	KeyRule{ "mounter", readMounter },
	KeyRule{ "mapOptions", readMapOptions },
	KeyRule{ "unmapOptions", readUnmapOptions },
	KeyRule{ "mkfsOptions", readMkfsOptions },
	KeyRule{ "imageFeatures", readImageFeatures },
	KeyRule{ "tryOtherMounters", readTryOtherMounters },
	KeyRule{ "encrypted", readEncrypted },
	KeyRule{ "journalPool", nullptr,
		 "the image name comes from imageName, rbd-volume does not read the journal" },
	KeyRule{ "dataPool", nullptr, "the data pool matters only when creating an image" },
	KeyRule{ "cephLogDir", nullptr,
		 "rbd-nbd runs as a systemd service and logs to the journal" },
	KeyRule{ "cephLogStrategy", nullptr,
		 "rbd-nbd runs as a systemd service and logs to the journal" },
	KeyRule{ "volumeNamePrefix", nullptr, ProvisionerOnly },
	KeyRule{ "thickProvision", nullptr, ProvisionerOnly },
	KeyRule{ "topologyConstrainedPools", nullptr, ProvisionerOnly },
	KeyRule{ "stripeUnit", nullptr, ProvisionerOnly },
	KeyRule{ "stripeCount", nullptr, ProvisionerOnly },
	KeyRule{ "objectSize", nullptr, ProvisionerOnly },
	KeyRule{ "encryptionKMSID", readEncryptionKey<&EncryptionContext::kmsId> },
	KeyRule{ "encryptionType", readEncryptionKey<&EncryptionContext::type> },
	KeyRule{ "encryptionCipher", readEncryptionKey<&EncryptionContext::cipher> },
	KeyRule{ "encryptionKeySize", readEncryptionKey<&EncryptionContext::keySize> },
	KeyRule{ "encryptionSectorSize", readEncryptionKey<&EncryptionContext::sectorSize> },
	KeyRule{ "integrityMode", readEncryptionKey<&EncryptionContext::integrity> },
	KeyRule{ "migration", nullptr,
		 "a migrated in-tree volume is staged from clusterID, pool and imageName like "
		 "any static volume" },
	KeyRule{ "volumeHealerContext", nullptr,
		 "rbd-volume needs no healer: rbd-nbd runs under systemd, outside the shim" },
};

/* Key prefixes Kubernetes adds (PV/PVC names, the provisioner's identity). */
constexpr std::array<std::string_view, 2> KubernetesPrefixes = {
	"csi.storage.k8s.io/",
	"storage.kubernetes.io/",
};

bool isKubernetesKey(std::string_view key)
{
	return std::any_of(KubernetesPrefixes.begin(), KubernetesPrefixes.end(),
			   [key](std::string_view prefix) { return key.starts_with(prefix); });
}

Result<void> readKey(std::string_view key, std::string_view value, VolumeContext &out)
{
	const auto *const rule = std::find_if(Keys.begin(), Keys.end(),
					      [key](const KeyRule &r) { return r.key == key; });
	if (rule != Keys.end() && rule->handler != nullptr)
		return rule->handler(key, value, out);
	if (rule != Keys.end())
		out.ignored.push_back(std::string(key) + ": ignored, " + std::string(rule->reason));
	else if (isKubernetesKey(key))
		out.ignored.push_back(std::string(key) + ": ignored, Kubernetes metadata");
	else
		out.unknownKeys.emplace_back(key);
	return {};
}

} /* namespace */

Result<MounterOptions> parseMounterOptions(std::string_view key, std::string_view text,
					   std::vector<std::string> &notes)
{
	MounterOptions options;
	bool krbdSeen = false;
	bool nbdSeen = false;
	for (const std::string_view piece : splitOn(text, ';')) {
		if (trimmed(piece).empty())
			continue;
		const size_t colon = piece.find(':');
		if (colon == std::string_view::npos) {
			storeOptions(key, "krbd", optionList(piece), options.krbd, krbdSeen, notes);
			continue;
		}
		const std::string mounter = lowered(trimmed(piece.substr(0, colon)));
		std::vector<std::string> list = optionList(piece.substr(colon + 1));
		if (mounter == "krbd")
			storeOptions(key, mounter, std::move(list), options.krbd, krbdSeen, notes);
		else if (mounter == "nbd")
			storeOptions(key, mounter, std::move(list), options.nbd, nbdSeen, notes);
		else
			return fail(Errc::InvalidArgument,
				    "volume context key " + quoted(key) + ": unknown mounter " +
					    quoted(trimmed(piece.substr(0, colon))) + " in " +
					    quoted(piece) +
					    "; expected 'krbd:OPTIONS', 'nbd:OPTIONS' or OPTIONS "
					    "without ':' (a value containing ':' needs the "
					    "mounter, as in 'krbd:crush_location=host:a')");
	}
	return options;
}

Result<VolumeContext> parseVolumeContext(const std::map<std::string, std::string> &context)
{
	VolumeContext out;
	for (const auto &[key, value] : context) {
		Result<void> read = readKey(key, value, out);
		if (!read)
			return tl::make_unexpected(std::move(read.error()));
	}
	return out;
}

} /* namespace rbdvolume::csi */
