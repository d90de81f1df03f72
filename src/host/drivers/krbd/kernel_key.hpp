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
 * The key in this process's keyring for as long as it lives, under a name
 * of its own (two maps at once never share one). add() fails with
 * Unsupported where the kernel lacks the "ceph" key type (libceph not loaded).
 */
class KernelKey
{
public:
	static Result<KernelKey> add(const Secret &base64Key);
	~KernelKey();
	KernelKey(KernelKey &&other) noexcept;
	KernelKey &operator=(KernelKey &&) = delete;
	KernelKey(const KernelKey &) = delete;
	KernelKey &operator=(const KernelKey &) = delete;

	/* What the add line's key= names. */
	const std::string &name() const { return name_; }

private:
	KernelKey(std::string name, long serial) : name_(std::move(name)), serial_(serial) {}

	std::string name_;
	long serial_ = -1;
};

} /* namespace rbdvolume */
