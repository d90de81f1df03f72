/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* unique_ptr owners for libmount objects. */
#pragma once

#include <memory>

#include <libmount/libmount.h>

namespace rbdvolume {

struct MntTableFree {
	void operator()(libmnt_table *table) const { mnt_unref_table(table); }
};
struct MntIterFree {
	void operator()(libmnt_iter *iter) const { mnt_free_iter(iter); }
};
struct MntContextFree {
	void operator()(libmnt_context *context) const { mnt_free_context(context); }
};

using MntTablePtr = std::unique_ptr<libmnt_table, MntTableFree>;
using MntIterPtr = std::unique_ptr<libmnt_iter, MntIterFree>;
using MntContextPtr = std::unique_ptr<libmnt_context, MntContextFree>;

} /* namespace rbdvolume */
