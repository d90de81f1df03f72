/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * VolumeKeys: the passphrase LUKS is given for a volume, from where its
 * [encryption] says. The volume's secret is the keyfile's bytes, or with
 * given-at-up the bytes its up request brought (GivenPassphrases).
 * `keyfile`: the secret is the passphrase. `image-metadata`: the data key
 * kept in the image's metadata, unwrapped by the secret,
 * as ceph-csi's "metadata" KMS keeps it (host/crypt/data_key.hpp), so a
 * volume ceph-csi provisioned opens as it is and one we made opens in
 * ceph-csi. Every key lives in memory only, and is wiped when dropped.
 */
#pragma once

#include "common/result.hpp"
#include "common/secret.hpp"
#include "engine/ports.hpp"
#include "host/given_passphrases.hpp"

namespace rbdvolume {

/* ceph-csi's values of rbd.csi.ceph.com/encrypted. */
inline constexpr std::string_view EncryptionPrepared = "encryptionPrepared";
inline constexpr std::string_view EncryptionDone = "encrypted";

class VolumeKeys
{
public:
	VolumeKeys(Images &images, const GivenPassphrases &given) : images_(images), given_(given)
	{
	}

	/*
	 * The passphrase of a volume whose header exists. Conflict when the
	 * image's metadata keeps no data key; PermissionDenied when the keyfile
	 * does not unwrap it.
	 */
	Result<Secret> existing(const CryptRequest &request);
	/*
	 * The passphrase to format with: as existing(), but an image with no
	 * data key gets a new one, stored (and the state "encryptionPrepared")
	 * before it is answered, so that a format cut short is finished with the
	 * same key. Conflict when the metadata says the image was encrypted:
	 * its header is gone, and a new one would hide what is left.
	 */
	Result<Secret> forFormat(const CryptRequest &request);
	/*
	 * After the header is written: the state "encrypted", as ceph-csi's node
	 * sets it (not for a keyfile of the operator's, whose image's metadata
	 * is left alone). forFormat() checks the state for the same volumes.
	 */
	Result<void> formatted(const CryptRequest &request);

private:
	/* The keyfile's bytes, or those given at up. */
	Result<Secret> secretOf(const CryptRequest &request) const;
	/* The data key `passphrase` unwraps; nullopt when the metadata keeps none. */
	Result<std::optional<Secret>> unwrapped(const CryptRequest &request,
						const Secret &passphrase);
	/* What opens the header: a keyfile's bytes, or the data key the passphrase
	 * unwraps; with none kept, a new one (createMissing) or Conflict. */
	Result<Secret> headerKey(const CryptRequest &request, bool createMissing);
	/* A new data key, wrapped and stored before the state "encryptionPrepared". */
	Result<Secret> storeNewKey(const CryptRequest &request, const Secret &passphrase);
	/* The first of the current and the legacy key the metadata keeps. */
	Result<std::optional<std::string>> stored(const CryptRequest &request, std::string_view key,
						  std::string_view legacy);

	Images &images_;
	const GivenPassphrases &given_;
};

} /* namespace rbdvolume */
