/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A volume's data key kept in its image's metadata, wrapped as ceph-csi's
 * "metadata" KMS wraps it, so that volumes ceph-csi provisioned open as
 * they are (internal/kms/secretskms.go):
 *
 *   data key  20 random bytes, base64url with padding: 28 characters that
 *             are the LUKS passphrase as they stand (never decoded)
 *   KEK       scrypt(passphrase, salt = the volume ID, N=32768, r=8, p=1),
 *             32 bytes
 *   stored    AES-256-GCM of the data key under the KEK, a random 12-byte
 *             nonce, no associated data; kept as the JSON
 *             {"dek":"<base64 of ciphertext and tag>","nonce":"<base64>"}
 *
 * The volume ID is ceph-csi's volume handle (the image name for a static
 * volume): a key wrapped for one volume does not unwrap for another.
 */
#pragma once

#include <string>
#include <string_view>

#include "common/result.hpp"
#include "common/secret.hpp"

namespace rbdvolume {

/*
 * Image metadata keys, as ceph-csi names them. Volumes made before its
 * commit 4e404721c (July 2021) carry the dotted names, which ceph-csi still
 * reads (and moves): a volume without the first may have the second, and is
 * then no new volume.
 */
inline constexpr std::string_view DataKeyMetadataKey = "rbd.csi.ceph.com/dek";
inline constexpr std::string_view EncryptionStateMetadataKey = "rbd.csi.ceph.com/encrypted";
inline constexpr std::string_view LegacyDataKeyMetadataKey = ".rbd.csi.ceph.com/dek";
inline constexpr std::string_view LegacyEncryptionStateMetadataKey = ".rbd.csi.ceph.com/encrypted";

/* A new data key: 20 random bytes, base64url with padding (28 characters). */
Result<Secret> newDataKey();

/* The JSON to store under DataKeyMetadataKey. */
Result<std::string> wrapDataKey(const Secret &dataKey, const Secret &passphrase,
				std::string_view volumeId);

/*
 * The data key back from what is stored. A stored value that is not this
 * format is InvalidArgument; a passphrase or volume ID that does not unwrap
 * it is PermissionDenied.
 */
Result<Secret> unwrapDataKey(std::string_view stored, const Secret &passphrase,
			     std::string_view volumeId);

} /* namespace rbdvolume */
