/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Secret: bytes that must never outlive their use (a passphrase, a data
 * key). One heap buffer of a fixed size, wiped when it is dropped; moving
 * hands the buffer over, never copies it, and there is no copy at all. Its
 * bytes go to the library that needs them and nowhere else: no formatting,
 * no logging, no comparison that stops at the first difference.
 */
#pragma once

#include <cstddef>
#include <memory>
#include <string_view>

namespace rbdvolume {

class Secret
{
public:
	Secret() = default;
	explicit Secret(size_t size);
	explicit Secret(std::string_view bytes);
	~Secret();
	Secret(Secret &&other) noexcept;
	Secret &operator=(Secret &&other) noexcept;
	Secret(const Secret &) = delete;
	Secret &operator=(const Secret &) = delete;

	unsigned char *data() { return bytes_.get(); }
	const unsigned char *data() const { return bytes_.get(); }
	const char *chars() const;
	size_t size() const { return size_; }
	bool empty() const { return size_ == 0; }
	std::string_view view() const { return { chars(), size_ }; }
	/* Keeps the first `size` bytes and wipes the rest (a decoder's slack). */
	void shrink(size_t size);

	/* In constant time over the length of both. */
	bool equals(const Secret &other) const;

private:
	void wipe();

	std::unique_ptr<unsigned char[]> bytes_;
	size_t size_ = 0;
	size_t capacity_ = 0;
};

} /* namespace rbdvolume */
