/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * `rbd-volumectl rotate-key NAME --new-keyfile FILE`: a new key for a volume
 * keyed by a keyfile, on this host, without the daemon (host/key_rotation:
 * its steps, their order and why a crash anywhere leaves a volume that
 * opens). The volume must be up: the header is the mapped image's.
 */
#include <cstdint>
#include <cstdio>
#include <system_error>
#include <unistd.h>

#include <sys/stat.h>

#include "cli/exit_codes.hpp"
#include "cli/installed_spec.hpp"
#include "cli/verb_options.hpp"
#include "cli/verbs.hpp"
#include "common/volume_name.hpp"
#include "config/spec_locate.hpp"
#include "config/spec_parser.hpp"
#include "engine/model.hpp"
#include "host/crypt_devices.hpp"
#include "host/key_rotation.hpp"
#include "journal/fields.hpp"
#include "journal/log.hpp"

namespace rbdvolume::cli {

namespace {

constexpr std::string_view Verb = "rotate-key";
constexpr std::string_view Synopsis = "NAME --new-keyfile FILE";

struct RotateArgs {
	std::string name;
	std::string newKeyfile;
};

Result<RotateArgs> parseArgs(std::span<const std::string_view> args)
{
	RotateArgs out;
	for (size_t i = 0; i < args.size(); ++i) {
		const std::string_view arg = args[i];
		if (arg == "--new-keyfile" && i + 1 < args.size())
			out.newKeyfile = args[++i];
		else if (arg.starts_with("--new-keyfile="))
			out.newKeyfile = arg.substr(arg.find('=') + 1);
		else if (arg.starts_with("-"))
			return fail(Errc::InvalidArgument,
				    "unknown option '" + std::string(arg) + "'");
		else if (out.name.empty())
			out.name = arg;
		else
			return fail(Errc::InvalidArgument, "one volume at a time");
	}
	if (out.name.empty() || out.newKeyfile.empty())
		return fail(Errc::InvalidArgument, "a volume name and --new-keyfile are required");
	if (auto problem = volumeNameProblem(out.name))
		return fail(Errc::InvalidArgument, *problem);
	return out;
}

/* Only a keyfile's key is rotated here; the other sources keep theirs elsewhere. */
Result<void> checkKeySource(const VolumeSpec &spec)
{
	if (!spec.encryption)
		return fail(Errc::InvalidArgument, "volume '" + spec.name + "' is not encrypted");
	if (spec.encryption->givenAtUp)
		return fail(Errc::InvalidArgument,
			    "volume '" + spec.name +
				    "' gets its passphrase with each up request (given-at-up); "
				    "rotate it where it is kept");
	if (spec.encryption->source == KeySource::ImageMetadata)
		return fail(Errc::InvalidArgument,
			    "volume '" + spec.name +
				    "' is keyed by a data key in its image's metadata; rotate-key "
				    "rotates keyfile keys");
	return {};
}

/* The device under the volume's open mapping. */
Result<std::string> mappedDevice(const std::string &name)
{
	for (const CryptMapping &mapping : listCryptMappings()) {
		if (mapping.name == cryptNameOf(name))
			return mapping.backing;
	}
	return fail(Errc::Conflict, "volume '" + name + "' is not open (no " + cryptDeviceOf(name) +
					    "): rotate-key changes the header of its mapped "
					    "image; bring the volume up first");
}

bool sameFile(const std::string &a, const std::string &b)
{
	struct stat first {
	};
	struct stat second {
	};
	return ::stat(a.c_str(), &first) == 0 && ::stat(b.c_str(), &second) == 0 &&
	       first.st_dev == second.st_dev && first.st_ino == second.st_ino;
}

/*
 * Rewriting a keyfile another volume also reads would lock that volume out
 * at its next open: refused, naming it.
 */
Result<void> keyfileNotShared(const VolumeSpec &spec)
{
	for (const std::string &dir : defaultSpecDirs()) {
		std::vector<std::string> files;
		std::error_code error;
		(void)listSpecFiles(dir, files, error); /* a missing directory holds no spec */
		for (const std::string &file : files) {
			const SpecOutcome other = loadVolumeSpec(file);
			if (other.spec.name == spec.name || !other.spec.encryption ||
			    other.spec.encryption->givenAtUp ||
			    !sameFile(other.spec.encryption->keyfile, spec.encryption->keyfile))
				continue;
			return fail(
				Errc::Conflict,
				"its keyfile " + spec.encryption->keyfile +
					" is also the key of volume '" + other.spec.name + "' (" +
					file +
					"), which the rotation would lock out; give each volume a "
					"keyfile of its own first");
		}
	}
	return {};
}

/* Where the key of a volume keyed by a keyfile is rotated: its open mapping's device. */
Result<std::string> rotationDevice(const VolumeSpec &spec)
{
	if (auto source = checkKeySource(spec); !source)
		return tl::make_unexpected(source.error());
	if (auto alone = keyfileNotShared(spec); !alone)
		return tl::make_unexpected(alone.error());
	return mappedDevice(spec.name);
}

void record(const VolumeSpec &spec, const std::string &device, RotationStep step,
	    const std::string &detail)
{
	log::write(log::volumeLine(
		log::Level::Info, spec.name,
		"volume '" + spec.name + "': rotate-key " + rotationStepName(step) + ": " + detail,
		{ { log::field::Step, std::string("rotate-key-") + rotationStepName(step) },
		  { log::field::Image, spec.image.display() },
		  { log::field::StepResult, "changed" },
		  { log::field::Device, device },
		  { log::field::Detail, detail } }));
}

} /* namespace */

int verbRotateKey(std::span<const std::string_view> args)
{
	auto parsed = parseArgs(args);
	if (!parsed)
		return usageError(Verb, parsed.error().message, Synopsis);
	if (geteuid() != 0) {
		std::fprintf(stderr,
			     "rbd-volumectl: rotate-key %s: changing a volume's key needs root\n",
			     parsed->name.c_str());
		return ExitDenied;
	}
	auto spec = installedSpec(parsed->name);
	auto device = spec ? rotationDevice(*spec)
			   : Result<std::string>(tl::make_unexpected(spec.error()));
	if (!device) {
		/* No spec of that name is exit 5, as the bus verbs' "no such volume". */
		return reportFailure(std::string(Verb) + " " + parsed->name, device.error());
	}

	KeyRotation rotation;
	rotation.device = *device;
	rotation.keyfile = spec->encryption->keyfile;
	rotation.newKeyfile = parsed->newKeyfile;
	rotation.format.pbkdf = pbkdfName(spec->encryption->pbkdf);
	rotation.format.pbkdfTimeMs = static_cast<uint32_t>(spec->encryption->pbkdfTime.count());
	/* The record goes to the journal, what the operator reads to the terminal. */
	log::setTarget(log::Target::Journal);
	auto rotated = rotateKey(rotation, RotationSteps,
				 [&](RotationStep step, const std::string &detail) {
					 std::printf("%s: %s: %s\n", spec->name.c_str(),
						     rotationStepName(step), detail.c_str());
					 record(*spec, *device, step, detail);
				 });
	if (!rotated) {
		log::error("volume '" + spec->name +
			   "': rotate-key failed: " + rotated.error().message);
		std::fprintf(stderr,
			     "rbd-volumectl: rotate-key %s: %s\nThe volume opens with the key of "
			     "%s or of %s; the same command again finishes the rotation.\n",
			     spec->name.c_str(), rotated.error().message.c_str(),
			     rotation.keyfile.c_str(), rotation.newKeyfile.c_str());
		return ExitFailure;
	}
	std::printf("%s: rotated; %s holds the new key, the old key's slot is gone\n",
		    spec->name.c_str(), rotation.keyfile.c_str());
	return ExitOk;
}

} /* namespace rbdvolume::cli */
