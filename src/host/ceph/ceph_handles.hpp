/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Owning pointers for the librados and librbd C handles (all void *, held as they are). */
#pragma once

#include <type_traits>

#include <rados/librados.h>
#include <rbd/librbd.h>

#include "common/c_handle.hpp"

namespace rbdvolume {

using RadosPtr = CHandle<std::remove_pointer_t<rados_t>, rados_shutdown>;
using IoCtxPtr = CHandle<std::remove_pointer_t<rados_ioctx_t>, rados_ioctx_destroy>;
/* rbd_close fails only to flush cached writes, and we write no data. */
using ImagePtr = CHandle<std::remove_pointer_t<rbd_image_t>, rbd_close>;
using ImageOptionsPtr =
	CHandle<std::remove_pointer_t<rbd_image_options_t>, rbd_image_options_destroy>;

} /* namespace rbdvolume */
