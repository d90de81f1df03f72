/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "host/crypt/luks_device.hpp"

#include <cerrno>
#include <functional>
#include <libcryptsetup.h>
#include <memory>
#include <mutex>
#include <utility>

#include <blkid/blkid.h>

#include "common/bounded_call.hpp"
#include "common/c_handle.hpp"
#include "common/errno_text.hpp"

namespace rbdvolume {

namespace {

using CryptHandle = CHandle<crypt_device, crypt_free>;

/* The library's error lines for one handle: they name the cause, never a key. */
struct CryptLog {
	std::string errors;
};

void collectErrors(int level, const char *message, void *user)
{
	if (level != CRYPT_LOG_ERROR || message == nullptr)
		return;
	std::string &errors = static_cast<CryptLog *>(user)->errors;
	std::string line(message);
	while (!line.empty() && line.back() == '\n')
		line.pop_back();
	errors += (errors.empty() ? "" : "; ") + line;
}

/* A handle on a device (or an active mapping), its errors collected. */
struct Crypt {
	/* Before the handle: crypt_free() may still log through it. */
	std::unique_ptr<CryptLog> log = std::make_unique<CryptLog>();
	CryptHandle handle;

	/* The handle, its earlier errors forgotten: each failure names its own cause. */
	crypt_device *get() const
	{
		log->errors.clear();
		return handle.get();
	}

	/* The library's words when it gave any, the errno's otherwise. */
	Error error(Errc code, const std::string &what, int rc) const
	{
		const int err = rc < 0 ? -rc : rc;
		return Error{ code,
			      what + ": " + (log->errors.empty() ? errnoText(err) : log->errors),
			      err };
	}
};

void dropLine(int /*level*/, const char * /*message*/, void * /*user*/)
{
}

/*
 * The library's global settings, once: the volume key never goes to the
 * kernel keyring, and lines logged before a handle exists are dropped (each
 * failure we report carries its own words).
 */
void setUpLibrary()
{
	static std::once_flag once;
	std::call_once(once, [] {
		(void)crypt_volume_key_keyring(nullptr, 0);
		crypt_set_log_callback(nullptr, dropLine, nullptr);
	});
}

/* The handle of an active mapping; NotFound when NAME is not active. */
Result<Crypt> initByName(const std::string &name)
{
	setUpLibrary();
	const std::string mapper = "/dev/mapper/" + name;
	Crypt crypt;
	crypt_device *cd = nullptr;
	if (const int rc = crypt_init_by_name(&cd, name.c_str()); rc < 0)
		return fail(rc == -ENODEV ? Errc::NotFound : Errc::Io,
			    "cannot look up " + mapper + ": " + errnoText(-rc), -rc);
	crypt.handle.reset(cd);
	crypt_set_log_callback(cd, collectErrors, crypt.log.get());
	return crypt;
}

Result<Crypt> initDevice(const std::string &device)
{
	setUpLibrary();
	Crypt crypt;
	crypt_device *cd = nullptr;
	/* Never NotFound, whatever the errno: to loadDevice's callers that
	 * means "no LUKS header", which formatHeader may write. */
	if (const int rc = crypt_init(&cd, device.c_str()); rc < 0)
		return fail(Errc::Io, "cannot open " + device + " for LUKS: " + errnoText(-rc),
			    -rc);
	crypt.handle.reset(cd);
	crypt_set_log_callback(cd, collectErrors, crypt.log.get());
	return crypt;
}

Result<Crypt> loadDevice(const std::string &device)
{
	auto crypt = initDevice(device);
	if (!crypt)
		return crypt;
	if (const int rc = crypt_load(crypt->get(), CRYPT_LUKS, nullptr); rc < 0)
		return tl::make_unexpected(crypt->error(rc == -EINVAL ? Errc::NotFound : Errc::Io,
							"no LUKS header on " + device, rc));
	return crypt;
}

/* What libcryptsetup answers when a passphrase opens no key slot. */
bool opensNoSlot(int rc)
{
	return rc == -EPERM || rc == -ENOENT;
}

Errc passphraseErrc(int rc)
{
	return opensNoSlot(rc) ? Errc::PermissionDenied : Errc::Io;
}

/*
 * The signature libblkid finds on the device, "" for none: the last look
 * before a header is written, in the same call (the caller probed it blank,
 * data included, just before).
 */
Result<std::string> signatureOn(const std::string &device)
{
	const CHandle<blkid_struct_probe, blkid_free_probe> probe(
		blkid_new_probe_from_filename(device.c_str()));
	if (!probe)
		return failErrno("cannot probe " + device, errno);
	blkid_probe_enable_superblocks(probe.get(), 1);
	blkid_probe_set_superblocks_flags(probe.get(), BLKID_SUBLKS_TYPE);
	blkid_probe_enable_partitions(probe.get(), 1);
	blkid_probe_set_partitions_flags(probe.get(), BLKID_PARTS_MAGIC);
	switch (blkid_do_safeprobe(probe.get())) {
	case 1:
		return std::string();
	case 0: {
		const char *type = nullptr;
		if (blkid_probe_lookup_value(probe.get(), "TYPE", &type, nullptr) != 0 &&
		    blkid_probe_lookup_value(probe.get(), "PTTYPE", &type, nullptr) != 0)
			type = nullptr;
		return std::string(type != nullptr ? type : "unknown");
	}
	case -2:
		return std::string("more than one");
	default:
		return fail(Errc::Io, "libblkid could not probe " + device);
	}
}

/* The work runs on a thread that may outlive the caller: it owns its own copies. */
template<typename T>
Result<T> onDevice(const std::string &device, LuksLimits limits, const std::string &what,
		   std::function<Result<T>()> work)
{
	return boundedCall<T>(device, limits.device, what, std::move(work));
}

/* onDevice(), with the device's LUKS header loaded for the work. */
template<typename T>
Result<T> onLoaded(const std::string &device, LuksLimits limits, const std::string &what,
		   std::function<Result<T>(const Crypt &)> work)
{
	return onDevice<T>(device, limits, what, [device, work = std::move(work)]() -> Result<T> {
		auto crypt = loadDevice(device);
		if (!crypt)
			return tl::make_unexpected(crypt.error());
		return work(*crypt);
	});
}

std::shared_ptr<const Secret> copyOf(const Secret &secret)
{
	return std::make_shared<const Secret>(secret.view());
}

int findSlot(const Crypt &crypt, const Secret &passphrase)
{
	return crypt_activate_by_passphrase(crypt.get(), nullptr, CRYPT_ANY_SLOT,
					    passphrase.chars(), passphrase.size(), 0);
}

/* Points into `format`: it lives as long as the call. */
crypt_pbkdf_type pbkdfOf(const LuksFormat &format)
{
	crypt_pbkdf_type pbkdf{};
	pbkdf.type = format.pbkdf.c_str();
	pbkdf.hash = format.hash.c_str();
	pbkdf.time_ms = format.pbkdfTimeMs;
	pbkdf.iterations = format.pbkdfIterations;
	if (format.pbkdf != CRYPT_KDF_PBKDF2) {
		pbkdf.max_memory_kb = format.pbkdfMemoryKiB;
		pbkdf.parallel_threads = 4;
	}
	if (format.pbkdfIterations != 0)
		pbkdf.flags = CRYPT_PBKDF_NO_BENCHMARK;
	return pbkdf;
}

} /* namespace */

Result<void> formatLuks(const std::string &device, const LuksFormat &format,
			const Secret &passphrase, LuksLimits limits)
{
	return onDevice<void>(
		device, limits, "formatting LUKS on " + device,
		[device, format, pass = copyOf(passphrase)]() -> Result<void> {
			auto signature = signatureOn(device);
			if (!signature)
				return tl::make_unexpected(signature.error());
			if (!signature->empty())
				return fail(Errc::Conflict, device + " carries a signature (" +
								    *signature +
								    "): never encrypted over");
			auto crypt = initDevice(device);
			if (!crypt)
				return tl::make_unexpected(crypt.error());
			const crypt_pbkdf_type pbkdf = pbkdfOf(format);
			crypt_params_luks2 params{};
			params.pbkdf = &pbkdf;
			if (const int rc =
				    crypt_format(crypt->get(), CRYPT_LUKS2, format.cipher.c_str(),
						 format.cipherMode.c_str(), nullptr, nullptr,
						 format.keyBits / 8, &params);
			    rc < 0)
				return tl::make_unexpected(crypt->error(
					Errc::Io, "formatting LUKS2 on " + device, rc));
			if (const int rc = crypt_keyslot_add_by_volume_key(
				    crypt->get(), CRYPT_ANY_SLOT, nullptr, 0, pass->chars(),
				    pass->size());
			    rc < 0)
				return tl::make_unexpected(crypt->error(
					Errc::Io, "adding the passphrase to " + device, rc));
			return {};
		});
}

Result<LuksHeader> readLuksHeader(const std::string &device, LuksLimits limits)
{
	return onLoaded<LuksHeader>(
		device, limits, "reading the LUKS header of " + device,
		[](const Crypt &crypt) -> Result<LuksHeader> {
			LuksHeader header;
			const char *type = crypt_get_type(crypt.get());
			const char *uuid = crypt_get_uuid(crypt.get());
			const char *cipher = crypt_get_cipher(crypt.get());
			const char *mode = crypt_get_cipher_mode(crypt.get());
			header.version = type != nullptr ? type : "";
			header.uuid = uuid != nullptr ? uuid : "";
			header.cipher = std::string(cipher != nullptr ? cipher : "") + "-" +
					(mode != nullptr ? mode : "");
			const int keyBytes = crypt_get_volume_key_size(crypt.get());
			header.keyBits = static_cast<uint32_t>(keyBytes > 0 ? keyBytes : 0) * 8;
			const int slots = crypt_keyslot_max(header.version.c_str());
			for (int slot = 0; slot < slots; ++slot) {
				const crypt_keyslot_info info =
					crypt_keyslot_status(crypt.get(), slot);
				if (info == CRYPT_SLOT_ACTIVE || info == CRYPT_SLOT_ACTIVE_LAST)
					header.keyslots.push_back(slot);
			}
			return header;
		});
}

Result<int> checkPassphrase(const std::string &device, const Secret &passphrase, LuksLimits limits)
{
	return onLoaded<int>(
		device, limits, "checking a passphrase on " + device,
		[device, pass = copyOf(passphrase)](const Crypt &crypt) -> Result<int> {
			const int slot = findSlot(crypt, *pass);
			if (slot < 0)
				return tl::make_unexpected(crypt.error(
					passphraseErrc(slot),
					"the passphrase opens no key slot of " + device, slot));
			return slot;
		});
}

Result<void> openLuks(const std::string &device, const std::string &name, const Secret &passphrase,
		      bool readOnly, LuksLimits limits)
{
	return onLoaded<void>(
		device, limits, "opening LUKS on " + device + " as " + name,
		[device, name, readOnly,
		 pass = copyOf(passphrase)](const Crypt &crypt) -> Result<void> {
			const uint32_t flags = readOnly ? CRYPT_ACTIVATE_READONLY : 0;
			if (const int rc = crypt_activate_by_passphrase(
				    crypt.get(), name.c_str(), CRYPT_ANY_SLOT, pass->chars(),
				    pass->size(), flags);
			    rc < 0)
				return tl::make_unexpected(crypt.error(
					rc == -EEXIST  ? Errc::Conflict
					: rc == -EBUSY ? Errc::Busy
						       : passphraseErrc(rc),
					"opening " + device + " as /dev/mapper/" + name, rc));
			return {};
		});
}

Result<bool> closeLuks(const std::string &name, LuksLimits limits)
{
	const std::string mapper = "/dev/mapper/" + name;
	return onDevice<bool>(
		mapper, limits, "closing " + mapper, [name, mapper]() -> Result<bool> {
			auto crypt = initByName(name);
			if (!crypt && crypt.error().code == Errc::NotFound)
				return false; /* not open (or no device-mapper: nothing can be) */
			if (!crypt)
				return tl::make_unexpected(crypt.error());
			if (const int rc = crypt_deactivate_by_name(crypt->get(), name.c_str(), 0);
			    rc < 0)
				return tl::make_unexpected(
					crypt->error(rc == -EBUSY ? Errc::Busy : Errc::Io,
						     "closing " + mapper, rc));
			return true;
		});
}

Result<void> resizeLuks(const std::string &name, LuksLimits limits)
{
	const std::string mapper = "/dev/mapper/" + name;
	return onDevice<void>(
		mapper, limits, "growing " + mapper, [name, mapper]() -> Result<void> {
			auto crypt = initByName(name);
			if (!crypt)
				return tl::make_unexpected(crypt.error());
			if (const int rc = crypt_resize(crypt->get(), name.c_str(), 0); rc < 0)
				return tl::make_unexpected(
					crypt->error(Errc::Io, "growing " + mapper, rc));
			return {};
		});
}

Result<int> addPassphrase(const std::string &device, const Secret &existing, const Secret &added,
			  const LuksFormat &format, LuksLimits limits)
{
	return onLoaded<int>(
		device, limits, "adding a passphrase to " + device,
		[device, format, old = copyOf(existing),
		 add = copyOf(added)](const Crypt &crypt) -> Result<int> {
			const int found = findSlot(crypt, *add);
			if (found >= 0)
				return found; /* already there: a step that ran before */
			if (!opensNoSlot(found))
				return tl::make_unexpected(crypt.error(
					Errc::Io, "checking the new passphrase on " + device,
					found));
			const crypt_pbkdf_type pbkdf = pbkdfOf(format);
			if (const int rc = crypt_set_pbkdf_type(crypt.get(), &pbkdf); rc < 0)
				return tl::make_unexpected(
					crypt.error(Errc::InvalidArgument,
						    "the key derivation for " + device, rc));
			const int slot = crypt_keyslot_add_by_passphrase(
				crypt.get(), CRYPT_ANY_SLOT, old->chars(), old->size(),
				add->chars(), add->size());
			if (slot < 0)
				return tl::make_unexpected(
					crypt.error(passphraseErrc(slot),
						    "adding a passphrase to " + device, slot));
			return slot;
		});
}

Result<void> removePassphrase(const std::string &device, const Secret &kept, const Secret &removed,
			      LuksLimits limits)
{
	return onLoaded<void>(
		device, limits, "removing a passphrase from " + device,
		[device, keep = copyOf(kept),
		 drop = copyOf(removed)](const Crypt &crypt) -> Result<void> {
			const int keptSlot = findSlot(crypt, *keep);
			if (keptSlot < 0)
				return tl::make_unexpected(
					crypt.error(passphraseErrc(keptSlot),
						    "the passphrase to keep opens no key slot of " +
							    device + "; nothing removed",
						    keptSlot));
			const int slot = findSlot(crypt, *drop);
			if (opensNoSlot(slot))
				return {}; /* gone already */
			if (slot <
			    0) /* out of memory for argon2, an unreadable slot: not known gone */
				return tl::make_unexpected(crypt.error(
					Errc::Io, "checking the passphrase to remove on " + device,
					slot));
			if (slot == keptSlot)
				return fail(Errc::Conflict, "both passphrases open key slot " +
								    std::to_string(slot) + " of " +
								    device + "; nothing removed");
			if (const int rc = crypt_keyslot_destroy(crypt.get(), slot); rc < 0)
				return tl::make_unexpected(
					crypt.error(Errc::Io,
						    "removing key slot " + std::to_string(slot) +
							    " of " + device,
						    rc));
			return {};
		});
}

namespace {

constexpr std::string_view RotationTokenType = "rbd-volume-rotation";
/* LUKS2's most tokens; crypt_token_status() answers INVALID past the last. */
constexpr int MaxTokens = 32;

/* The token of ours and the slot it records; token -1 when there is none. */
struct RotationToken {
	int token = -1;
	int slot = -1;
};

/* The digits after "retiring" in a token's JSON, however the library spaced it. */
int slotIn(std::string_view json)
{
	const size_t key = json.find("\"retiring\"");
	if (key == std::string_view::npos)
		return -1;
	size_t at = json.find_first_of("0123456789", key + 10);
	int slot = 0;
	bool digits = false;
	for (; at < json.size() && json[at] >= '0' && json[at] <= '9' && slot < 1000; ++at) {
		slot = slot * 10 + (json[at] - '0');
		digits = true;
	}
	return digits ? slot : -1;
}

Result<RotationToken> findRotationToken(const Crypt &crypt, const std::string &device)
{
	for (int token = 0; token < MaxTokens; ++token) {
		const char *type = nullptr;
		const crypt_token_info info = crypt_token_status(crypt.get(), token, &type);
		if (info == CRYPT_TOKEN_INVALID)
			break;
		if (info == CRYPT_TOKEN_INACTIVE || type == nullptr || type != RotationTokenType)
			continue;
		const char *json = nullptr;
		if (const int rc = crypt_token_json_get(crypt.get(), token, &json); rc < 0)
			return tl::make_unexpected(crypt.error(
				Errc::Io,
				"reading token " + std::to_string(token) + " of " + device, rc));
		const int slot = slotIn(json == nullptr ? "" : json);
		if (slot < 0)
			return fail(Errc::Io, "token " + std::to_string(token) + " of " + device +
						      " records no retiring key slot");
		return RotationToken{ token, slot };
	}
	return RotationToken{};
}

} /* namespace */

Result<std::optional<int>> retiringKeySlot(const std::string &device, LuksLimits limits)
{
	return onLoaded<std::optional<int>>(
		device, limits, "reading the key rotation of " + device,
		[device](const Crypt &crypt) -> Result<std::optional<int>> {
			auto found = findRotationToken(crypt, device);
			if (!found)
				return tl::make_unexpected(found.error());
			if (found->token < 0)
				return std::optional<int>();
			return std::optional<int>(found->slot);
		});
}

Result<void> markKeySlotRetiring(const std::string &device, int slot, LuksLimits limits)
{
	return onLoaded<void>(
		device, limits, "recording the key rotation of " + device,
		[device, slot](const Crypt &crypt) -> Result<void> {
			auto found = findRotationToken(crypt, device);
			if (!found)
				return tl::make_unexpected(found.error());
			const std::string json = R"({"type":")" + std::string(RotationTokenType) +
						 R"(","keyslots":[],"retiring":")" +
						 std::to_string(slot) + R"("})";
			const int token = found->token < 0 ? CRYPT_ANY_TOKEN : found->token;
			if (const int rc = crypt_token_json_set(crypt.get(), token, json.c_str());
			    rc < 0)
				return tl::make_unexpected(crypt.error(
					Errc::Io, "recording the key rotation of " + device, rc));
			return {};
		});
}

Result<void> retireKeySlot(const std::string &device, int slot, const Secret &kept,
			   LuksLimits limits)
{
	return onLoaded<void>(
		device, limits, "retiring key slot " + std::to_string(slot) + " of " + device,
		[device, slot, keep = copyOf(kept)](const Crypt &crypt) -> Result<void> {
			const int keptSlot = findSlot(crypt, *keep);
			if (keptSlot < 0)
				return tl::make_unexpected(
					crypt.error(passphraseErrc(keptSlot),
						    "the key to keep opens no key slot of " +
							    device + "; nothing removed",
						    keptSlot));
			if (keptSlot == slot)
				return fail(Errc::Conflict, "the key to keep opens key slot " +
								    std::to_string(slot) + " of " +
								    device +
								    ", the one to retire; nothing "
								    "removed");
			const crypt_keyslot_info status = crypt_keyslot_status(crypt.get(), slot);
			if (status != CRYPT_SLOT_INACTIVE && status != CRYPT_SLOT_INVALID) {
				if (const int rc = crypt_keyslot_destroy(crypt.get(), slot); rc < 0)
					return tl::make_unexpected(crypt.error(
						Errc::Io,
						"removing key slot " + std::to_string(slot) +
							" of " + device,
						rc));
			}
			auto found = findRotationToken(crypt, device);
			if (!found)
				return tl::make_unexpected(found.error());
			if (found->token >= 0) {
				if (const int rc = crypt_token_json_set(crypt.get(), found->token,
									nullptr);
				    rc < 0)
					return tl::make_unexpected(crypt.error(
						Errc::Io,
						"dropping the key rotation record of " + device,
						rc));
			}
			return {};
		});
}

} /* namespace rbdvolume */
