/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Checks of pass-through options: krbd and rbd-nbd map options, mount options, mkfs arguments. */
#include "config/spec_options.hpp"

#include <algorithm>
#include <array>

#include "common/text_escape.hpp"
#include "config/near_miss.hpp"
#include "config/spec_values.hpp"

namespace rbdvolume {

namespace {

enum class ValueKind : uint8_t {
	None,	/* a flag: "notrim" */
	Number, /* "queue_depth=128" */
	Text,	/* "crush_location=host:a" */
	Choice, /* "ms_mode=secure" */
	Path,	/* "quiesce-hook=/usr/libexec/hook" */
};

struct OptionRule {
	std::string_view name;
	ValueKind kind = ValueKind::None;
	std::span<const std::string_view> choices = {}; // NOLINT(readability-redundant-member-init)
};

/* Options we set ourselves from the spec: naming them twice could only disagree. */
struct RefusedOption {
	std::string_view name;
	std::string_view instead;
};

constexpr std::array<std::string_view, 3> ReadFromReplica = { "no", "balance", "localize" };
constexpr std::array<std::string_view, 3> CompressionHint = {
	"none",
	"compressible",
	"incompressible",
};
constexpr std::array<std::string_view, 5> MsMode = {
	"legacy", "crc", "secure", "prefer-crc", "prefer-secure",
};
constexpr std::array<std::string_view, 2> EncryptionFormat = { "luks1", "luks2" };

/* Kernel rbd client and per-mapping options (rbd(8), "Kernel rbd (krbd) options"). */
constexpr std::array KrbdOptions = {
	OptionRule{ "fsid", ValueKind::Text },
	OptionRule{ "ip", ValueKind::Text },
	OptionRule{ "share" },
	OptionRule{ "noshare" },
	OptionRule{ "crc" },
	OptionRule{ "nocrc" },
	OptionRule{ "cephx_require_signatures" },
	OptionRule{ "nocephx_require_signatures" },
	OptionRule{ "tcp_nodelay" },
	OptionRule{ "notcp_nodelay" },
	OptionRule{ "cephx_sign_messages" },
	OptionRule{ "nocephx_sign_messages" },
	OptionRule{ "mount_timeout", ValueKind::Number },
	OptionRule{ "osd_request_timeout", ValueKind::Number },
	OptionRule{ "osdkeepalive", ValueKind::Number },
	OptionRule{ "osd_idle_ttl", ValueKind::Number },
	OptionRule{ "queue_depth", ValueKind::Number },
	OptionRule{ "lock_on_read" },
	OptionRule{ "lock_timeout", ValueKind::Number },
	OptionRule{ "notrim" },
	OptionRule{ "abort_on_full" },
	OptionRule{ "alloc_size", ValueKind::Number },
	OptionRule{ "crush_location", ValueKind::Text },
	OptionRule{ "read_from_replica", ValueKind::Choice, ReadFromReplica },
	OptionRule{ "compression_hint", ValueKind::Choice, CompressionHint },
	OptionRule{ "ms_mode", ValueKind::Choice, MsMode },
	OptionRule{ "rxbounce" },
	OptionRule{ "udev" },
	OptionRule{ "noudev" },
};

constexpr std::array<RefusedOption, 4> KrbdRefused = { {
	{ "rw", "set map.read-only instead" },
	{ "ro", "set map.read-only instead" },
	{ "read_only", "set map.read-only instead" },
	{ "exclusive", "set map.exclusive instead" },
} };

/* rbd-nbd map options (rbd-nbd(8)), written without the leading "--". */
constexpr std::array NbdOptions = {
	OptionRule{ "reattach-timeout", ValueKind::Number },
	OptionRule{ "io-timeout", ValueKind::Number },
	OptionRule{ "quiesce" },
	OptionRule{ "quiesce-hook", ValueKind::Path },
	OptionRule{ "max_part", ValueKind::Number },
	OptionRule{ "nbds_max", ValueKind::Number },
	OptionRule{ "encryption-format", ValueKind::Choice, EncryptionFormat },
	OptionRule{ "encryption-passphrase-file", ValueKind::Path },
};

constexpr std::array<RefusedOption, 5> NbdRefused = { {
	{ "cookie", "rbd-volume sets it" },
	{ "device", "rbd-volume sets it" },
	{ "try-netlink", "rbd-volume sets it" },
	{ "read-only", "set map.read-only instead" },
	{ "exclusive", "set map.exclusive instead" },
} };

bool isSpaceOrComma(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' ||
	       c == ',';
}

/* The problems every pass-through option can have, whatever it is for. */
std::optional<std::string> shapeProblem(std::string_view what, std::string_view option)
{
	if (option.empty())
		return "expected a non-empty " + std::string(what) + ", found ''";
	if (std::any_of(option.begin(), option.end(), isSpaceOrComma))
		return "expected one " + std::string(what) +
		       " per entry, without ',' or whitespace, found " + quoted(option);
	return {};
}

std::optional<std::string> refusedProblem(std::span<const RefusedOption> refused,
					  std::string_view name)
{
	for (const RefusedOption &rule : refused) {
		if (rule.name == name)
			return quoted(name) + " is not allowed here: " + std::string(rule.instead);
	}
	return {};
}

std::optional<std::string> valueProblem(const OptionRule &rule, std::string_view option,
					std::string_view value)
{
	switch (rule.kind) {
	case ValueKind::None:
		return {};
	case ValueKind::Number:
		if (!value.empty() && value.size() <= 10 &&
		    std::all_of(value.begin(), value.end(),
				[](char c) { return c >= '0' && c <= '9'; }))
			return {};
		return "expected a whole number for " + quoted(rule.name) + ", found " +
		       quoted(option);
	case ValueKind::Text:
		return {};
	case ValueKind::Choice:
		if (std::find(rule.choices.begin(), rule.choices.end(), value) !=
		    rule.choices.end())
			return {};
		return "expected one of " + quotedList(rule.choices) + " for " + quoted(rule.name) +
		       ", found " + quoted(option);
	case ValueKind::Path:
		if (!pathProblem(value))
			return std::nullopt;
		return "expected a normal absolute path for " + quoted(rule.name) + ", found " +
		       quoted(option);
	}
	return {};
}

std::optional<std::string> mapOptionProblem(std::string_view driver,
					    std::span<const OptionRule> rules,
					    std::span<const RefusedOption> refused,
					    std::string_view option)
{
	if (auto problem = shapeProblem(std::string(driver) + " option", option))
		return problem;

	const size_t equals = option.find('=');
	const std::string_view name = option.substr(0, equals);
	if (auto problem = refusedProblem(refused, name))
		return problem;

	const auto rule = std::find_if(rules.begin(), rules.end(),
				       [name](const OptionRule &r) { return r.name == name; });
	if (rule == rules.end()) {
		std::vector<std::string_view> names;
		for (const OptionRule &r : rules)
			names.push_back(r.name);
		const std::string_view hint = closestMatch(name, names);
		std::string message = "unknown " + std::string(driver) + " option " + quoted(name);
		if (!hint.empty())
			message += "; did you mean " + quoted(hint) + "?";
		return message;
	}

	if (rule->kind == ValueKind::None) {
		if (equals == std::string_view::npos)
			return {};
		return "expected " + quoted(name) + " without a value, found " + quoted(option);
	}
	if (equals == std::string_view::npos || equals + 1 == option.size())
		return "expected '" + std::string(name) + "=VALUE', found " + quoted(option);
	return valueProblem(*rule, option, option.substr(equals + 1));
}

/* Short options of mkfs that take a value, so a clustered "-LF" is a label, not force. */
constexpr std::string_view Ext4ValueOptions = "bCdEeGgIiJLlMmNorTtUz";
constexpr std::string_view XfsValueOptions = "bcdilLmnprs";

} /* namespace */

std::optional<std::string> krbdOptionProblem(std::string_view option)
{
	return mapOptionProblem("krbd", KrbdOptions, KrbdRefused, option);
}

std::optional<std::string> nbdOptionProblem(std::string_view option)
{
	return mapOptionProblem("nbd", NbdOptions, NbdRefused, option);
}

std::optional<std::string> mountOptionProblem(std::string_view option)
{
	if (auto problem = shapeProblem("mount option", option))
		return problem;
	if (option == "rw" || option == "ro")
		return quoted(option) + " is not allowed here: read-only has its own key";
	if (option == "bind" || option == "rbind" || option == "remount" || option == "move")
		return quoted(option) +
		       " is not allowed here: rbd-volume makes its bind mounts and remounts itself";
	if (option.substr(0, 12) == "x-rbd-volume")
		return quoted(option) +
		       " is not allowed here: x-rbd-volume options are rbd-volume's own markers";
	return {};
}

std::vector<size_t> mkfsForceArguments(FsType type, std::span<const std::string> args)
{
	const char force = type == FsType::Ext4 ? 'F' : 'f';
	const std::string_view valueOptions =
		type == FsType::Ext4 ? Ext4ValueOptions : XfsValueOptions;

	/* Read the arguments the way getopt(3) does. */
	std::vector<size_t> found;
	bool valueNext = false;
	for (size_t i = 0; i < args.size(); ++i) {
		const std::string_view arg = args[i];
		if (valueNext) {
			valueNext = false;
			continue;
		}
		if (arg == "--")
			break;
		if (arg.size() < 2 || arg[0] != '-' || arg[1] == '-')
			continue;
		for (size_t at = 1; at < arg.size(); ++at) {
			if (arg[at] == force) {
				found.push_back(i);
				break;
			}
			if (valueOptions.find(arg[at]) != std::string_view::npos) {
				valueNext = at + 1 == arg.size();
				break;
			}
		}
	}
	return found;
}

} /* namespace rbdvolume */
