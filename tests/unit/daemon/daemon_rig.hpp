/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the daemon library's tests share: a loop to drive, a thread-safe fake host, a reconciler. */
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "common/sd_ptr.hpp"
#include "daemon/reconciler.hpp"
#include "daemon/spec_store.hpp"
#include "daemon/worker_pool.hpp"
#include "fake_world.hpp"
#include "host/intent_files.hpp"
#include "read_text.hpp"
#include "temp_dir.hpp"

namespace rbdvolume::testing {

/* How long a test waits for something that takes milliseconds before it fails. */
inline constexpr std::chrono::milliseconds Patience{ 10000 };

/* The test's own sd_event: it runs until a condition holds, and fails instead of hanging. */
class TestLoop
{
public:
	TestLoop();

	sd_event *get() const { return event_.get(); }
	/* Runs the pool's completions from this loop, as the daemon does. */
	void watch(daemon::WorkerPool &pool);
	/* Runs the loop until `done` holds; false, with a test failure naming `what`, on timeout. */
	bool runUntil(const std::function<bool()> &done, const std::string &what,
		      std::chrono::milliseconds timeout = Patience);
	/* Runs the loop for `duration`, to see that something does not happen. */
	void runFor(std::chrono::milliseconds duration);

private:
	EventPtr event_;
	std::vector<SourcePtr> sources_;
};

/*
 * FakeWorld for several workers: each port call runs under one lock. Calls
 * that change a volume (mount, bind, map, unmap, ensure-image, save) are
 * tracked per volume, with a short delay to widen the window: a call made
 * while another one for the same volume is in flight is an overlap, which
 * one episode at a time per volume never causes. A gate holds the next call
 * of one operation until the test releases it.
 */
class SafeWorld : public FakeWorld
{
public:
	/* Hold it while reading the fake's state from the test's thread. */
	std::unique_lock<std::mutex> lock() { return std::unique_lock(mutex_); }

	void hold(FakeOp op);
	/* A call waits at the gate. */
	bool held() const;
	void release();

	void setCallDelay(std::chrono::microseconds delay) { delay_ = delay; }
	/* When each call of `op` began, in order. */
	std::vector<std::chrono::steady_clock::time_point> callTimes(FakeOp op) const;
	unsigned overlaps() const { return overlaps_; }
	unsigned trackedCalls() const { return tracked_; }

	Result<std::vector<MountEntry>> read() override;
	Result<Change> mount(const MountRequest &request) override;
	Result<Change> bind(const MountRequest &request) override;
	Result<Change> unmount(const std::string &target) override;
	Result<Change> detach(const std::string &target) override;
	ProbeResult probe(const std::string &device) override;
	Result<uint64_t> deviceSize(const std::string &device) override;
	Result<std::vector<MappedImage>> list() override;
	Result<std::string> map(const MapRequest &spec) override;
	Result<Change> unmap(const MapRequest &spec, const std::string &device) override;
	Result<ImageChange> ensureImage(const ImageRequest &spec) override;
	Result<void> checkSoleWriter(const ImageRequest &spec) override;
	Result<bool> readsZeroes(const ImageRequest &spec) override;
	Result<std::optional<std::string>> metadata(const ImageRequest &spec,
						    const std::string &key) override;
	Result<void> setMetadata(const ImageRequest &spec, const std::string &key,
				 const std::string &value) override;
	Result<std::string> format(const std::string &device, const FilesystemSpec &fs,
				   DeviceContents contents) override;
	Result<std::string> check(const std::string &device, const FilesystemSpec &fs) override;
	Result<Change> grow(const std::string &device, const std::string &mountPoint,
			    const FilesystemSpec &fs) override;
	Result<Ownership> load(const std::string &volume) override;
	Result<void> save(const std::string &volume, const Ownership &record) override;

private:
	/* One port call: passes the gate, and counts as in flight for `volume` ("" untracked). */
	class Call
	{
	public:
		Call(SafeWorld &world, std::optional<FakeOp> op, std::string volume);
		~Call();
		Call(const Call &) = delete;
		Call &operator=(const Call &) = delete;
		Call(Call &&) = delete;
		Call &operator=(Call &&) = delete;

	private:
		SafeWorld &world_;
		std::string volume_;
		std::unique_lock<std::mutex> state_; /* taken once through the gate */
	};

	std::mutex mutex_; /* the fake's state */
	mutable std::mutex gateMutex_;
	std::condition_variable gateChanged_;
	std::optional<FakeOp> gated_;
	bool waiting_ = false;
	std::map<std::string, unsigned> inFlight_; /* under gateMutex_ */
	std::map<FakeOp, std::vector<std::chrono::steady_clock::time_point>> times_; /* likewise */
	std::atomic<unsigned> overlaps_{ 0 };
	std::atomic<unsigned> tracked_{ 0 };
	std::chrono::microseconds delay_{ 0 }; /* set before any call */
};

/* What one reply callback was called with. */
struct Answer {
	unsigned calls = 0;
	std::optional<Error> error;

	bool answered() const { return calls > 0; }
};
daemon::Reconciler::Reply replyInto(const std::shared_ptr<Answer> &answer);

/* The environment variable's value, `fallback` when unset (meson's test() sets them). */
std::string environmentOr(const char *name, const char *fallback);

/* Spec text for NAME: image rbd/NAME, default staging, published at /srv/NAME. */
std::string volumeSpecText(const std::string &name);

/* The mount roots the rigs allow: the default staging root and /srv. */
std::vector<std::string> testMountRoots();

/* Back-off short enough for a test to watch it. */
daemon::ReconcilerSettings fastSettings();

/*
 * A Reconciler on a SafeWorld, with its specs (dir/specs) and intents
 * (dir/intent) in a temporary directory. It listens to the reconciler itself
 * and keeps every status it was told of.
 */
class ReconcilerRig : public daemon::ReconcilerListener
{
public:
	explicit ReconcilerRig(unsigned workers = 1,
			       daemon::ReconcilerSettings settings = fastSettings());
	~ReconcilerRig() override;
	ReconcilerRig(const ReconcilerRig &) = delete;
	ReconcilerRig &operator=(const ReconcilerRig &) = delete;
	ReconcilerRig(ReconcilerRig &&) = delete;
	ReconcilerRig &operator=(ReconcilerRig &&) = delete;

	std::string specDir() const { return dir.path() + "/specs"; }
	std::string intentDir() const { return dir.path() + "/intent"; }
	/* NAME.toml as volumeSpecText() says, and a blank image rbd/NAME in the fake. */
	void addVolume(const std::string &name);
	void writeSpec(const std::string &name, const std::string &text) const;
	void removeSpec(const std::string &name) const;
	/* start(), then runs the loop until ready; false on failure. */
	bool start();
	/* setIntent() with a waiting reply, run until it answered; the reply's error, if any. */
	std::optional<Error> setIntentAndWait(const std::string &name, Intent intent);
	/* The volume's status; a default one (and a test failure) for an unknown volume. */
	daemon::VolumeStatus status(const std::string &name) const;
	/* The volume is settled in `phase`: not busy, nothing left to do. */
	bool settledIn(const std::string &name, const std::string &phase) const;

	void volumeAdded(const std::string &name) override;
	void volumeRemoved(const std::string &name) override;
	void statusChanged(const std::string &name) override;

	TempDir dir;
	SafeWorld world;
	Host host;
	TestLoop loop;
	daemon::SpecStore specs;
	IntentFiles intents;
	std::unique_ptr<daemon::WorkerPool> pool;
	std::unique_ptr<daemon::Reconciler> reconciler;
	unsigned readyCalls = 0;
	std::vector<std::string> events;			       /* "added a", "removed a" */
	std::map<std::string, std::vector<daemon::VolumeStatus>> told; /* by statusChanged */
};

} /* namespace rbdvolume::testing */
