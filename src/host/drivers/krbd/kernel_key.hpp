/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The cephx key of a volume's client, for the kernel's rbd client: read from
 * the spec's keyfile or keyring, and handed to the kernel as a key of the
 * "ceph" type in the process keyring, which libceph copies while it parses
 * the add line's key= (and never shows again, as it would a secret=).
 */
#pragma once

#include <string>

#include "common/result.hpp"
#include "common/secret.hpp"
#include "config/volume_spec.hpp"

namespace rbdvolume {

/*
 * The base64 key of client.ID: a keyfile's only line, or `key = ...` in the
 * keyring's [client.ID] section. NotFound when the spec names neither file
 * (the key is where ceph.conf says: the rbd tool finds it), or the keyring
 * has no key for the client; a file that cannot be read is its error.
 */
Result<Secret> cephxKeyOf(const ClusterSpec &cluster);

/*
 * The key in this process's keyring, under `name`, for as long as this
 * lives. add() fails with Unsupported where the kernel lacks the "ceph" key
 * type (libceph not loaded).
 */
class KernelKey
{
public:
	/* A name no other key of this process has: two maps at once never share one. */
	static std::string newName();
	/* What the add line's key= names is `name`. */
	static Result<KernelKey> add(const Secret &base64Key, const std::string &name);
	~KernelKey();
	KernelKey(KernelKey &&other) noexcept;
	KernelKey &operator=(KernelKey &&) = delete;
	KernelKey(const KernelKey &) = delete;
	KernelKey &operator=(const KernelKey &) = delete;

private:
	explicit KernelKey(long serial) : serial_(serial) {}

	long serial_ = -1;
};

} /* namespace rbdvolume */
