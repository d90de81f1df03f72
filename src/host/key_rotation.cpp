/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "host/key_rotation.hpp"

#include <sys/stat.h>

#include "common/file_io.hpp"
#include "host/crypt/key_file.hpp"

namespace rbdvolume {

namespace {

constexpr mode_t KeyfileMode = 0600;

/* The keyfile's owner bits are kept (0400 stays 0400); it is never readable by others. */
Result<void> replaceKeyfile(const std::string &keyfile, const Secret &key)
{
	struct stat now {
	};
	mode_t mode = ::stat(keyfile.c_str(), &now) == 0 ? (now.st_mode & 0600) : KeyfileMode;
	if ((mode & S_IRUSR) == 0)
		mode = KeyfileMode;
	return writeFileAtomic(keyfile, key.view(), mode);
}

Result<std::string> runStep(RotationStep step, const KeyRotation &rotation, const Secret &oldKey,
			    const Secret &newKey)
{
	switch (step) {
	case RotationStep::AddKey: {
		auto slot = addPassphrase(rotation.device, oldKey, newKey, rotation.format,
					  rotation.limits);
		if (!slot)
			return tl::make_unexpected(slot.error());
		return "key slot " + std::to_string(*slot);
	}
	case RotationStep::Verify: {
		auto slot = checkPassphrase(rotation.device, newKey, rotation.limits);
		if (!slot)
			return tl::make_unexpected(slot.error());
		return "the new key opens key slot " + std::to_string(*slot);
	}
	case RotationStep::RemoveOld:
		if (auto removed =
			    removePassphrase(rotation.device, newKey, oldKey, rotation.limits);
		    !removed)
			return tl::make_unexpected(removed.error());
		return "the old key opens no key slot";
	case RotationStep::Replace:
		if (auto replaced = replaceKeyfile(rotation.keyfile, newKey); !replaced)
			return tl::make_unexpected(replaced.error());
		return rotation.keyfile;
	}
	return fail(Errc::Internal, "an unknown rotation step");
}

} /* namespace */

const char *rotationStepName(RotationStep step)
{
	switch (step) {
	case RotationStep::AddKey:
		return "add-key";
	case RotationStep::Verify:
		return "verify";
	case RotationStep::RemoveOld:
		return "remove-old";
	case RotationStep::Replace:
		return "replace";
	}
	return "unknown";
}

Result<void> rotateKey(const KeyRotation &rotation, std::span<const RotationStep> steps,
		       const RotationProgress &progress)
{
	auto oldKey = readKeyfile(rotation.keyfile);
	if (!oldKey)
		return tl::make_unexpected(oldKey.error());
	auto newKey = readKeyfile(rotation.newKeyfile);
	if (!newKey)
		return tl::make_unexpected(newKey.error());
	/* Run again after its last step: the rotation is done. */
	if (oldKey->equals(*newKey))
		return {};
	for (const RotationStep step : steps) {
		auto done = runStep(step, rotation, *oldKey, *newKey);
		if (!done)
			return fail(done.error().code,
				    std::string(rotationStepName(step)) + ": " +
					    done.error().message,
				    done.error().sysErrno);
		if (progress)
			progress(step, *done);
	}
	return {};
}

} /* namespace rbdvolume */
