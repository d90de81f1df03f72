/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "cli/offline_down.hpp"

#include <cerrno>
#include <fcntl.h>

#include <sys/file.h>

#include "cli/installed_spec.hpp"
#include "common/errno_text.hpp"
#include "common/fs_util.hpp"
#include "common/paths.hpp"
#include "common/unique_fd.hpp"
#include "engine/reconcile.hpp"
#include "host/drivers/host_adapters.hpp"
#include "host/intent_files.hpp"
#include "report/step_record.hpp"

namespace rbdvolume::cli {

namespace {

/* A teardown never reaches the cluster: unmounts and unmaps are local. */
class NoCluster : public Images
{
public:
	Result<ImageChange> ensureImage(const ImageRequest &request) override
	{
		return fail(Errc::Internal,
			    "a teardown does not create " + request.image.display());
	}
	Result<void> checkSoleWriter(const ImageRequest &request) override
	{
		return fail(Errc::Internal, "a teardown does not map " + request.image.display());
	}
	Result<bool> readsZeroes(const ImageRequest &request) override
	{
		return fail(Errc::Internal,
			    "a teardown does not format " + request.image.display());
	}
	Result<std::optional<std::string>> metadata(const ImageRequest &request,
						    const std::string & /*key*/) override
	{
		return fail(Errc::Internal,
			    "a teardown does not read the metadata of " + request.image.display());
	}
	Result<void> setMetadata(const ImageRequest &request, const std::string & /*key*/,
				 const std::string & /*value*/) override
	{
		return fail(Errc::Internal,
			    "a teardown does not write the metadata of " + request.image.display());
	}
	/* A teardown goes on whatever the pool's state. */
	std::string poolFull(const ImageRequest & /*request*/) override { return {}; }
	Result<KernelMapFacts> kernelMapFacts(const ImageRequest &request) override
	{
		return fail(Errc::Internal, "a teardown does not map " + request.image.display());
	}
};

std::string conflictsText(const std::vector<Conflict> &conflicts)
{
	std::string text;
	for (const Conflict &conflict : conflicts)
		text += std::string(text.empty() ? "" : "; ") + conflictKindName(conflict.kind) +
			" " + conflict.subject + ": " + conflict.detail;
	return text;
}

} /* namespace */

Result<OfflineDown> downWithoutDaemon(const std::string &name)
{
	if (auto made = makeDirectories(std::string(paths::RuntimeDir), 0755); !made)
		return tl::make_unexpected(made.error());
	const std::string lockPath(paths::DaemonLock);
	const UniqueFd lock(
		open(lockPath.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600));
	if (!lock.valid())
		return failErrno("cannot open " + lockPath, errno);
	if (flock(lock.get(), LOCK_EX | LOCK_NB) < 0) {
		if (errno == EWOULDBLOCK)
			return OfflineDown::DaemonRuns;
		return failErrno("cannot lock " + lockPath, errno);
	}

	const DaemonConfigOutcome config = loadDaemonConfig(std::string(paths::DaemonConfig));
	if (!config.ok())
		return fail(Errc::InvalidArgument,
			    "the daemon config is invalid: " + config.diagnostics.front().format());
	auto spec = installedSpec(name);
	if (!spec)
		return tl::make_unexpected(spec.error());
	/* First the intent: a daemon that starts later keeps the volume down. */
	if (auto saved = IntentFiles(std::string(paths::IntentDir)).save(name, Intent::Down);
	    !saved)
		return tl::make_unexpected(saved.error());

	NoCluster cluster;
	HostAdapters adapters(config.config, cluster);
	const DesiredVolume desired{ *spec, Intent::Down };
	for (unsigned pass = 0; pass < config.config.maxPassesPerTrigger; pass++) {
		auto snapshot = takeSnapshot(adapters.host());
		if (!snapshot)
			return tl::make_unexpected(snapshot.error());
		auto outcome =
			reconcilePass(adapters.host(), *snapshot, desired, {},
				      [&](const StepOutcome &done) { recordStep(*spec, done); });
		if (!outcome)
			return tl::make_unexpected(outcome.error());
		if (const Error *failed = outcome->report.firstError())
			return tl::make_unexpected(*failed);
		if (outcome->plan.empty()) {
			if (!outcome->plan.conflicts.empty())
				return fail(Errc::Conflict,
					    "refused: " + conflictsText(outcome->plan.conflicts));
			return OfflineDown::Done;
		}
	}
	return fail(Errc::Internal, "not down after " +
					    std::to_string(config.config.maxPassesPerTrigger) +
					    " passes");
}

} /* namespace rbdvolume::cli */
