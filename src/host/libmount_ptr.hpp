/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Owning pointers for libmount objects. */
#pragma once

#include <libmount/libmount.h>

#include "common/c_handle.hpp"

namespace rbdvolume {

using MntTablePtr = CHandle<libmnt_table, mnt_unref_table>;
using MntIterPtr = CHandle<libmnt_iter, mnt_free_iter>;
using MntContextPtr = CHandle<libmnt_context, mnt_free_context>;
using MntFsPtr = CHandle<libmnt_fs, mnt_unref_fs>;
using MntUpdatePtr = CHandle<libmnt_update, mnt_free_update>;
using MntMonitorPtr = CHandle<libmnt_monitor, mnt_unref_monitor>;

} /* namespace rbdvolume */
