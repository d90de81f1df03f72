/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A draft's VolumeSpec from what its rbdmap line and its fstab entries say. */
#include "import/spec_builder.hpp"

#include <algorithm>
#include <array>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "config/spec_options.hpp"

namespace rbdvolume::importer {

namespace {

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

MountOptions sortMountOptions(const std::vector<std::string> &options)
{
	MountOptions sorted;
	for (const std::string &option : options) {
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
	fs.check = first.passno == 0 ? CheckPolicy::Never : CheckPolicy::Auto;
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

} /* namespace */

void buildSpec(Draft &draft, const ImportSource &rbdmap, const ImportSource &fstab)
{
	DraftBuilder(draft, rbdmap, fstab).build();
}

} /* namespace rbdvolume::importer */
