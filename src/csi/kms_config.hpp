/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ceph-csi's KMS config: config.json of its ceph-csi-encryption-kms-config
 * ConfigMap, a JSON object whose keys are the encryptionKMSID values a
 * StorageClass names:
 *
 *     {"secrets-metadata-test": {"encryptionKMSType": "metadata"},
 *      "vault-test": {"encryptionKMSType": "vault", "vaultAddress": ...}}
 *
 * Only an entry's type and its secretName are read; rbd-volume-csi decides
 * what it supports (stage_spec.cpp).
 */
#pragma once

#include <string>
#include <string_view>

#include "common/result.hpp"

namespace rbdvolume::csi {

struct KmsEntry {
	std::string type;	/* encryptionKMSType (or the legacy KMS_PROVIDER) */
	std::string secretName; /* metadata KMS: a Kubernetes Secret holding the passphrase */
};

/*
 * The entry `kmsId` of the config's text. InvalidArgument when it has none
 * (the message lists the IDs it has: the StorageClass names a KMS this node
 * does not know) or when the text is not ceph-csi's format. `file` names it
 * in messages.
 */
Result<KmsEntry> kmsEntryOf(std::string_view text, const std::string &file,
			    const std::string &kmsId);

/* The same, read from `path` (at most 1 MiB); InvalidArgument when there is no such file. */
Result<KmsEntry> loadKmsEntry(const std::string &path, const std::string &kmsId);

} /* namespace rbdvolume::csi */
