/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "host/volume_keys.hpp"

#include "host/crypt/data_key.hpp"
#include "host/crypt/key_file.hpp"

namespace rbdvolume {

namespace {

ImageRequest imageOf(const CryptRequest &request)
{
	ImageRequest image;
	image.volume = request.volume;
	image.image = request.image;
	image.cluster = request.cluster;
	image.readOnly = request.readOnly;
	return image;
}

std::string volumeIdOf(const CryptRequest &request)
{
	return request.encryption.volumeId.empty() ? request.image.name
						   : request.encryption.volumeId;
}

tl::unexpected<Error> withContext(const Error &error, const CryptRequest &request)
{
	return fail(error.code,
		    "volume '" + request.volume + "': the data key in the metadata of image " +
			    request.image.display() + ": " + error.message,
		    error.sysErrno);
}

/*
 * ceph-csi keeps an encrypted volume's state in its image's metadata: for a
 * data key kept there, and for every volume its node stages (given at up).
 * A keyfile of the operator's leaves the image's metadata untouched.
 */
bool keepsState(const CryptRequest &request)
{
	return request.encryption.source == KeySource::ImageMetadata ||
	       request.encryption.givenAtUp;
}

} /* namespace */

Result<std::optional<std::string>> VolumeKeys::stored(const CryptRequest &request,
						      std::string_view key, std::string_view legacy)
{
	auto value = images_.metadata(imageOf(request), std::string(key));
	if (!value || *value)
		return value;
	return images_.metadata(imageOf(request), std::string(legacy));
}

Result<Secret> VolumeKeys::secretOf(const CryptRequest &request) const
{
	if (request.encryption.givenAtUp)
		return given_.copyOf(request.volume);
	return readKeyfile(request.encryption.keyfile);
}

Result<std::optional<Secret>> VolumeKeys::unwrapped(const CryptRequest &request,
						    const Secret &passphrase)
{
	auto wrapped = stored(request, DataKeyMetadataKey, LegacyDataKeyMetadataKey);
	if (!wrapped)
		return tl::make_unexpected(wrapped.error());
	if (!*wrapped)
		return std::optional<Secret>();
	auto key = unwrapDataKey(**wrapped, passphrase, volumeIdOf(request));
	if (!key)
		return withContext(key.error(), request);
	return std::optional<Secret>(std::move(*key));
}

Result<Secret> VolumeKeys::headerKey(const CryptRequest &request, bool createMissing)
{
	auto passphrase = secretOf(request);
	if (!passphrase || request.encryption.source == KeySource::Keyfile)
		return passphrase;
	auto key = unwrapped(request, *passphrase);
	if (!key)
		return tl::make_unexpected(key.error());
	if (*key)
		return std::move(**key);
	if (!createMissing)
		return fail(Errc::Conflict,
			    "volume '" + request.volume + "': image " + request.image.display() +
				    " keeps no '" + std::string(DataKeyMetadataKey) +
				    "' in its metadata: no data key to open it with");
	return storeNewKey(request, *passphrase);
}

Result<Secret> VolumeKeys::storeNewKey(const CryptRequest &request, const Secret &passphrase)
{
	auto fresh = newDataKey();
	if (!fresh)
		return tl::make_unexpected(fresh.error());
	auto wrapped = wrapDataKey(*fresh, passphrase, volumeIdOf(request));
	if (!wrapped)
		return tl::make_unexpected(wrapped.error());
	/* The key first: a state without it would say "prepared" for a key that is not there. */
	if (auto kept = images_.setMetadata(imageOf(request), std::string(DataKeyMetadataKey),
					    *wrapped);
	    !kept)
		return tl::make_unexpected(kept.error());
	if (auto marked =
		    images_.setMetadata(imageOf(request), std::string(EncryptionStateMetadataKey),
					std::string(EncryptionPrepared));
	    !marked)
		return tl::make_unexpected(marked.error());
	return fresh;
}

Result<Secret> VolumeKeys::existing(const CryptRequest &request)
{
	return headerKey(request, false);
}

Result<Secret> VolumeKeys::forFormat(const CryptRequest &request)
{
	if (keepsState(request)) {
		auto state = stored(request, EncryptionStateMetadataKey,
				    LegacyEncryptionStateMetadataKey);
		if (!state)
			return tl::make_unexpected(state.error());
		if (*state && **state == EncryptionDone)
			return fail(Errc::Conflict,
				    "volume '" + request.volume + "': the metadata of image " +
					    request.image.display() +
					    " says it is encrypted, but it has no LUKS header; not "
					    "writing a new one over what is left");
	}
	return headerKey(request, true);
}

Result<void> VolumeKeys::formatted(const CryptRequest &request)
{
	if (!keepsState(request))
		return {};
	return images_.setMetadata(imageOf(request), std::string(EncryptionStateMetadataKey),
				   std::string(EncryptionDone));
}

} /* namespace rbdvolume */
