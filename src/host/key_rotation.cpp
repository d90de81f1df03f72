/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "host/key_rotation.hpp"

#include <algorithm>

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

/* The slot the header records as retiring: the old key's, by the time it is asked. */
Result<int> recordedSlot(const KeyRotation &rotation)
{
	auto slot = retiringKeySlot(rotation.device, rotation.limits);
	if (!slot)
		return tl::make_unexpected(slot.error());
	if (!*slot)
		return fail(Errc::NotFound,
			    "no retiring key slot is recorded on " + rotation.device);
	return **slot;
}

Result<std::string> removeOld(const KeyRotation &rotation, const Secret &newKey)
{
	auto slot = recordedSlot(rotation);
	if (!slot)
		return tl::make_unexpected(slot.error());
	if (auto retired = retireKeySlot(rotation.device, *slot, newKey, rotation.limits); !retired)
		return tl::make_unexpected(retired.error());
	return "key slot " + std::to_string(*slot) + " destroyed";
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
	case RotationStep::MarkOld: {
		auto slot = checkPassphrase(rotation.device, oldKey, rotation.limits);
		if (!slot)
			return tl::make_unexpected(slot.error());
		if (auto marked = markKeySlotRetiring(rotation.device, *slot, rotation.limits);
		    !marked)
			return tl::make_unexpected(marked.error());
		return "key slot " + std::to_string(*slot) + " retiring";
	}
	case RotationStep::Replace:
		if (auto replaced = replaceKeyfile(rotation.keyfile, newKey); !replaced)
			return tl::make_unexpected(replaced.error());
		return rotation.keyfile;
	case RotationStep::RemoveOld:
		return removeOld(rotation, newKey);
	}
	return fail(Errc::Internal, "an unknown rotation step");
}

Result<void> withStepName(RotationStep step, const Error &error)
{
	return fail(error.code, std::string(rotationStepName(step)) + ": " + error.message,
		    error.sysErrno);
}

} /* namespace */

const char *rotationStepName(RotationStep step)
{
	switch (step) {
	case RotationStep::AddKey:
		return "add-key";
	case RotationStep::Verify:
		return "verify";
	case RotationStep::MarkOld:
		return "mark-old";
	case RotationStep::Replace:
		return "replace";
	case RotationStep::RemoveOld:
		return "remove-old";
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
	/* Past replace: only the recorded slot may be left to destroy. */
	if (oldKey->equals(*newKey)) {
		auto pending = retiringKeySlot(rotation.device, rotation.limits);
		if (!pending)
			return withStepName(RotationStep::RemoveOld, pending.error());
		const bool removing = std::find(steps.begin(), steps.end(),
						RotationStep::RemoveOld) != steps.end();
		if (!*pending || !removing)
			return {};
		steps = std::span(RotationSteps).last(1);
	}
	for (const RotationStep step : steps) {
		auto done = runStep(step, rotation, *oldKey, *newKey);
		if (!done)
			return withStepName(step, done.error());
		if (progress)
			progress(step, *done);
	}
	return {};
}

} /* namespace rbdvolume */
