/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* diff(): which gaps and conflicts each observed state yields, as a table. */
#include "engine/diff.hpp"

#include <gtest/gtest.h>

#include "printers.hpp"
#include "spec_builder.hpp"

namespace rbdvolume::testing {

namespace {

const std::string Staging = "/run/rbd-volume/staging/vol";

/* An observed volume, written the way one reads it. */
class Seen
{
public:
	Seen &mapped(const std::string &device, bool readOnly = false)
	{
		volume_.mapping = MappedImage{ "rbd",	     "",       "vol", "", device,
					       Driver::Krbd, readOnly, {},    {}, {} };
		volume_.owned.mappedDevice = device;
		volume_.probe = ProbeResult{ ProbeKind::Signature, "ext4" };
		return *this;
	}
	/* The mapping's server died (a killed rbd-fuse): the device fails all I/O. */
	Seen &lost()
	{
		volume_.mapping->fault = "rbd-fuse stopped serving its image";
		return *this;
	}
	/* Its requests get no answer: the cluster is away. */
	Seen &stalled()
	{
		volume_.mapping->stall = "no answer from the cluster since 10:02:03";
		return *this;
	}
	Seen &mappedForeign(const std::string &device)
	{
		mapped(device);
		volume_.owned.mappedDevice.clear();
		return *this;
	}
	Seen &probe(ProbeKind kind, std::string type = {})
	{
		volume_.probe = ProbeResult{ kind, std::move(type) };
		return *this;
	}
	Seen &formatted()
	{
		volume_.owned.formatted = true;
		return *this;
	}
	Seen &sized(uint64_t device, uint64_t filesystem)
	{
		volume_.deviceBytes = device;
		volume_.owned.sizedBytes = filesystem;
		return *this;
	}
	Seen &staged(const std::string &device, bool ours = true, std::string fsType = "ext4",
		     bool readOnly = false)
	{
		volume_.staging =
			ObservedMount{ Staging, device, std::move(fsType), readOnly, ours };
		volume_.owned.staged = ours;
		return *this;
	}
	Seen &fsErrors()
	{
		volume_.fsErrors = "ext4 on /dev/rbd0 recorded 2 errors since its last check";
		return *this;
	}
	Seen &poolFull()
	{
		volume_.poolFull = "the pool 'rbd' is full: its quota of 64 MiB is reached";
		return *this;
	}
	Seen &target(const std::string &path, const std::string &device, bool ours = true,
		     bool readOnly = false, std::string fsType = "ext4")
	{
		volume_.targets.push_back(
			ObservedMount{ path, device, std::move(fsType), readOnly, ours });
		if (ours)
			volume_.owned.publishedTargets.push_back(path);
		return *this;
	}
	Seen &covered(const std::string &path, const std::string &device)
	{
		volume_.covered.push_back(ObservedMount{ path, device, "ext4", false, true });
		return *this;
	}
	ObservedVolume get() const { return volume_; }

private:
	ObservedVolume volume_;
};

using ConflictKey = std::pair<ConflictKind, std::string>;

struct Row {
	const char *name;
	VolumeSpec spec;
	Intent intent;
	ObservedVolume seen;
	std::vector<Gap> gaps;
	std::vector<ConflictKey> conflicts;
};

SpecBuilder vol()
{
	SpecBuilder builder("vol");
	builder.target("/srv/a");
	return builder;
}

Gap gap(GapKind kind, std::string subject = {})
{
	return Gap{ kind, std::move(subject) };
}

std::vector<Row> rows()
{
	const Intent up = Intent::Up;
	const Intent down = Intent::Down;
	const auto clash = [](ConflictKind kind, std::string subject) {
		return ConflictKey{ kind, std::move(subject) };
	};
	using K = ConflictKind;
	using G = GapKind;
	return {
		{ "fresh",
		  vol().build(),
		  up,
		  Seen().get(),
		  { gap(G::NotMapped), gap(G::Blank), gap(G::GrowOffline),
		    gap(G::NotStaged, Staging), gap(G::NotPublished, "/srv/a") },
		  {} },
		{ "fresh, formatted by us before: no format",
		  vol().build(),
		  up,
		  Seen().formatted().get(),
		  { gap(G::NotMapped), gap(G::GrowOffline), gap(G::NotStaged, Staging),
		    gap(G::NotPublished, "/srv/a") },
		  {} },
		{ "fresh, read-only: no format",
		  vol().readOnly().build(),
		  up,
		  Seen().get(),
		  { gap(G::NotMapped), gap(G::NotStaged, Staging), gap(G::NotPublished, "/srv/a") },
		  {} },
		{ "fresh, format = never",
		  vol().format(FormatPolicy::Never).build(),
		  up,
		  Seen().get(),
		  { gap(G::NotMapped), gap(G::GrowOffline), gap(G::NotStaged, Staging),
		    gap(G::NotPublished, "/srv/a") },
		  {} },
		{ "fresh, block mode",
		  vol().block().build(),
		  up,
		  Seen().get(),
		  { gap(G::NotMapped), gap(G::NotStaged, Staging), gap(G::NotPublished, "/srv/a") },
		  {} },
		{ "mapped blank",
		  vol().build(),
		  up,
		  Seen().mapped("/dev/rbd0").probe(ProbeKind::Blank).get(),
		  { gap(G::Blank, "/dev/rbd0"), gap(G::NotStaged, Staging),
		    gap(G::NotPublished, "/srv/a") },
		  {} },
		{ "converged",
		  vol().build(),
		  up,
		  Seen().mapped("/dev/rbd0")
			  .staged("/dev/rbd0")
			  .target("/srv/a", "/dev/rbd0")
			  .get(),
		  {},
		  {} },
		{ "converged, block mode",
		  vol().block().build(),
		  up,
		  Seen().mapped("/dev/rbd0")
			  .probe(ProbeKind::Unprobed)
			  .staged("/dev/rbd0", true, "devtmpfs")
			  .target("/srv/a", "/dev/rbd0", true, false, "devtmpfs")
			  .get(),
		  {},
		  {} },
		{ "converged, device as large as the filesystem",
		  vol().build(),
		  up,
		  Seen().mapped("/dev/rbd0")
			  .staged("/dev/rbd0")
			  .target("/srv/a", "/dev/rbd0")
			  .sized(uint64_t{ 1 } << 30, uint64_t{ 1 } << 30)
			  .get(),
		  {},
		  {} },
		{ "staged, the device grew: grow online",
		  vol().build(),
		  up,
		  Seen().mapped("/dev/rbd0")
			  .staged("/dev/rbd0")
			  .target("/srv/a", "/dev/rbd0")
			  .sized(uint64_t{ 2 } << 30, uint64_t{ 1 } << 30)
			  .get(),
		  { gap(G::GrowOnline, Staging) },
		  {} },
		{ "staged, the device grew, grow = never",
		  vol().grow(GrowPolicy::Never).build(),
		  up,
		  Seen().mapped("/dev/rbd0")
			  .staged("/dev/rbd0")
			  .target("/srv/a", "/dev/rbd0")
			  .sized(uint64_t{ 2 } << 30, uint64_t{ 1 } << 30)
			  .get(),
		  {},
		  {} },
		{ "fresh xfs grows online, after publishing",
		  vol().fsType(FsType::Xfs).build(),
		  up,
		  Seen().get(),
		  { gap(G::NotMapped), gap(G::Blank), gap(G::NotStaged, Staging),
		    gap(G::NotPublished, "/srv/a"), gap(G::GrowOnline, Staging) },
		  {} },
		{ "staging lost, binds kept",
		  vol().build(),
		  up,
		  Seen().mapped("/dev/rbd0").target("/srv/a", "/dev/rbd0").get(),
		  { gap(G::NotStaged, Staging) },
		  {} },
		{ "staging lost while the image grew: grow offline, then mount",
		  vol().build(),
		  up,
		  Seen().mapped("/dev/rbd0")
			  .target("/srv/a", "/dev/rbd0")
			  .sized(uint64_t{ 2 } << 30, uint64_t{ 1 } << 30)
			  .get(),
		  { gap(G::GrowOffline, "/dev/rbd0"), gap(G::NotStaged, Staging) },
		  {} },
		{ "grown by less than the slack: nothing to do",
		  vol().build(),
		  up,
		  Seen().mapped("/dev/rbd0")
			  .target("/srv/a", "/dev/rbd0")
			  .sized((uint64_t{ 1 } << 30) + 4096, uint64_t{ 1 } << 30)
			  .get(),
		  { gap(G::NotStaged, Staging) },
		  {} },
		{ "foreign filesystem",
		  vol().build(),
		  up,
		  Seen().mapped("/dev/rbd0").probe(ProbeKind::Signature, "xfs").get(),
		  {},
		  { clash(K::ForeignSignature, "/dev/rbd0") } },
		{ "partition table",
		  vol().build(),
		  up,
		  Seen().mapped("/dev/rbd0").probe(ProbeKind::Signature, "gpt").get(),
		  {},
		  { clash(K::ForeignSignature, "/dev/rbd0") } },
		{ "ambivalent",
		  vol().build(),
		  up,
		  Seen().mapped("/dev/rbd0").probe(ProbeKind::Ambivalent, "ext4,dos").get(),
		  {},
		  { clash(K::AmbivalentProbe, "/dev/rbd0") } },
		{ "probe failed",
		  vol().build(),
		  up,
		  Seen().mapped("/dev/rbd0").probe(ProbeKind::Failed, "EIO").get(),
		  {},
		  { clash(K::ProbeFailed, "/dev/rbd0") } },
		{ "blank after our format",
		  vol().build(),
		  up,
		  Seen().mapped("/dev/rbd0").probe(ProbeKind::Blank).formatted().get(),
		  {},
		  { clash(K::LostFilesystem, "/dev/rbd0") } },
		{ "blank, read-only",
		  vol().readOnly().build(),
		  up,
		  Seen().mapped("/dev/rbd0", true).probe(ProbeKind::Blank).get(),
		  {},
		  { clash(K::BlankNoFormat, "/dev/rbd0") } },
		{ "blank, format = never",
		  vol().format(FormatPolicy::Never).build(),
		  up,
		  Seen().mapped("/dev/rbd0").probe(ProbeKind::Blank).get(),
		  {},
		  { clash(K::BlankNoFormat, "/dev/rbd0") } },
		{ "block mode ignores signatures",
		  vol().block().build(),
		  up,
		  Seen().mapped("/dev/rbd0").probe(ProbeKind::Signature, "xfs").get(),
		  { gap(G::NotStaged, Staging), gap(G::NotPublished, "/srv/a") },
		  {} },
		{ "foreign mapping",
		  vol().build(),
		  up,
		  Seen().mappedForeign("/dev/rbd3").get(),
		  {},
		  { clash(K::ForeignMapping, "/dev/rbd3") } },
		{ "mapped read-only, spec read-write",
		  vol().build(),
		  up,
		  Seen().mapped("/dev/rbd0", true).get(),
		  {},
		  { clash(K::ReadOnlyMismatch, "/dev/rbd0") } },
		{ "foreign mount on staging",
		  vol().build(),
		  up,
		  Seen().staged("/dev/sdb", false).get(),
		  {},
		  { clash(K::ForeignMount, Staging) } },
		{ "foreign mount on a target: no step towards the volume",
		  vol().target("/srv/b").build(),
		  up,
		  Seen().mapped("/dev/rbd0")
			  .staged("/dev/rbd0")
			  .target("/srv/a", "/dev/sdc", false)
			  .get(),
		  {},
		  { clash(K::ForeignMount, "/srv/a") } },
		{ "staged read-write, spec read-only",
		  vol().readOnly().build(),
		  up,
		  Seen().mapped("/dev/rbd0", true)
			  .staged("/dev/rbd0")
			  .target("/srv/a", "/dev/rbd0")
			  .get(),
		  { gap(G::TargetStale, "/srv/a") },
		  { clash(K::ReadOnlyMismatch, Staging) } },
		{ "a full pool under a volume not staged yet: no step on it",
		  vol().build(),
		  up,
		  Seen().mapped("/dev/rbd0").probe(ProbeKind::Blank).poolFull().get(),
		  {},
		  { clash(K::PoolFull, "/dev/rbd0") } },
		{ "a full pool under a foreign mount on staging: both said",
		  vol().build(),
		  up,
		  Seen().mapped("/dev/rbd0").staged("/dev/sdb", false).poolFull().get(),
		  {},
		  { clash(K::PoolFull, "/dev/rbd0"), clash(K::ForeignMount, Staging) } },
		{ "a staged ext4 that recorded errors: no step, nothing remounted",
		  vol().target("/srv/b").build(),
		  up,
		  Seen().mapped("/dev/rbd0")
			  .staged("/dev/rbd0")
			  .fsErrors()
			  .target("/srv/a", "/dev/rbd0")
			  .get(),
		  {},
		  { clash(K::FilesystemErrors, Staging) } },
		{ "a full pool, and the errors it left in ext4: both said",
		  vol().build(),
		  up,
		  Seen().mapped("/dev/rbd0").staged("/dev/rbd0").fsErrors().poolFull().get(),
		  {},
		  { clash(K::PoolFull, "/dev/rbd0"), clash(K::FilesystemErrors, Staging) } },
		{ "down with ext4 errors recorded: torn down as usual, the up checks it",
		  vol().build(),
		  down,
		  Seen().mapped("/dev/rbd0").staged("/dev/rbd0").fsErrors().get(),
		  { gap(G::StagingStale, Staging), gap(G::MappingStale, "/dev/rbd0") },
		  {} },
		{ "a full pool under a staged volume: no step, nothing unmounted",
		  vol().build(),
		  up,
		  Seen().mapped("/dev/rbd0")
			  .staged("/dev/rbd0")
			  .target("/srv/a", "/dev/rbd0")
			  .poolFull()
			  .get(),
		  {},
		  { clash(K::PoolFull, "/dev/rbd0") } },
		{ "a full pool going down: torn down as usual",
		  vol().build(),
		  down,
		  Seen().mapped("/dev/rbd0").staged("/dev/rbd0").poolFull().get(),
		  { gap(G::StagingStale, Staging), gap(G::MappingStale, "/dev/rbd0") },
		  {} },
		{ "staged as ext4, spec block",
		  vol().block().build(),
		  up,
		  Seen().mapped("/dev/rbd0").staged("/dev/rbd0").get(),
		  {},
		  { clash(K::ModeMismatch, Staging) } },
		{ "bound as a device, spec filesystem",
		  vol().build(),
		  up,
		  Seen().mapped("/dev/rbd0").staged("/dev/rbd0", true, "devtmpfs").get(),
		  {},
		  { clash(K::ModeMismatch, Staging) } },
		{ "staged as ext4, spec xfs",
		  vol().fsType(FsType::Xfs).build(),
		  up,
		  Seen().mapped("/dev/rbd0")
			  .probe(ProbeKind::Signature, "xfs")
			  .staged("/dev/rbd0")
			  .get(),
		  {},
		  { clash(K::ModeMismatch, Staging) } },
		{ "target in the wrong mode is not covered",
		  vol().block().build(),
		  up,
		  Seen().mapped("/dev/rbd0")
			  .staged("/dev/rbd0", true, "devtmpfs")
			  .target("/srv/a", "/dev/rbd0")
			  .get(),
		  {},
		  { clash(K::ModeMismatch, "/srv/a") } },
		{ "new mapping: old staging and binds go",
		  vol().build(),
		  up,
		  Seen().mapped("/dev/rbd1")
			  .staged("/dev/rbd0")
			  .target("/srv/a", "/dev/rbd0")
			  .get(),
		  { gap(G::TargetStale, "/srv/a"), gap(G::StagingStale, Staging),
		    gap(G::NotStaged, Staging), gap(G::NotPublished, "/srv/a") },
		  {} },
		{ "device vanished under our mounts",
		  vol().build(),
		  up,
		  Seen().staged("/dev/rbd0").target("/srv/a", "/dev/rbd0").formatted().get(),
		  { gap(G::TargetStale, "/srv/a"), gap(G::StagingStale, Staging), gap(G::NotMapped),
		    gap(G::GrowOffline), gap(G::NotStaged, Staging),
		    gap(G::NotPublished, "/srv/a") },
		  {} },
		{ "target read-only mode changed",
		  vol().build(),
		  up,
		  Seen().mapped("/dev/rbd0")
			  .staged("/dev/rbd0")
			  .target("/srv/a", "/dev/rbd0", true, true)
			  .get(),
		  { gap(G::TargetStale, "/srv/a"), gap(G::NotPublished, "/srv/a") },
		  {} },
		{ "target no longer wanted",
		  vol().build(),
		  up,
		  Seen().mapped("/dev/rbd0")
			  .staged("/dev/rbd0")
			  .target("/srv/a", "/dev/rbd0")
			  .target("/srv/old", "/dev/rbd0")
			  .get(),
		  { gap(G::TargetStale, "/srv/old") },
		  {} },
		{ "foreign mount on an unwanted path is left alone",
		  vol().build(),
		  up,
		  Seen().mapped("/dev/rbd0")
			  .staged("/dev/rbd0")
			  .target("/srv/a", "/dev/rbd0")
			  .target("/srv/old", "/dev/sdc", false)
			  .get(),
		  {},
		  {} },
		{ "published, mapper lost: refused, nothing remapped",
		  vol().build(),
		  up,
		  Seen().mapped("/dev/loop0")
			  .lost()
			  .staged("/dev/loop0")
			  .target("/srv/a", "/dev/loop0")
			  .get(),
		  {},
		  { clash(K::MapperLost, "/dev/loop0") } },
		{ "published, I/O stalled: degraded, nothing done",
		  vol().build(),
		  up,
		  Seen().mapped("/dev/rbd0")
			  .stalled()
			  .staged("/dev/rbd0")
			  .target("/srv/a", "/dev/rbd0")
			  .get(),
		  {},
		  { clash(K::IoStalled, "/dev/rbd0") } },
		{ "mapped, I/O stalled: no mount waits on it",
		  vol().build(),
		  up,
		  Seen().mapped("/dev/rbd0").stalled().get(),
		  {},
		  { clash(K::IoStalled, "/dev/rbd0") } },
		{ "down with I/O stalled: torn down as usual",
		  vol().build(),
		  down,
		  Seen().mapped("/dev/rbd0").stalled().staged("/dev/rbd0").get(),
		  { gap(G::StagingStale, Staging), gap(G::MappingStale, "/dev/rbd0") },
		  {} },
		{ "down with the mapper lost: torn down as usual",
		  vol().build(),
		  down,
		  Seen().mapped("/dev/loop0")
			  .lost()
			  .staged("/dev/loop0")
			  .target("/srv/a", "/dev/loop0")
			  .get(),
		  { gap(G::TargetStale, "/srv/a"), gap(G::StagingStale, Staging),
		    gap(G::MappingStale, "/dev/loop0") },
		  {} },
		{ "down from published",
		  vol().build(),
		  down,
		  Seen().mapped("/dev/rbd0")
			  .staged("/dev/rbd0")
			  .target("/srv/a", "/dev/rbd0")
			  .get(),
		  { gap(G::TargetStale, "/srv/a"), gap(G::StagingStale, Staging),
		    gap(G::MappingStale, "/dev/rbd0") },
		  {} },
		{ "down leaves what is foreign",
		  vol().build(),
		  down,
		  Seen().mappedForeign("/dev/rbd3")
			  .staged("/dev/sdb", false)
			  .target("/srv/a", "/dev/sdc", false)
			  .get(),
		  {},
		  {} },
		{ "down with our bind covered: no unmap",
		  vol().build(),
		  down,
		  Seen().mapped("/dev/rbd0")
			  .staged("/dev/rbd0")
			  .target("/srv/a", "/dev/sdc", false)
			  .covered("/srv/a", "/dev/rbd0")
			  .get(),
		  { gap(G::StagingStale, Staging) },
		  { clash(K::ForeignMount, "/srv/a") } },
		{ "down with a covered mount of a vanished device",
		  vol().build(),
		  down,
		  Seen().mapped("/dev/rbd1")
			  .staged("/dev/sdb", false)
			  .covered(Staging, "/dev/rbd0")
			  .get(),
		  { gap(G::MappingStale, "/dev/rbd1") },
		  { clash(K::ForeignMount, Staging) } },
		{ "down, nothing there", vol().build(), down, Seen().formatted().get(), {}, {} },
	};
}

TEST(Diff, Table)
{
	for (const Row &row : rows()) {
		SCOPED_TRACE(row.name);
		const VolumeDiff result = diff(DesiredVolume{ row.spec, row.intent }, row.seen);
		EXPECT_EQ(result.gaps, row.gaps);
		std::vector<ConflictKey> conflicts;
		for (const Conflict &c : result.conflicts) {
			conflicts.emplace_back(c.kind, c.subject);
			EXPECT_FALSE(c.detail.empty());
		}
		EXPECT_EQ(conflicts, row.conflicts);
		EXPECT_EQ(result.converged(), row.gaps.empty() && row.conflicts.empty());
	}
}

/* Every conflict kind has a name for status and plans. */
TEST(Diff, ConflictKindNames)
{
	EXPECT_STREQ(conflictKindName(ConflictKind::ForeignMount), "foreign-mount");
	EXPECT_STREQ(conflictKindName(ConflictKind::ReadOnlyMismatch), "read-only-mismatch");
	EXPECT_STREQ(conflictKindName(ConflictKind::PoolFull), "pool-full");
	EXPECT_STREQ(conflictKindName(ConflictKind::FilesystemErrors), "filesystem-errors");
	EXPECT_STREQ(conflictKindName(ConflictKind::ModeMismatch), "mode-mismatch");
	EXPECT_STREQ(conflictKindName(ConflictKind::MapperLost), "mapper-lost");
	EXPECT_STREQ(conflictKindName(ConflictKind::IoStalled), "io-stalled");
	EXPECT_STREQ(conflictKindName(ConflictKind::UnsafePath), "unsafe-path");
	EXPECT_STREQ(conflictKindName(ConflictKind::UnknownData), "unknown-data");
	EXPECT_STREQ(conflictKindName(ConflictKind::Abandoned), "abandoned");
}

/* At shutdown a stalled device is abandoned: the mounts are detached, the device is left. */
TEST(Diff, ShutdownAbandonsAStalledDevice)
{
	using G = GapKind;
	const VolumeSpec spec = vol().build();
	const ObservedVolume seen = Seen().mapped("/dev/rbd0")
					    .stalled()
					    .staged("/dev/rbd0")
					    .target("/srv/a", "/dev/rbd0")
					    .get();
	const VolumeDiff result = diff(DesiredVolume{ spec, Intent::Down, true }, seen);
	EXPECT_EQ(result.gaps, (std::vector<Gap>{ gap(G::TargetStale, "/srv/a"),
						  gap(G::StagingStale, Staging) }));
	EXPECT_TRUE(result.detach);
	ASSERT_EQ(result.conflicts.size(), 1U);
	EXPECT_EQ(result.conflicts[0].kind, ConflictKind::Abandoned);
	EXPECT_EQ(result.conflicts[0].detail,
		  "the host shuts down with no answer from the cluster since 10:02:03: its mounts "
		  "are detached and /dev/rbd0 left mapped; writes the cluster has not "
		  "acknowledged are lost");

	/* Detached, the same device is still left alone. */
	const VolumeDiff after = diff(DesiredVolume{ spec, Intent::Down, true },
				      Seen().mapped("/dev/rbd0").stalled().get());
	EXPECT_TRUE(after.gaps.empty());
	EXPECT_EQ(after.conflicts.size(), 1U);
}

/* A device that answers goes down as usual at shutdown; so does a stalled one otherwise. */
TEST(Diff, ShutdownTearsDownWhatAnswers)
{
	using G = GapKind;
	const VolumeSpec spec = vol().build();
	const VolumeDiff flowing = diff(DesiredVolume{ spec, Intent::Down, true },
					Seen().mapped("/dev/rbd0").staged("/dev/rbd0").get());
	EXPECT_EQ(flowing.gaps, (std::vector<Gap>{ gap(G::StagingStale, Staging),
						   gap(G::MappingStale, "/dev/rbd0") }));
	EXPECT_FALSE(flowing.detach);
	const VolumeDiff running =
		diff(DesiredVolume{ spec, Intent::Down, false },
		     Seen().mapped("/dev/rbd0").stalled().staged("/dev/rbd0").get());
	EXPECT_FALSE(running.detach);
	EXPECT_TRUE(running.conflicts.empty());
}

} /* namespace */

} /* namespace rbdvolume::testing */
