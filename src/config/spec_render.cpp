/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A VolumeSpec written back as spec TOML, every key explicit, in the order of conf/example.toml. */
#include "config/spec_render.hpp"

#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "config/quantities.hpp"
#include "config/volume_spec.hpp"

namespace rbdvolume {

/*
 * What the text holds: every key of a valid spec, including the ones at
 * their default, so that parsing it back gives the same VolumeSpec. A key
 * whose empty value means "not set" (namespace, snapshot, keyring, keyfile,
 * monitors, features, driver options) is left out when empty, and so is
 * [image.create] when unset; an empty staging path is left out too, so the
 * parser derives it from the file name.
 *
 * Where the spec's own rules derive a value, the text says the derived one:
 * a snapshot maps read-only, and a read-only volume publishes read-only.
 * What cannot take effect is left out: [filesystem] and mount options in
 * block mode, and the options of a driver other than the chosen one (or
 * 'auto'). Two settings that contradict each other (a snapshot and
 * [image.create], keyring and keyfile, multi-writer in filesystem mode) are
 * written as they are: the parser refuses them, the renderer does not pick.
 */

namespace {

constexpr std::string_view HexDigits = "0123456789ABCDEF";

bool isControl(unsigned char byte)
{
	return byte < 0x20 || byte == 0x7f;
}

/* The length of the well-formed UTF-8 sequence at the start of `text`, or 0. */
size_t utf8Length(std::string_view text)
{
	const auto byte = [text](size_t i) { return static_cast<unsigned char>(text[i]); };
	const unsigned char lead = byte(0);
	size_t length = 0;
	/* The second byte's range rules out overlong forms, surrogates and > U+10FFFF. */
	unsigned char low = 0x80;
	unsigned char high = 0xbf;
	if (lead < 0x80)
		return 1;
	if (lead >= 0xc2 && lead <= 0xdf) {
		length = 2;
	} else if (lead >= 0xe0 && lead <= 0xef) {
		length = 3;
		low = lead == 0xe0 ? 0xa0 : low;
		high = lead == 0xed ? 0x9f : high;
	} else if (lead >= 0xf0 && lead <= 0xf4) {
		length = 4;
		low = lead == 0xf0 ? 0x90 : low;
		high = lead == 0xf4 ? 0x8f : high;
	} else {
		return 0;
	}
	if (text.size() < length || byte(1) < low || byte(1) > high)
		return 0;
	for (size_t i = 2; i < length; ++i) {
		if (byte(i) < 0x80 || byte(i) > 0xbf)
			return 0;
	}
	return length;
}

std::string hexByte(std::string_view prefix, unsigned char byte)
{
	std::string out(prefix);
	out += HexDigits[byte >> 4U];
	out += HexDigits[byte & 0xfU];
	return out;
}

/*
 * A TOML basic string: '"' and '\' escaped, control characters (tab too)
 * as \uXXXX, UTF-8 as it is. A string that is not UTF-8 cannot be written
 * in TOML at all; its bytes go out as they are and the parser refuses them.
 */
std::string basicString(std::string_view text)
{
	std::string out = "\"";
	for (const char c : text) {
		const auto byte = static_cast<unsigned char>(c);
		if (c == '"' || c == '\\') {
			out += '\\';
			out += c;
		} else if (isControl(byte)) {
			out += hexByte("\\u00", byte);
		} else {
			out += c;
		}
	}
	return out + '"';
}

std::string stringArray(std::span<const std::string> items)
{
	std::string out = "[";
	for (const std::string &item : items) {
		if (out.size() > 1)
			out += ", ";
		out += basicString(item);
	}
	return out + ']';
}

std::string boolean(bool value)
{
	return value ? "true" : "false";
}

/* Bytes as a TOML integer; above its range as a string of digits, which the parser also reads. */
std::string sizeValue(uint64_t bytes)
{
	constexpr auto MaxInteger = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
	const std::string digits = std::to_string(bytes);
	return bytes <= MaxInteger ? digits : basicString(digits);
}

/* A comment line's text: control characters and bytes that are not UTF-8 as \xNN. */
std::string commentText(std::string_view line)
{
	std::string out;
	size_t i = 0;
	while (i < line.size()) {
		const auto byte = static_cast<unsigned char>(line[i]);
		const size_t length = utf8Length(line.substr(i));
		if (length == 0 || isControl(byte)) {
			out += hexByte("\\x", byte);
			++i;
		} else {
			out.append(line.substr(i, length));
			i += length;
		}
	}
	return out;
}

/* Each line of `header` as a '#' comment, then a blank line; nothing for an empty header. */
void writeHeader(std::string &out, std::string_view header)
{
	if (header.empty())
		return;
	while (!header.empty()) {
		const size_t end = header.find('\n');
		std::string_view line = header.substr(0, end);
		header.remove_prefix(end == std::string_view::npos ? header.size() : end + 1);
		if (line.ends_with('\r'))
			line.remove_suffix(1);
		out += line.empty() ? std::string("#") : "# " + commentText(line);
		out += '\n';
	}
	out += '\n';
}

void writeTable(std::string &out, std::string_view header)
{
	out += '\n';
	out += header;
	out += '\n';
}

void writeKey(std::string &out, std::string_view key, std::string_view value)
{
	out += key;
	out += " = ";
	out += value;
	out += '\n';
}

void writeImage(std::string &out, const ImageSpec &image)
{
	writeTable(out, "[image]");
	writeKey(out, "pool", basicString(image.pool));
	if (!image.radosNamespace.empty())
		writeKey(out, "namespace", basicString(image.radosNamespace));
	writeKey(out, "name", basicString(image.name));
	if (!image.snapshot.empty())
		writeKey(out, "snapshot", basicString(image.snapshot));

	if (!image.create)
		return;
	writeTable(out, "[image.create]");
	writeKey(out, "size", sizeValue(image.create->sizeBytes));
	if (!image.create->features.empty())
		writeKey(out, "features", stringArray(image.create->features));
}

void writeCluster(std::string &out, const ClusterSpec &cluster)
{
	writeTable(out, "[cluster]");
	writeKey(out, "conf", basicString(cluster.conf));
	writeKey(out, "id", basicString(cluster.clientId));
	if (!cluster.keyring.empty())
		writeKey(out, "keyring", basicString(cluster.keyring));
	if (!cluster.keyfile.empty())
		writeKey(out, "keyfile", basicString(cluster.keyfile));
	if (!cluster.monitors.empty())
		writeKey(out, "monitors", stringArray(cluster.monitors));
}

/* [map.krbd] or [map.nbd], when it says something and the chosen driver takes it. */
void writeDriverOptions(std::string &out, const MapSpec &map, Driver own,
			const std::vector<std::string> &options)
{
	const bool waitsOnFull = own == Driver::Krbd && !map.krbdAbortOnFull;
	if ((options.empty() && !waitsOnFull) || (map.driver != Driver::Auto && map.driver != own))
		return;
	writeTable(out, std::string("[map.") + driverName(own) + ']');
	if (!options.empty())
		writeKey(out, "options", stringArray(options));
	if (waitsOnFull)
		writeKey(out, "abort-on-full", "false");
}

void writeMap(std::string &out, const MapSpec &map, bool readOnly)
{
	writeTable(out, "[map]");
	writeKey(out, "driver", basicString(driverName(map.driver)));
	writeKey(out, "read-only", boolean(readOnly));
	writeKey(out, "exclusive", boolean(map.exclusive));
	writeKey(out, "multi-writer", boolean(map.multiWriter));
	writeDriverOptions(out, map, Driver::Krbd, map.krbdOptions);
	writeDriverOptions(out, map, Driver::Nbd, map.nbdOptions);
}

void writeFilesystem(std::string &out, const FilesystemSpec &fs)
{
	writeTable(out, "[filesystem]");
	writeKey(out, "type", basicString(fsTypeName(fs.type)));
	writeKey(out, "mkfs-options", stringArray(fs.mkfsOptions));
	writeKey(out, "format", basicString(nameIn(FormatPolicyNames, fs.format)));
	writeKey(out, "check", basicString(nameIn(CheckPolicyNames, fs.check)));
	writeKey(out, "grow", basicString(nameIn(GrowPolicyNames, fs.grow)));
}

void writeEncryption(std::string &out, const EncryptionSpec &encryption)
{
	writeTable(out, "[encryption]");
	writeKey(out, "type", basicString("luks2"));
	writeKey(out, "passphrase", basicString(nameIn(KeySourceNames, encryption.source)));
	if (encryption.givenAtUp)
		writeKey(out, "given-at-up", "true");
	else
		writeKey(out, "keyfile", basicString(encryption.keyfile));
	if (!encryption.volumeId.empty())
		writeKey(out, "volume-id", basicString(encryption.volumeId));
	writeKey(out, "cipher", basicString(encryption.cipher));
	writeKey(out, "key-size", std::to_string(encryption.keyBits));
	writeKey(out, "pbkdf", basicString(pbkdfName(encryption.pbkdf)));
	writeKey(out, "pbkdf-time", basicString(formatDuration(encryption.pbkdfTime)));
}

/* Mount options exist only in filesystem mode; the keys are refused in block mode. */
void writeStaging(std::string &out, const StagingSpec &staging, bool mounts)
{
	writeTable(out, "[staging]");
	if (!staging.path.empty())
		writeKey(out, "path", basicString(staging.path));
	if (mounts)
		writeKey(out, "options", stringArray(staging.options));
}

void writePublish(std::string &out, const PublishTarget &target, bool volumeReadOnly, bool mounts)
{
	writeTable(out, "[[publish]]");
	writeKey(out, "path", basicString(target.path));
	writeKey(out, "read-only", boolean(target.readOnly || volumeReadOnly));
	if (mounts)
		writeKey(out, "options", stringArray(target.options));
}

} /* namespace */

std::string renderVolumeSpec(const VolumeSpec &spec, std::string_view header)
{
	const bool readOnly = spec.map.readOnly || !spec.image.snapshot.empty();
	const bool mounts = spec.mode == VolumeMode::Filesystem;

	std::string out;
	writeHeader(out, header);
	writeKey(out, "version", "1");
	writeKey(out, "mode", basicString(nameIn(VolumeModeNames, spec.mode)));
	writeImage(out, spec.image);
	writeCluster(out, spec.cluster);
	writeMap(out, spec.map, readOnly);
	if (mounts)
		writeFilesystem(out, spec.filesystem.value_or(FilesystemSpec{}));
	if (spec.encryption)
		writeEncryption(out, *spec.encryption);
	writeStaging(out, spec.staging, mounts);
	for (const PublishTarget &target : spec.publish)
		writePublish(out, target, readOnly, mounts);
	return out;
}

SpecOutcome checkBuiltSpec(const VolumeSpec &spec, const std::string &path)
{
	return parseVolumeSpec(renderVolumeSpec(spec), path);
}

} /* namespace rbdvolume */
