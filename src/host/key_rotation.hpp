/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Rotating the key of a volume keyed by a keyfile: the bytes of a new
 * keyfile take the place of the old ones, in the LUKS header and in the
 * volume's keyfile. Five steps, each idempotent, in an order that keeps the
 * volume's keyfile opening the header at every instant:
 *
 *   add-key     a key slot for the new key, unlocked by the old one
 *   verify      the new key opens that slot
 *   mark-old    the old key's slot recorded in the header as retiring
 *   replace     the volume's keyfile rewritten with the new bytes (atomically)
 *   remove-old  the recorded slot destroyed (never the new key's), the record dropped
 *
 * Interrupted anywhere, the same rotation run again finishes it: before
 * replace it starts over (each step finds its work done), after it the
 * record in the header names the slot still to destroy. The device is the
 * mapped image under the volume's open mapping: a key slot changes nothing
 * of an active mapping.
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

enum class RotationStep : uint8_t { AddKey, Verify, MarkOld, Replace, RemoveOld };

inline constexpr std::array<RotationStep, 5> RotationSteps = {
	RotationStep::AddKey,  RotationStep::Verify,	RotationStep::MarkOld,
	RotationStep::Replace, RotationStep::RemoveOld,
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
 * keyfile that already holds the new key is a rotation past replace: only
 * remove-old runs, when the header still records a retiring slot.
 */
Result<void> rotateKey(const KeyRotation &rotation, std::span<const RotationStep> steps,
		       const RotationProgress &progress);

} /* namespace rbdvolume */
