/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "common/secret.hpp"

#include <algorithm>
#include <cstring>
#include <utility>

namespace rbdvolume {

Secret::Secret(size_t size)
	: bytes_(std::make_unique<unsigned char[]>(size)), size_(size), capacity_(size)
{
}

Secret::Secret(std::string_view bytes) : Secret(bytes.size())
{
	std::copy(bytes.begin(), bytes.end(), bytes_.get());
}

Secret::~Secret()
{
	wipe();
}

Secret::Secret(Secret &&other) noexcept
	: bytes_(std::move(other.bytes_)), size_(std::exchange(other.size_, 0)),
	  capacity_(std::exchange(other.capacity_, 0))
{
}

Secret &Secret::operator=(Secret &&other) noexcept
{
	if (this != &other) {
		wipe();
		bytes_ = std::move(other.bytes_);
		size_ = std::exchange(other.size_, 0);
		capacity_ = std::exchange(other.capacity_, 0);
	}
	return *this;
}

const char *Secret::chars() const
{
	/* The buffer holds bytes; libraries take them as char. */
	return reinterpret_cast<const char *>(
		bytes_.get()); // NOLINT(cppcoreguidelines-pro-type-reinterpret-cast)
}

void Secret::shrink(size_t size)
{
	if (size >= size_)
		return;
	explicit_bzero(bytes_.get() + size, size_ - size);
	size_ = size;
}

bool Secret::equals(const Secret &other) const
{
	const size_t longest = std::max(size_, other.size_);
	unsigned char differ = size_ == other.size_ ? 0 : 1;
	for (size_t i = 0; i < longest; ++i) {
		const unsigned char a = i < size_ ? bytes_[i] : 0;
		const unsigned char b = i < other.size_ ? other.bytes_[i] : 0;
		differ |= static_cast<unsigned char>(a ^ b);
	}
	return differ == 0;
}

void Secret::wipe()
{
	if (bytes_)
		explicit_bzero(bytes_.get(), capacity_);
	bytes_.reset();
	size_ = 0;
	capacity_ = 0;
}

} /* namespace rbdvolume */
