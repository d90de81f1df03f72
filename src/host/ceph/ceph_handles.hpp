/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* unique_ptr owners for the librados and librbd C handles. */
#pragma once

#include <memory>
#include <type_traits>

#include <rados/librados.h>
#include <rbd/librbd.h>

namespace rbdvolume {

/* The handles are all void *, so unique_ptr<void, Deleter> holds them as they are. */
struct RadosShutdown {
	void operator()(rados_t cluster) const { rados_shutdown(cluster); }
};
struct IoCtxDestroy {
	void operator()(rados_ioctx_t ioctx) const { rados_ioctx_destroy(ioctx); }
};
struct ImageClose {
	/* rbd_close fails only to flush cached writes, and we write no data. */
	void operator()(rbd_image_t image) const { (void)rbd_close(image); }
};
struct ImageOptionsDestroy {
	void operator()(rbd_image_options_t options) const { rbd_image_options_destroy(options); }
};

using RadosPtr = std::unique_ptr<std::remove_pointer_t<rados_t>, RadosShutdown>;
using IoCtxPtr = std::unique_ptr<std::remove_pointer_t<rados_ioctx_t>, IoCtxDestroy>;
using ImagePtr = std::unique_ptr<std::remove_pointer_t<rbd_image_t>, ImageClose>;
using ImageOptionsPtr =
	std::unique_ptr<std::remove_pointer_t<rbd_image_options_t>, ImageOptionsDestroy>;

} /* namespace rbdvolume */
