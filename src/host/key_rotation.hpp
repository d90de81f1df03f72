/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Rotating the key of a volume keyed by a keyfile: the bytes of a new
 * keyfile take the place of the old ones, in the LUKS header and in the
 * volume's keyfile. Four steps, each idempotent, in an order that keeps a
 * key the operator holds in a file opening the header at every instant:
 *
 *   add-key     a key slot for the new key, unlocked by the old one
 *   verify      the new key opens that slot
 *   remove-old  the old key's slot destroyed (never the new key's)
 *   replace     the volume's keyfile rewritten with the new bytes (atomically)
 *
 * Interrupted anywhere, the same rotation run again finishes it. Until
 * then the header opens with the new key, and before remove-old with the old
 * one too; between remove-old and replace only the new keyfile opens it.
 * The device is the mapped image under the volume's open mapping: a key
 * slot changes nothing of an active mapping.
 */
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <span>
#include <string>

#include "common/result.hpp"
#include "host/crypt/luks_device.hpp"

namespace rbdvolume {

enum class RotationStep : uint8_t { AddKey, Verify, RemoveOld, Replace };

inline constexpr std::array<RotationStep, 4> RotationSteps = {
	RotationStep::AddKey,
	RotationStep::Verify,
	RotationStep::RemoveOld,
	RotationStep::Replace,
};

const char *rotationStepName(RotationStep step);

struct KeyRotation {
	std::string device;	/* the LUKS device */
	std::string keyfile;	/* the volume's keyfile: its bytes are the old key */
	std::string newKeyfile; /* the new key's bytes; left as it is */
	LuksFormat format;	/* the new key slot's key derivation */
	LuksLimits limits;
};

/* One line per step done: "add-key: key slot 1", "replace: /etc/rbd-volume/keys/db.key". */
using RotationProgress = std::function<void(RotationStep step, const std::string &detail)>;

/*
 * Runs `steps` (RotationSteps but in tests, which stop part way) in order.
 * Both keyfiles are read as readKeyfile() reads them, before any step. A
 * keyfile that already holds the new key is a rotation done: nothing runs.
 */
Result<void> rotateKey(const KeyRotation &rotation, std::span<const RotationStep> steps,
		       const RotationProgress &progress);

} /* namespace rbdvolume */
