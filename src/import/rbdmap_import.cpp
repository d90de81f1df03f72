/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Ceph's rbdmap file and its /etc/fstab entries turned into volume specs: text in, specs out. */
#include "import/rbdmap_import.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <set>
#include <utility>

#include "common/volume_name.hpp"
#include "config/spec_options.hpp"
#include "config/spec_parser.hpp"
#include "config/spec_render.hpp"
#include "config/spec_values.hpp"

namespace rbdvolume::importer {

/*
 * What rbdmap (ceph-common's /usr/bin/rbdmap) does with a line, and so what
 * this reads: `while read DEV PARAMS` (bash, no -r: a backslash keeps the
 * next character, a backslash-newline joins lines); DEV empty or starting
 * with '#' is skipped; a DEV without '/' is in pool "rbd";
 * create_cmd_params() turns PARAMS into "--key value" arguments; then
 * `rbd device map $DEV $CMDPARAMS` (krbd unless --device-type says
 * otherwise), and only when that newly mapped the image `mount
 * /dev/rbd/$DEV`, which mounts the /etc/fstab entry of that device path
 * whatever its options ("noauto" included: it only keeps `mount -a` and
 * systemd's boot from mounting it before the device exists, rbdmap(8)).
 */

namespace {

constexpr std::string_view RbdDeviceDir = "/dev/rbd/";
constexpr std::string_view DefaultPool = "rbd";

bool isBlank(char c)
{
	return c == ' ' || c == '\t';
}

bool isDigit(char c)
{
	return c >= '0' && c <= '9';
}

bool allDigits(std::string_view text)
{
	return !text.empty() && std::all_of(text.begin(), text.end(), isDigit);
}

std::string joined(const std::vector<std::string> &items, std::string_view separator = ", ")
{
	std::string out;
	for (const std::string &item : items) {
		if (!out.empty())
			out += separator;
		out += item;
	}
	return out;
}

std::vector<std::string> splitList(std::string_view text, char separator)
{
	std::vector<std::string> items;
	while (!text.empty()) {
		const size_t end = text.find(separator);
		const std::string_view item = text.substr(0, end);
		if (!item.empty())
			items.emplace_back(item);
		text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
	}
	return items;
}

std::string place(const std::string &file, unsigned line)
{
	return file + ':' + std::to_string(line);
}

/* ---- rbdmap ---- */

struct RbdmapLine {
	unsigned line = 0; /* the first physical line */
	std::string dev;
	std::string params;
};

/* The lines of an rbdmap file as `read DEV PARAMS` splits them, comments and blank lines included. */
std::vector<RbdmapLine> readRbdmapLines(std::string_view text)
{
	std::vector<RbdmapLine> lines;
	unsigned physical = 1;
	size_t i = 0;
	while (i < text.size()) {
		RbdmapLine current;
		current.line = physical;
		bool inDev = true;
		size_t keep = 0; /* params up to its last character that is not a trailing blank */
		for (; i < text.size(); ++i) {
			char c = text[i];
			bool literal = false;
			if (c == '\\') {
				if (i + 1 == text.size())
					continue;
				c = text[++i];
				if (c == '\n') {
					++physical;
					continue;
				}
				literal = true;
			} else if (c == '\n') {
				++physical;
				++i;
				break;
			} else if (c == '\r' && (i + 1 == text.size() || text[i + 1] == '\n')) {
				continue;
			}
			const bool blank = !literal && isBlank(c);
			if (inDev) {
				if (!blank)
					current.dev += c;
				else if (!current.dev.empty())
					inDev = false;
				continue;
			}
			if (blank && current.params.empty())
				continue;
			current.params += c;
			if (!blank)
				keep = current.params.size();
		}
		current.params.resize(keep);
		lines.push_back(std::move(current));
	}
	return lines;
}

/* Whether params[at] starts a run of '=' that ends the entry, as base64 padding does. */
bool endsEntry(std::string_view params, size_t at)
{
	const size_t after = params.find_first_not_of('=', at);
	return after == std::string_view::npos || params[after] == ',';
}

/* The entry being read by parseRbdmapParams(). */
struct ParamReader {
	std::string key;
	std::string value;
	bool hasValue = false;
	bool quoted = false;

	void append(char c) { (hasValue ? value : key) += c; }
};

/* ---- fstab ---- */

struct FstabEntry {
	unsigned line = 0;
	std::string device;
	std::string mountPoint;
	std::string type;
	std::string options;
	std::string passno;
};

/* An fstab field with its octal escapes (\040 for a space) decoded, as libmount reads them. */
std::string unmangle(std::string_view field)
{
	std::string out;
	for (size_t i = 0; i < field.size(); ++i) {
		const auto octal = [](char c) { return c >= '0' && c <= '7'; };
		if (field[i] == '\\' && i + 3 < field.size() && octal(field[i + 1]) &&
		    octal(field[i + 2]) && octal(field[i + 3])) {
			const int code = ((field[i + 1] - '0') << 6) | ((field[i + 2] - '0') << 3) |
					 (field[i + 3] - '0');
			out += static_cast<char>(code & 0xff);
			i += 3;
		} else {
			out += field[i];
		}
	}
	return out;
}

/* Every entry of an fstab text: blank and '#' lines skipped, fields split at blanks. */
std::vector<FstabEntry> readFstab(std::string_view text)
{
	std::vector<FstabEntry> entries;
	unsigned number = 0;
	while (!text.empty()) {
		const size_t end = text.find('\n');
		std::string_view line = text.substr(0, end);
		text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
		++number;
		if (line.ends_with('\r'))
			line.remove_suffix(1);

		std::vector<std::string> fields;
		size_t at = 0;
		while (at < line.size()) {
			while (at < line.size() && isBlank(line[at]))
				++at;
			const size_t start = at;
			while (at < line.size() && !isBlank(line[at]))
				++at;
			if (at > start)
				fields.push_back(unmangle(line.substr(start, at - start)));
		}
		if (fields.empty() || fields.front().starts_with('#'))
			continue;
		fields.resize(std::max<size_t>(fields.size(), 6));
		if (fields[2].empty())
			fields[2] = "auto"; /* as mount(8) reads an entry without a type */
		entries.push_back(
			{ number, fields[0], fields[1], fields[2], fields[3], fields[5] });
	}
	return entries;
}

/* /dev/rbd0, /dev/rbd12p1: kernel names, which follow the order of mapping. */
bool isKernelRbdName(std::string_view device)
{
	constexpr std::string_view Prefix = "/dev/rbd";
	if (!device.starts_with(Prefix))
		return false;
	device.remove_prefix(Prefix.size());
	const size_t part = device.find('p');
	return allDigits(device.substr(0, part)) &&
	       (part == std::string_view::npos || allDigits(device.substr(part + 1)));
}

/* Options that only mean something to mount(8), systemd's fstab generator or fsck. */
bool isFstabOnlyOption(std::string_view option)
{
	constexpr std::array<std::string_view, 11> Names = {
		"defaults", "auto",  "noauto", "nofail", "_netdev", "user",
		"nouser",   "users", "owner",  "group",	 "rw",
	};
	return std::find(Names.begin(), Names.end(), option) != Names.end() ||
	       option.starts_with("x-") || option.starts_with("comment=");
}

struct MountOptions {
	std::vector<std::string> kept; /* for the staging mount */
	std::vector<std::string> dropped;
	std::vector<std::string> refused; /* "OPTION: why" */
	bool readOnly = false;
	bool noauto = false;

	/* What the mount does: fstab-only options do not count. */
	bool sameMount(const MountOptions &other) const
	{
		return kept == other.kept && readOnly == other.readOnly;
	}
};

MountOptions sortMountOptions(std::string_view options)
{
	MountOptions sorted;
	for (const std::string &option : splitList(options, ',')) {
		if (option == "ro") {
			sorted.readOnly = true;
		} else if (isFstabOnlyOption(option)) {
			sorted.noauto = sorted.noauto || option == "noauto";
			if (option != "defaults" && option != "rw")
				sorted.dropped.push_back(option);
		} else if (auto problem = mountOptionProblem(option)) {
			sorted.refused.push_back(std::move(*problem));
		} else {
			sorted.kept.push_back(option);
		}
	}
	return sorted;
}

/* ---- building one spec ---- */

/* An image listed in the rbdmap file, and what becomes of it. */
struct Draft {
	unsigned line = 0;
	VolumeSpec spec;
	std::vector<RbdmapParam> params;
	std::vector<const FstabEntry *> mounts;
	std::vector<const FstabEntry *> partitions;
	std::vector<std::string> sources; /* "FILE:LINE: what", for the header */
	std::vector<ImportMessage> messages;
	unsigned noautoLine = 0; /* the fstab line of a 'noauto' mount, 0 for none */
	bool skipped = false;	 /* no spec for it; counts as a failed line */
};

class DraftBuilder
{
public:
	DraftBuilder(Draft &draft, const ImportSource &rbdmap, const ImportSource &fstab)
		: draft_(draft), rbdmap_(rbdmap), fstab_(fstab)
	{
	}

	void build()
	{
		applyParams();
		if (!draft_.skipped)
			applyFstab();
	}

private:
	void say(ImportLevel level, const std::string &file, unsigned line, std::string text)
	{
		draft_.messages.push_back({ level, file, line, std::move(text), {} });
	}

	void sayRbdmap(ImportLevel level, std::string text)
	{
		say(level, rbdmap_.path, draft_.line, std::move(text));
	}

	void applyParams();
	void applyParam(const RbdmapParam &param, std::string_view key);
	void applyMapOptions(const std::string &options);
	void applyFstab();
	void applyMount(const FstabEntry &first);

	Draft &draft_;
	const ImportSource &rbdmap_;
	const ImportSource &fstab_;
	std::string cluster_;
	std::vector<std::string> mapOptions_;
};

/* "--key" as rbd reads it: '_' and '-' are the same in Ceph's option names. */
std::string normalKey(std::string_view key)
{
	std::string out(key);
	std::replace(out.begin(), out.end(), '_', '-');
	return out;
}

void DraftBuilder::applyParams()
{
	for (const RbdmapParam &param : draft_.params) {
		if (normalKey(param.key) != "device-type")
			continue;
		const std::string type = param.value.value_or("");
		if (type == "krbd") {
			draft_.spec.map.driver = Driver::Krbd;
		} else if (type == "nbd") {
			draft_.spec.map.driver = Driver::Nbd;
			sayRbdmap(
				ImportLevel::Note,
				"'device-type=nbd': the spec maps with rbd-nbd; rbdmap cannot have "
				"mounted it (rbd-nbd devices have no /dev/rbd/ link)");
		} else {
			sayRbdmap(ImportLevel::Warning,
				  "'device-type=" + type +
					  "' is not supported (krbd, nbd): no spec for " +
					  draft_.spec.image.display());
			draft_.skipped = true;
			return;
		}
	}
	for (const RbdmapParam &param : draft_.params)
		applyParam(param, normalKey(param.key));

	ClusterSpec &cluster = draft_.spec.cluster;
	if (!cluster.keyring.empty() && !cluster.keyfile.empty()) {
		sayRbdmap(ImportLevel::Note,
			  "'keyfile' dropped: rbd uses 'keyring' when both are given");
		cluster.keyfile.clear();
	}
	if (!cluster_.empty() && cluster.keyring.empty() && cluster.keyfile.empty()) {
		cluster.keyring =
			"/etc/ceph/" + cluster_ + ".client." + cluster.clientId + ".keyring";
		sayRbdmap(ImportLevel::Note, "'cluster=" + cluster_ + "': keyring set to '" +
						     cluster.keyring + "', rbd's default for it");
	}
	for (const std::string &options : mapOptions_)
		applyMapOptions(options);
}

void DraftBuilder::applyParam(const RbdmapParam &param, std::string_view key)
{
	ClusterSpec &cluster = draft_.spec.cluster;
	MapSpec &map = draft_.spec.map;
	const std::string value = param.value.value_or("");
	constexpr std::array<std::string_view, 4> Flags = {
		"read-only",
		"exclusive",
		"quiesce",
		"no-progress",
	};
	constexpr std::array<std::string_view, 14> Valued = {
		"id",	"user",	   "name",     "keyring", "keyfile", "secret",	    "key",
		"conf", "cluster", "mon-host", "options", "snap",    "device-type", "quiesce-hook",
	};
	const bool flag = std::find(Flags.begin(), Flags.end(), key) != Flags.end();
	const bool valued = std::find(Valued.begin(), Valued.end(), key) != Valued.end();
	if (!flag && !valued) {
		std::string text =
			"'" + param.key + "' is not carried over: the spec has no equivalent";
		if (!krbdOptionProblem(param.value ? param.key + '=' + value : param.key))
			text += " (a krbd map option belongs in options='...')";
		sayRbdmap(ImportLevel::Warning, std::move(text));
		return;
	}
	if (flag && param.value) {
		const std::string why = "' takes no value (rbd device map got a stray argument)";
		sayRbdmap(ImportLevel::Warning, "'" + param.key + why + "; read as a flag");
	} else if (valued && !param.value) {
		sayRbdmap(ImportLevel::Warning, "'" + param.key + "' needs a value; ignored");
		return;
	}

	if (key == "id" || key == "user") {
		cluster.clientId = value;
	} else if (key == "name") {
		if (value.starts_with("client."))
			cluster.clientId = value.substr(7);
		else
			sayRbdmap(ImportLevel::Warning,
				  "'name=" + value + "' is not a client name (client.ID); ignored");
	} else if (key == "keyring") {
		cluster.keyring = value;
	} else if (key == "keyfile") {
		cluster.keyfile = value;
	} else if (key == "secret") {
		if (value.starts_with('/')) {
			cluster.keyfile = value;
			sayRbdmap(
				ImportLevel::Warning,
				"'secret' is not an option of rbd (16.2 refuses '--secret'; older "
				"releases read it as the key file): imported as cluster.keyfile");
		} else {
			sayRbdmap(ImportLevel::Warning,
				  "'secret' holds no file path; an inline secret is not carried "
				  "over: write it to a key file and set cluster.keyfile");
		}
	} else if (key == "key") {
		sayRbdmap(ImportLevel::Warning, "'key' (an inline secret) is not carried over: "
						"write it to a key file and set cluster.keyfile");
	} else if (key == "conf") {
		cluster.conf = value;
	} else if (key == "cluster") {
		cluster_ = value;
		cluster.conf = "/etc/ceph/" + value + ".conf";
	} else if (key == "mon-host") {
		std::string list = value;
		std::replace(list.begin(), list.end(), ' ', ',');
		for (std::string &monitor : splitList(list, ','))
			cluster.monitors.push_back(std::move(monitor));
	} else if (key == "options") {
		mapOptions_.push_back(value);
	} else if (key == "read-only") {
		map.readOnly = true;
	} else if (key == "exclusive") {
		map.exclusive = true;
	} else if (key == "snap") {
		if (!draft_.spec.image.snapshot.empty() && draft_.spec.image.snapshot != value)
			sayRbdmap(ImportLevel::Warning,
				  "'snap=" + value + "' ignored: the image spec names snapshot '" +
					  draft_.spec.image.snapshot + "'");
		else
			draft_.spec.image.snapshot = value;
	} else if (key == "device-type" || key == "no-progress") {
		/* device-type is read first; --no-progress changes nothing. */
	} else if (map.driver == Driver::Nbd) { /* quiesce, quiesce-hook */
		map.nbdOptions.push_back(key == "quiesce" ? "quiesce" : "quiesce-hook=" + value);
	} else {
		sayRbdmap(ImportLevel::Warning,
			  "'" + param.key + "' is not carried over: it is an rbd-nbd option");
	}
}

/* The entries of options='...' (rbd device map -o): read-only and exclusive have their own keys. */
void DraftBuilder::applyMapOptions(const std::string &options)
{
	MapSpec &map = draft_.spec.map;
	const bool nbd = map.driver == Driver::Nbd;
	for (const std::string &option : splitList(options, ',')) {
		if (option == "ro" || option == "read_only" || option == "read-only") {
			map.readOnly = true;
			continue;
		}
		if (option == "rw")
			continue;
		if (option == "exclusive") {
			map.exclusive = true;
			continue;
		}
		const auto problem = nbd ? nbdOptionProblem(option) : krbdOptionProblem(option);
		if (problem) {
			sayRbdmap(ImportLevel::Warning,
				  "map option '" + option + "' is not carried over: " + *problem);
			continue;
		}
		(nbd ? map.nbdOptions : map.krbdOptions).push_back(option);
	}
}

void DraftBuilder::applyFstab()
{
	const std::string device = std::string(RbdDeviceDir) + draft_.spec.image.display();
	if (!draft_.partitions.empty()) {
		for (const FstabEntry *entry : draft_.partitions)
			say(ImportLevel::Warning, fstab_.path, entry->line,
			    "'" + entry->device + "' is a partition of " +
				    draft_.spec.image.display() +
				    "; partitions are not supported (a volume is a whole image "
				    "with one filesystem): no spec for it");
		draft_.skipped = true;
		return;
	}
	if (draft_.mounts.empty()) {
		draft_.spec.mode = VolumeMode::Block;
		sayRbdmap(ImportLevel::Note,
			  "no " + fstab_.path + " entry for " + device +
				  ": a block-mode spec (mapped only, as rbdmap did); a filesystem "
				  "mounted by UUID= or LABEL= is not matched, add it by hand");
		return;
	}
	applyMount(*draft_.mounts.front());
}

void DraftBuilder::applyMount(const FstabEntry &first)
{
	FsType type = FsType::Ext4;
	if (first.type == "xfs") {
		type = FsType::Xfs;
	} else if (first.type != "ext4") {
		say(ImportLevel::Warning, fstab_.path, first.line,
		    "filesystem type '" + first.type +
			    "' is not supported (ext4, xfs): no spec for " +
			    draft_.spec.image.display() +
			    (first.type == "auto"
				     ? " (write the real type in the entry and import again)"
				     : ""));
		draft_.skipped = true;
		return;
	}

	const MountOptions options = sortMountOptions(first.options);
	VolumeSpec &spec = draft_.spec;
	spec.mode = VolumeMode::Filesystem;
	FilesystemSpec &fs = spec.filesystem.emplace();
	fs.type = type;
	fs.format = FormatPolicy::Never;
	fs.check = first.passno.empty() || first.passno == "0" ? CheckPolicy::Never
							       : CheckPolicy::Auto;
	spec.staging.options = options.kept;
	spec.publish.push_back({ first.mountPoint, false, {} });
	draft_.sources.push_back(place(fstab_.path, first.line) + ": " + first.device + ' ' +
				 first.mountPoint + ' ' + first.type);

	if (!options.dropped.empty())
		say(ImportLevel::Note, fstab_.path, first.line,
		    "fstab-only options dropped: " + joined(options.dropped) +
			    " (rbd-volume orders and mounts the volume itself)");
	if (options.noauto)
		draft_.noautoLine = first.line;
	for (const std::string &problem : options.refused)
		say(ImportLevel::Warning, fstab_.path, first.line,
		    "mount option dropped: " + problem);
	if (options.readOnly && !spec.map.readOnly && spec.image.snapshot.empty()) {
		spec.map.readOnly = true;
		say(ImportLevel::Note, fstab_.path, first.line,
		    "'ro': the volume is read-only, mapped and mounted read-only (a staging mount "
		    "would otherwise be read-write, and fsck and grow would write)");
	}

	for (size_t i = 1; i < draft_.mounts.size(); ++i) {
		const FstabEntry &other = *draft_.mounts[i];
		if (other.type != first.type ||
		    !sortMountOptions(other.options).sameMount(options)) {
			say(ImportLevel::Warning, fstab_.path, other.line,
			    "'" + other.device +
				    "' is mounted again with another type or options than at " +
				    place(fstab_.path, first.line) +
				    "; this mount is not imported");
			continue;
		}
		spec.publish.push_back({ other.mountPoint, false, {} });
		draft_.sources.push_back(place(fstab_.path, other.line) + ": " + other.device +
					 ' ' + other.mountPoint + ' ' + other.type);
	}
}

/* ---- names ---- */

class NameTable
{
public:
	/* `base` itself, or base_2, base_3, ... : the first one nobody took. */
	std::string claim(const std::string &base)
	{
		std::string name = base;
		for (unsigned n = 2; taken_.contains(name); ++n) {
			const std::string suffix = '_' + std::to_string(n);
			name = base.substr(0, MaxVolumeNameLength - suffix.size()) + suffix;
		}
		taken_.insert(name);
		return name;
	}

private:
	std::set<std::string> taken_;
};

/* The import's messages, each with the rbdmap line it belongs to, so they come out in file order. */
class MessageLog
{
public:
	static constexpr unsigned AfterAll = ~0U;

	void add(unsigned order, ImportMessage message)
	{
		entries_.emplace_back(order, std::move(message));
	}

	std::vector<ImportMessage> sorted()
	{
		std::stable_sort(entries_.begin(), entries_.end(),
				 [](const auto &a, const auto &b) { return a.first < b.first; });
		std::vector<ImportMessage> out;
		for (auto &entry : entries_)
			out.push_back(std::move(entry.second));
		return out;
	}

private:
	std::vector<std::pair<unsigned, ImportMessage>> entries_;
};

std::string header(const Draft &draft)
{
	std::string out = "Imported by `rbd-volumectl import-rbdmap` from:\n";
	for (const std::string &source : draft.sources)
		out += "  " + source + '\n';
	for (const ImportMessage &message : draft.messages)
		out += message.format() + '\n';
	return out;
}

/* Each fstab entry on a /dev/rbd/ path goes to the draft of its image. */
void matchFstab(const std::vector<FstabEntry> &entries, std::vector<Draft> &drafts,
		const ImportSource &rbdmap, const ImportSource &fstab, MessageLog &log)
{
	std::map<std::string, Draft *, std::less<>> byDevice;
	for (Draft &draft : drafts)
		byDevice.emplace(draft.spec.image.display(), &draft);
	const auto say = [&log, &fstab](ImportLevel level, unsigned line, std::string text) {
		log.add(MessageLog::AfterAll, { level, fstab.path, line, std::move(text), {} });
	};

	for (const FstabEntry &entry : entries) {
		if (isKernelRbdName(entry.device)) {
			const std::string why = "' is a kernel device name, which follows the "
						"order of mapping: not matched";
			say(ImportLevel::Warning, entry.line,
			    "'" + entry.device + why + " (use /dev/rbd/POOL/IMAGE)");
			continue;
		}
		if (!entry.device.starts_with(RbdDeviceDir))
			continue;
		const std::string_view path =
			std::string_view(entry.device).substr(RbdDeviceDir.size());
		if (const auto whole = byDevice.find(path); whole != byDevice.end()) {
			if (entry.mountPoint.empty()) {
				const std::string text =
					"expected DEVICE MOUNTPOINT [TYPE ...]; this "
					"entry mounts nothing and is not imported";
				whole->second->messages.push_back(
					{ ImportLevel::Warning, fstab.path, entry.line, text, {} });
				continue;
			}
			whole->second->mounts.push_back(&entry);
			continue;
		}
		const size_t part = path.rfind("-part");
		if (part != std::string_view::npos && allDigits(path.substr(part + 5))) {
			if (const auto image = byDevice.find(path.substr(0, part));
			    image != byDevice.end()) {
				image->second->partitions.push_back(&entry);
				continue;
			}
		}
		say(ImportLevel::Note, entry.line,
		    "'" + entry.device + "' is not listed in " + rbdmap.path + "; not imported");
	}
}

/* The images of the rbdmap file, one draft each; bad and repeated lines go to `log`. */
std::vector<Draft> readDrafts(const ImportSource &rbdmap, MessageLog &log, ImportOutcome &outcome)
{
	std::vector<Draft> drafts;
	std::map<std::string, unsigned> listed; /* image spec -> its first line */
	for (const RbdmapLine &line : readRbdmapLines(rbdmap.text)) {
		if (line.dev.empty() || line.dev.starts_with('#'))
			continue;
		++outcome.lines;
		const auto say = [&log, &rbdmap, &line](ImportLevel level, std::string text) {
			log.add(line.line, { level, rbdmap.path, line.line, std::move(text), {} });
		};
		Result<ImageSpec> image = parseRbdmapImage(line.dev);
		Result<RbdmapParams> params =
			image ? parseRbdmapParams(line.params) : Result<RbdmapParams>();
		if (!image || !params) {
			say(ImportLevel::Error, (image ? params.error() : image.error()).message);
			++outcome.failedLines;
			continue;
		}
		const std::string display = image->display();
		if (const auto first = listed.find(display); first != listed.end()) {
			say(ImportLevel::Warning,
			    display + " is listed already at " + place(rbdmap.path, first->second) +
				    "; rbdmap maps it once, this line is ignored");
			continue;
		}
		listed.emplace(display, line.line);

		Draft &draft = drafts.emplace_back();
		draft.line = line.line;
		draft.spec.image = std::move(*image);
		draft.spec.map.driver = Driver::Krbd;
		draft.params = std::move(params->params);
		draft.sources.push_back(place(rbdmap.path, line.line) + ": " + display);
		for (std::string &warning : params->warnings)
			draft.messages.push_back({ ImportLevel::Warning,
						   rbdmap.path,
						   line.line,
						   std::move(warning),
						   {} });
	}
	return drafts;
}

/* Names a built draft, renders it and parses the text back; a problem is an error. */
void finish(Draft &draft, NameTable &names, const ImportSource &rbdmap, const ImportSource &fstab,
	    MessageLog &log, ImportOutcome &outcome)
{
	const std::string base = volumeNameForImage(draft.spec.image);
	draft.spec.name = names.claim(base);
	log.add(draft.line, { ImportLevel::Note,
			      rbdmap.path,
			      draft.line,
			      draft.spec.image.display() + " -> volume '" + draft.spec.name + "'" +
				      (draft.spec.name != base ? " ('" + base + "' is taken)" : ""),
			      {} });
	if (draft.noautoLine > 0)
		draft.messages.push_back(
			{ ImportLevel::Note,
			  fstab.path,
			  draft.noautoLine,
			  "'noauto' was rbdmap's idiom, not 'stay down': rbdmap mounted the entry "
			  "itself at boot (rbdmap(8)); `systemctl enable rbd-volume@" +
				  draft.spec.name + "` keeps it mounted at boot",
			  {} });

	const std::string text = renderVolumeSpec(draft.spec, header(draft));
	const SpecOutcome parsed = parseVolumeSpec(text, draft.spec.name + ".toml");
	for (const Diagnostic &diagnostic : parsed.diagnostics)
		draft.messages.push_back({ ImportLevel::Error,
					   rbdmap.path,
					   draft.line,
					   "the spec for " + draft.spec.image.display() +
						   " would be invalid: " + diagnostic.format(),
					   {} });
	if (parsed.ok())
		outcome.volumes.push_back({ parsed.spec, text });
	else
		++outcome.failedLines;
}

} /* namespace */

std::string ImportMessage::format() const
{
	const char *levelName = level == ImportLevel::Note	? "note"
				: level == ImportLevel::Warning ? "warning"
								: "error";
	std::string out;
	if (!file.empty())
		out = (line > 0 ? place(file, line) : file) + ": ";
	return out + levelName + ": " + text;
}

Result<RbdmapParams> parseRbdmapParams(std::string_view params)
{
	/* create_cmd_params() stops at the first '#', quoted or not. */
	params = params.substr(0, params.find('#'));
	while (!params.empty() && isBlank(params.back()))
		params.remove_suffix(1);

	RbdmapParams parsed;
	ParamReader entry;
	char quote = 0;
	bool doubleQuotes = false;
	bool quotedBlank = false;
	const auto finishEntry = [&parsed, &entry]() -> Result<void> {
		if (entry.key.empty() && (entry.hasValue || entry.quoted))
			return fail(Errc::InvalidArgument,
				    "expected KEY=VALUE, found an entry without a key");
		if (!entry.key.empty())
			parsed.params.push_back({ entry.key, entry.hasValue
								     ? std::optional(entry.value)
								     : std::nullopt });
		entry = {};
		return {};
	};

	for (size_t at = 0; at < params.size(); ++at) {
		const char c = params[at];
		if (quote != 0) {
			if (c == quote)
				quote = 0;
			else
				entry.append(c);
			quotedBlank = quotedBlank || isBlank(c);
		} else if (c == '\'' || c == '"') {
			quote = c;
			entry.quoted = true;
			doubleQuotes = doubleQuotes || c == '"';
		} else if (c == ',') {
			Result<void> done = finishEntry();
			if (!done)
				return tl::make_unexpected(done.error());
		} else if (c == '=' && !entry.hasValue) {
			entry.hasValue = true;
		} else if (c == '=' && !endsEntry(params, at)) {
			/* Values are never quoted back: this one may be a secret. */
			return fail(
				Errc::InvalidArgument,
				"another unquoted '=' inside the value of '" + entry.key +
					"': rbdmap turns it into a blank; quote the value ('...')");
		} else if (isBlank(c)) {
			return fail(Errc::InvalidArgument,
				    "an unquoted blank in the options: rbdmap split its rbd "
				    "arguments there, so `rbd device map` cannot have worked; join "
				    "the options with ',' (and quote values with blanks)");
		} else {
			/* Also a trailing '=' (base64 padding): rbdmap's blanks there vanished. */
			entry.append(c);
		}
	}
	if (quote != 0)
		return fail(Errc::InvalidArgument,
			    std::string("unterminated ") + (quote == '\'' ? "'" : "\"") +
				    " quote (rbdmap ends the options at '#', even inside quotes)");
	Result<void> done = finishEntry();
	if (!done)
		return tl::make_unexpected(done.error());

	if (doubleQuotes)
		parsed.warnings.emplace_back(
			"double quotes are not quotes to rbdmap (only ' is): it passed them on to "
			"rbd as part of the value; read here as quotes, check the values");
	if (quotedBlank)
		parsed.warnings.emplace_back(
			"a quoted value holds a blank: rbdmap passed its rbd arguments unquoted, "
			"so the value was split there; imported whole, as quoted");
	return parsed;
}

Result<ImageSpec> parseRbdmapImage(std::string_view spec)
{
	const auto bad = [spec](const std::string &why) {
		return fail(Errc::InvalidArgument,
			    "expected POOL/[NAMESPACE/]IMAGE[@SNAP], found " + quoted(spec) +
				    (why.empty() ? "" : ": " + why));
	};
	ImageSpec image;
	std::string_view rest = spec;
	if (const size_t at = rest.find('@'); at != std::string_view::npos) {
		image.snapshot = rest.substr(at + 1);
		rest = rest.substr(0, at);
		if (const auto problem = rbdNameProblem(image.snapshot))
			return bad("snapshot: " + *problem);
	}
	std::vector<std::string> parts;
	while (true) {
		const size_t slash = rest.find('/');
		parts.emplace_back(rest.substr(0, slash));
		if (slash == std::string_view::npos)
			break;
		rest.remove_prefix(slash + 1);
	}
	if (parts.size() > 3)
		return bad("");
	image.name = parts.back();
	image.pool = parts.size() == 1 ? std::string(DefaultPool) : parts.front();
	if (parts.size() == 3)
		image.radosNamespace = parts[1];

	const std::array<std::pair<const char *, const std::string *>, 3> names = { {
		{ "pool", &image.pool },
		{ "namespace", &image.radosNamespace },
		{ "image", &image.name },
	} };
	for (const auto &[what, name] : names) {
		if (name == &image.radosNamespace && parts.size() != 3)
			continue;
		if (const auto problem = rbdNameProblem(*name))
			return bad(std::string(what) + ": " + *problem);
	}
	return image;
}

std::string volumeNameForImage(const ImageSpec &image)
{
	std::string raw = image.name;
	if (!image.snapshot.empty())
		raw += '.' + image.snapshot;
	std::string name;
	for (const char c : raw) {
		const bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || isDigit(c);
		if (name.empty() && !alnum)
			continue; /* a name starts with a letter or digit */
		name += alnum || c == '.' || c == '_' ? c : '_';
	}
	if (name.empty())
		name = "volume";
	name.resize(std::min(name.size(), MaxVolumeNameLength));
	return name;
}

ImportOutcome importRbdmap(const ImportSource &rbdmap, const ImportSource &fstab)
{
	ImportOutcome outcome;
	MessageLog log;
	std::vector<Draft> drafts = readDrafts(rbdmap, log, outcome);
	outcome.images = static_cast<unsigned>(drafts.size());
	const std::vector<FstabEntry> entries = readFstab(fstab.text);
	matchFstab(entries, drafts, rbdmap, fstab, log);

	NameTable names;
	for (Draft &draft : drafts) {
		DraftBuilder(draft, rbdmap, fstab).build();
		if (draft.skipped)
			++outcome.failedLines;
		else
			finish(draft, names, rbdmap, fstab, log, outcome);
		for (ImportMessage &message : draft.messages) {
			message.volume = draft.spec.name;
			log.add(draft.line, std::move(message));
		}
	}
	outcome.messages = log.sorted();
	return outcome;
}

} /* namespace rbdvolume::importer */
