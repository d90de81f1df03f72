/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "engine/ports.hpp"

namespace rbdvolume {

MapRequest mapRequestOf(const VolumeSpec &spec)
{
	return MapRequest{ spec.name, spec.image, spec.cluster, spec.map };
}

ImageRequest imageRequestOf(const VolumeSpec &spec)
{
	return ImageRequest{ spec.name, spec.image, spec.cluster, spec.readOnly(),
			     spec.map.multiWriter };
}

CryptRequest cryptRequestOf(const VolumeSpec &spec)
{
	return CryptRequest{ spec.name, spec.encryption.value_or(EncryptionSpec{}), spec.image,
			     spec.cluster, spec.readOnly() };
}

} /* namespace rbdvolume */
