/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * LUKS on a volume's mapped device through libcryptsetup's C API (the
 * library systemd-cryptsetup uses; never the cryptsetup command, so a
 * passphrase is never an argument or a pipe). Every call that reads or
 * writes the device runs bounded (boundedCall): a device whose server
 * stopped answering holds up only its caller, and only so long.
 *
 * The volume key stays out of the kernel keyring, as ceph-csi opens its
 * volumes (`--disable-keyring`), so a mapping grows without a passphrase.
 * Formatting writes a header over whatever is there: the caller has probed
 * the device blank just before, as for mkfs.
 */
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "common/secret.hpp"

namespace rbdvolume {

/* cryptsetup's own defaults, with ceph-csi's hash and memory bound for argon2. */
struct LuksFormat {
	std::string cipher = "aes";
	std::string cipherMode = "xts-plain64";
	uint32_t keyBits = 512;
	std::string pbkdf = "argon2id"; /* argon2id, argon2i or pbkdf2 */
	std::string hash = "sha256";
	uint32_t pbkdfMemoryKiB = 32768; /* argon2 only */
	uint32_t pbkdfTimeMs = 2000;	 /* benchmarked to this cost ... */
	uint32_t pbkdfIterations = 0;	 /* ... unless set: then no benchmark */
};

struct LuksHeader {
	std::string version; /* "LUKS2" or "LUKS1" */
	std::string uuid;
	std::string cipher; /* "aes-xts-plain64" */
	uint32_t keyBits = 0;
	std::vector<int> keyslots; /* the slots in use */
};

/* Every call on a device is bounded by this. */
struct LuksLimits {
	std::chrono::milliseconds device{ std::chrono::seconds(60) };
};

/*
 * A new LUKS2 header with the passphrase in one key slot. Refused (Conflict)
 * when libblkid finds any signature on the device right before.
 */
Result<void> formatLuks(const std::string &device, const LuksFormat &format,
			const Secret &passphrase, LuksLimits limits = {});

/*
 * The device's LUKS header. NotFound when libcryptsetup loads none, which is
 * not "blank": a damaged header or a device too small for its header reads
 * the same. Only a probe says a device is blank.
 */
Result<LuksHeader> readLuksHeader(const std::string &device, LuksLimits limits = {});

/* The key slot the passphrase opens; PermissionDenied when it opens none. */
Result<int> checkPassphrase(const std::string &device, const Secret &passphrase,
			    LuksLimits limits = {});

/*
 * Opens the device as /dev/mapper/NAME; PermissionDenied for a wrong
 * passphrase, Conflict when NAME is active already (an open that timed out
 * may have made it since).
 */
Result<void> openLuks(const std::string &device, const std::string &name, const Secret &passphrase,
		      bool readOnly, LuksLimits limits = {});

/* Closes /dev/mapper/NAME; Unchanged when it is not open, Busy while it is held. */
Result<bool> closeLuks(const std::string &name, LuksLimits limits = {});

/* Grows /dev/mapper/NAME to its device's size. */
Result<void> resizeLuks(const std::string &name, LuksLimits limits = {});

/* A slot for `added`, unlocked by `existing`; the new slot's number. */
Result<int> addPassphrase(const std::string &device, const Secret &existing, const Secret &added,
			  const LuksFormat &format, LuksLimits limits = {});

/* Frees the slot `removed` opens, once `kept` is known to open another. */
Result<void> removePassphrase(const std::string &device, const Secret &kept, const Secret &removed,
			      LuksLimits limits = {});

/*
 * A key slot a key rotation of ours is retiring, recorded in the header
 * itself (a LUKS2 token of type "rbd-volume-rotation"), so that a rotation
 * cut short after its keyfile changed still knows which slot to destroy.
 * nullopt when none is recorded.
 */
Result<std::optional<int>> retiringKeySlot(const std::string &device, LuksLimits limits = {});
/* Records `slot` as retiring, in place of any earlier record. */
Result<void> markKeySlotRetiring(const std::string &device, int slot, LuksLimits limits = {});
/*
 * Destroys `slot` (unless gone already), once `kept` is known to open
 * another slot, then drops the record. Conflict when `kept` opens `slot`.
 */
Result<void> retireKeySlot(const std::string &device, int slot, const Secret &kept,
			   LuksLimits limits = {});

} /* namespace rbdvolume */
