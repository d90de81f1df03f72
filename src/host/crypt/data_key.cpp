/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "host/crypt/data_key.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "common/base64.hpp"

#include <openssl/evp.h>
#include <openssl/rand.h>

namespace rbdvolume {

namespace {

constexpr size_t DataKeyBytes = 20; /* ceph-csi's encryptionPassphraseSize */
constexpr size_t KekBytes = 32;	    /* AES-256 */
constexpr size_t NonceBytes = 12;   /* Go's standard GCM nonce */
constexpr size_t TagBytes = 16;
constexpr uint64_t ScryptN = 32768, ScryptR = 8, ScryptP = 1;
/* 128·r·(N+2) + 128·r·p bytes, just above OpenSSL's 32 MiB default bound. */
constexpr uint64_t ScryptMaxMemory = 64ULL << 20;

constexpr std::string_view Base64Std =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
constexpr std::string_view Base64Url =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

size_t base64Size(size_t bytes)
{
	return (bytes + 2) / 3 * 4;
}

/* With padding, into `out` (base64Size(size) bytes). */
void base64Encode(const unsigned char *in, size_t size, std::string_view alphabet,
		  unsigned char *out)
{
	for (size_t i = 0; i < size; i += 3) {
		const auto rest = static_cast<uint32_t>(size - i);
		uint32_t group = static_cast<uint32_t>(in[i]) << 16;
		if (rest > 1)
			group |= static_cast<uint32_t>(in[i + 1]) << 8;
		if (rest > 2)
			group |= in[i + 2];
		*out++ = static_cast<unsigned char>(alphabet[(group >> 18) & 63]);
		*out++ = static_cast<unsigned char>(alphabet[(group >> 12) & 63]);
		*out++ = rest > 1 ? static_cast<unsigned char>(alphabet[(group >> 6) & 63]) : '=';
		*out++ = rest > 2 ? static_cast<unsigned char>(alphabet[group & 63]) : '=';
	}
}

/* The two string members of {"dek":"…","nonce":"…"}, in either order; nothing else. */
struct StoredKey {
	std::string_view dek;
	std::string_view nonce;
};

class JsonCursor
{
public:
	explicit JsonCursor(std::string_view text) : text_(text) {}
	bool take(char c)
	{
		skipSpace();
		if (at_ >= text_.size() || text_[at_] != c)
			return false;
		++at_;
		return true;
	}
	/* A string without escapes: base64 and our key names need none. */
	std::optional<std::string_view> string()
	{
		if (!take('"'))
			return std::nullopt;
		const size_t end = text_.find_first_of("\"\\", at_);
		if (end == std::string_view::npos || text_[end] != '"')
			return std::nullopt;
		const std::string_view value = text_.substr(at_, end - at_);
		at_ = end + 1;
		return value;
	}
	bool atEnd()
	{
		skipSpace();
		return at_ == text_.size();
	}

private:
	void skipSpace()
	{
		while (at_ < text_.size() && (text_[at_] == ' ' || text_[at_] == '\t' ||
					      text_[at_] == '\n' || text_[at_] == '\r'))
			++at_;
	}
	std::string_view text_;
	size_t at_ = 0;
};

std::optional<StoredKey> parseStored(std::string_view text)
{
	JsonCursor in(text);
	StoredKey key;
	if (!in.take('{'))
		return std::nullopt;
	for (int member = 0; member < 2; ++member) {
		if (member == 1 && !in.take(','))
			return std::nullopt;
		const auto name = in.string();
		if (!name || !in.take(':'))
			return std::nullopt;
		const auto value = in.string();
		if (!value)
			return std::nullopt;
		std::string_view &slot = *name == "dek" ? key.dek : key.nonce;
		if ((*name != "dek" && *name != "nonce") || !slot.empty() || value->empty())
			return std::nullopt;
		slot = *value;
	}
	if (!in.take('}') || !in.atEnd())
		return std::nullopt;
	return key;
}

Result<Secret> keyEncryptionKey(const Secret &passphrase, std::string_view volumeId)
{
	Secret kek(KekBytes);
	if (EVP_PBE_scrypt(
		    passphrase.chars(), passphrase.size(),
		    reinterpret_cast<const unsigned char *>(
			    volumeId.data()), // NOLINT(cppcoreguidelines-pro-type-reinterpret-cast)
		    volumeId.size(), ScryptN, ScryptR, ScryptP, ScryptMaxMemory, kek.data(),
		    kek.size()) != 1)
		return fail(Errc::Internal, "scrypt failed (OpenSSL)");
	return kek;
}

using CipherContext = std::unique_ptr<EVP_CIPHER_CTX, decltype(&EVP_CIPHER_CTX_free)>;

CipherContext newContext()
{
	return { EVP_CIPHER_CTX_new(), &EVP_CIPHER_CTX_free };
}

int asInt(size_t size)
{
	return static_cast<int>(size);
}

} /* namespace */

Result<Secret> newDataKey()
{
	Secret raw(DataKeyBytes);
	if (RAND_bytes(raw.data(), asInt(raw.size())) != 1)
		return fail(Errc::Internal, "no random bytes for a data key (OpenSSL RAND_bytes)");
	Secret key(base64Size(raw.size()));
	base64Encode(raw.data(), raw.size(), Base64Url, key.data());
	return key;
}

Result<std::string> wrapDataKey(const Secret &dataKey, const Secret &passphrase,
				std::string_view volumeId)
{
	auto kek = keyEncryptionKey(passphrase, volumeId);
	if (!kek)
		return tl::make_unexpected(kek.error());
	std::array<unsigned char, NonceBytes> nonce{};
	if (RAND_bytes(nonce.data(), asInt(nonce.size())) != 1)
		return fail(Errc::Internal, "no random bytes for a nonce (OpenSSL RAND_bytes)");

	std::vector<unsigned char> sealed(dataKey.size() + TagBytes);
	const CipherContext ctx = newContext();
	int written = 0;
	int final = 0;
	if (!ctx ||
	    EVP_EncryptInit_ex(ctx.get(), EVP_aes_256_gcm(), nullptr, kek->data(), nonce.data()) !=
		    1 ||
	    EVP_EncryptUpdate(ctx.get(), sealed.data(), &written, dataKey.data(),
			      asInt(dataKey.size())) != 1 ||
	    EVP_EncryptFinal_ex(ctx.get(), sealed.data() + written, &final) != 1 ||
	    EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_GET_TAG, asInt(TagBytes),
				sealed.data() + dataKey.size()) != 1)
		return fail(Errc::Internal, "AES-256-GCM failed (OpenSSL)");

	std::string dek(base64Size(sealed.size()), '\0');
	std::string nonceText(base64Size(nonce.size()), '\0');
	base64Encode(sealed.data(), sealed.size(), Base64Std,
		     reinterpret_cast<unsigned char *>(
			     dek.data())); // NOLINT(cppcoreguidelines-pro-type-reinterpret-cast)
	base64Encode(
		nonce.data(), nonce.size(), Base64Std,
		reinterpret_cast<unsigned char *>(
			nonceText.data())); // NOLINT(cppcoreguidelines-pro-type-reinterpret-cast)
	return R"({"dek":")" + dek + R"(","nonce":")" + nonceText + R"("})";
}

Result<Secret> unwrapDataKey(std::string_view stored, const Secret &passphrase,
			     std::string_view volumeId)
{
	const std::string notOurs = "the stored data key is not ceph-csi's wrapped form "
				    R"({"dek":"<base64>","nonce":"<base64>"}: )";
	/* ceph-csi's is 94 bytes; a bound before any parsing. */
	constexpr size_t MaxStoredBytes = 4096;
	if (stored.size() > MaxStoredBytes)
		return fail(Errc::InvalidArgument,
			    notOurs + "it is " + std::to_string(stored.size()) + " bytes long");
	const auto parsed = parseStored(stored);
	if (!parsed)
		return fail(Errc::InvalidArgument, notOurs + "it does not parse as that JSON");
	const auto sealed = base64Decode(parsed->dek);
	const auto nonce = base64Decode(parsed->nonce);
	if (!sealed || !nonce)
		return fail(Errc::InvalidArgument, notOurs + "a member is not standard base64");
	if (nonce->size() != NonceBytes)
		return fail(Errc::InvalidArgument,
			    notOurs + "expected a nonce of " + std::to_string(NonceBytes) +
				    " bytes, found " + std::to_string(nonce->size()));
	if (sealed->size() <= TagBytes)
		return fail(Errc::InvalidArgument,
			    notOurs + "the wrapped key is shorter than its tag");
	auto kek = keyEncryptionKey(passphrase, volumeId);
	if (!kek)
		return tl::make_unexpected(kek.error());

	const size_t size = sealed->size() - TagBytes;
	Secret key(size);
	std::array<unsigned char, TagBytes> tag{};
	std::copy(sealed->end() - TagBytes, sealed->end(), tag.begin());
	const CipherContext ctx = newContext();
	int written = 0;
	int final = 0;
	if (!ctx ||
	    EVP_DecryptInit_ex(ctx.get(), EVP_aes_256_gcm(), nullptr, kek->data(), nonce->data()) !=
		    1 ||
	    EVP_DecryptUpdate(ctx.get(), key.data(), &written, sealed->data(), asInt(size)) != 1 ||
	    EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_TAG, asInt(TagBytes), tag.data()) != 1)
		return fail(Errc::Internal, "AES-256-GCM failed (OpenSSL)");
	if (EVP_DecryptFinal_ex(ctx.get(), key.data() + written, &final) != 1 ||
	    static_cast<size_t>(written) + static_cast<size_t>(final) != size)
		return fail(Errc::PermissionDenied,
			    "the passphrase does not unwrap the volume's data key (a wrong "
			    "passphrase, or a key wrapped for another volume ID than '" +
				    std::string(volumeId) + "')");
	return key;
}

} /* namespace rbdvolume */
