/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Volume specs and fake sysfs/proc entries for the driver tests. */
#pragma once

#include <string>

#include "config/volume_spec.hpp"
#include "host/mapping_discovery.hpp"
#include "temp_dir.hpp"

namespace rbdvolume::testing {

/* rbd/data as client.admin with the spec defaults; volume "data". */
inline VolumeSpec volumeSpec(std::string name = "data")
{
	VolumeSpec spec;
	spec.name = std::move(name);
	spec.image.pool = "rbd";
	spec.image.name = "data";
	return spec;
}

inline SystemRoots rootsIn(const TempDir &dir)
{
	return SystemRoots{ dir.path() + "/sys", dir.path() + "/proc" };
}

/* /sys/bus/rbd/devices/ID as the kernel shows a krbd mapping. */
inline void addKrbd(const TempDir &dir, const std::string &id, const std::string &pool,
		    const std::string &ns, const std::string &image, const std::string &snap = "-")
{
	const std::string base = "sys/bus/rbd/devices/" + id + "/";
	dir.write(base + "pool", pool + "\n");
	dir.write(base + "pool_ns", ns + "\n");
	dir.write(base + "name", image + "\n");
	dir.write(base + "current_snap", snap + "\n");
	dir.write("sys/block/rbd" + id + "/ro", "0\n");
}

/* /sys/block/nbdN: `pid` "" leaves it unconnected, `backend` "-" leaves the attribute out. */
inline void addNbd(const TempDir &dir, const std::string &name, const std::string &pid,
		   const std::string &backend)
{
	dir.write("sys/block/" + name + "/ro", "0\n");
	if (!pid.empty())
		dir.write("sys/block/" + name + "/pid", pid + "\n");
	if (backend != "-")
		dir.write("sys/block/" + name + "/backend", backend + "\n");
}

/* /proc/PID/cmdline of an rbd-nbd serving `image` ("map ... IMAGE"). */
inline void addRbdNbdProcess(const TempDir &dir, const std::string &pid, const std::string &image)
{
	using namespace std::string_literals;
	dir.write("proc/" + pid + "/cmdline",
		  "/usr/bin/rbd-nbd\0-d\0--id\0admin\0map\0--try-netlink\0--cookie\0c\0"s + image +
			  "\0"s);
}

} /* namespace rbdvolume::testing */
