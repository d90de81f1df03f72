/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "host/drivers/krbd/kernel_key.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <optional>
#include <string_view>
#include <unistd.h>
#include <utility>

#include <linux/keyctl.h>
#include <sys/syscall.h>

#include "common/base64.hpp"
#include "common/errno_text.hpp"
#include "common/file_io.hpp"

namespace rbdvolume {

namespace {

std::string_view trimmed(std::string_view text)
{
	const size_t first = text.find_first_not_of(" \t\r\n");
	if (first == std::string_view::npos)
		return {};
	const size_t last = text.find_last_not_of(" \t\r\n");
	return text.substr(first, last - first + 1);
}

/* `key = VALUE` (or `key=VALUE`) in the [client.ID] section of a keyring's text. */
std::optional<std::string_view> keyringKey(std::string_view text, const std::string &entity)
{
	bool inSection = false;
	while (!text.empty()) {
		const size_t newline = text.find('\n');
		const std::string_view line = trimmed(text.substr(0, newline));
		text = newline == std::string_view::npos ? std::string_view()
							 : text.substr(newline + 1);
		if (line.starts_with('[')) {
			inSection = line == "[" + entity + "]";
			continue;
		}
		if (!inSection || !line.starts_with("key"))
			continue;
		const std::string_view rest = trimmed(line.substr(3));
		if (rest.starts_with('='))
			return trimmed(rest.substr(1));
	}
	return std::nullopt;
}

/* Keyrings and keyfiles are a few hundred bytes. */
constexpr size_t KeyFileBytes = size_t{ 64 } * 1024;

std::atomic<unsigned> keyCount = 0;

} /* namespace */

Result<Secret> cephxKeyOf(const ClusterSpec &cluster)
{
	const std::string &path = cluster.keyfile.empty() ? cluster.keyring : cluster.keyfile;
	if (path.empty())
		return fail(Errc::NotFound, "the spec names no keyring or keyfile");
	auto text = readFileBounded(path, KeyFileBytes, Symlinks::Follow);
	if (!text)
		return fail(text.error().code, path + ": " + text.error().message,
			    text.error().sysErrno);
	if (!*text)
		return fail(Errc::NotFound, path + " does not exist", ENOENT);
	const Secret whole(**text);
	std::fill((*text)->begin(), (*text)->end(), '\0');
	const std::string entity = "client." + cluster.clientId;
	const std::optional<std::string_view> key =
		cluster.keyfile.empty() ? keyringKey(whole.view(), entity)
					: std::optional<std::string_view>(trimmed(whole.view()));
	if (!key || key->empty())
		return fail(Errc::NotFound, path + " has no key for " + entity);
	return Secret(*key);
}

std::string KernelKey::newName()
{
	return "rbd-volume." + std::to_string(getpid()) + "." + std::to_string(++keyCount);
}

Result<KernelKey> KernelKey::add(const Secret &base64Key, const std::string &name)
{
	auto raw = base64Decode(base64Key.view());
	if (!raw)
		return fail(Errc::InvalidArgument, "the cephx key is not base64");
	const Secret payload(
		std::string_view(reinterpret_cast<const char *>(raw->data()), raw->size()));
	std::fill(raw->begin(), raw->end(), 0);
	const long serial = syscall(SYS_add_key, "ceph", name.c_str(), payload.data(),
				    payload.size(), KEY_SPEC_PROCESS_KEYRING);
	if (serial < 0) {
		const int err = errno;
		if (err == ENODEV || err == ENOSYS)
			return fail(Errc::Unsupported, "the kernel has no \"ceph\" key type", err);
		return failErrno("adding the cephx key to the kernel's keyring", err);
	}
	return KernelKey(serial);
}

KernelKey::KernelKey(KernelKey &&other) noexcept : serial_(std::exchange(other.serial_, -1))
{
}

/* libceph has its own copy once the add line is parsed. */
KernelKey::~KernelKey()
{
	if (serial_ >= 0)
		syscall(SYS_keyctl, KEYCTL_INVALIDATE, serial_);
}

} /* namespace rbdvolume */
