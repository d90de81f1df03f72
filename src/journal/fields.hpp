/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The names of the journal fields every binary writes, each spelled once:
 * operators query them (`journalctl RBDV_VOLUME=data RBDV_STEP=format`) and
 * docs/operations.md lists them, so a name never changes.
 */
#pragma once

namespace rbdvolume::log::field {

inline constexpr const char *Volume = "RBDV_VOLUME";	 /* the volume's name */
inline constexpr const char *Step = "RBDV_STEP";	 /* map, format, mount, ... */
inline constexpr const char *StepResult = "RBDV_RESULT"; /* changed, unchanged, failed, ... */
inline constexpr const char *Image = "RBDV_IMAGE";	 /* POOL[/NAMESPACE]/IMAGE[@SNAP] */
inline constexpr const char *Driver = "RBDV_DRIVER";
inline constexpr const char *Device = "RBDV_DEVICE";
inline constexpr const char *Detail = "RBDV_DETAIL";
inline constexpr const char *DurationUsec = "RBDV_DURATION_USEC";
inline constexpr const char *Phase = "RBDV_PHASE";
inline constexpr const char *Condition = "RBDV_CONDITION";
inline constexpr const char *CsiRpc = "RBDV_CSI_RPC";
inline constexpr const char *CsiVolumeId = "RBDV_CSI_VOLUME_ID";
inline constexpr const char *CsiCode = "RBDV_CSI_CODE";

} /* namespace rbdvolume::log::field */
