/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The BlockProbe port over libblkid's safe probe: superblocks AND partitions. */
#pragma once

#include "engine/ports.hpp"

namespace rbdvolume {

/*
 * Only a probe that finds nothing in both chains is Blank. A filesystem, a
 * partition table (dos, gpt), LUKS, LVM, swap or RAID member is a Signature
 * named by its TYPE or PTTYPE; several at once is Ambivalent.
 */
class BlkidBlockProbe : public BlockProbe
{
public:
	ProbeResult probe(const std::string &device) override;
	Result<uint64_t> deviceSize(const std::string &device) override;
};

} /* namespace rbdvolume */
