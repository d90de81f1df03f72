/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * CHandle<T, Release>: a C library's handle (sd-bus, libmount, libblkid,
 * librados, librbd) owned by a unique_ptr and let go by the library's own
 * function, so no handle is released by hand on some paths and forgotten
 * on others. `T` may be void for the libraries whose handles are void *.
 *
 *   using MntTablePtr = CHandle<libmnt_table, mnt_unref_table>;
 */
#pragma once

#include <cstdlib>
#include <memory>

namespace rbdvolume {

template<auto Release> struct CRelease {
	template<typename T> void operator()(T *handle) const { (void)Release(handle); }
};

template<typename T, auto Release> using CHandle = std::unique_ptr<T, CRelease<Release>>;

/* What a C library returned from malloc() for us to free() (sd_bus_path_encode, ...). */
inline void freeMalloced(void *memory)
{
	std::free(memory); /* NOLINT(cppcoreguidelines-no-malloc): the library allocated it */
}
template<typename T> using Malloced = CHandle<T, freeMalloced>;

} /* namespace rbdvolume */
