/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the daemon library's tests share: a loop to drive, a thread-safe fake host, a reconciler. */
#include "daemon_rig.hpp"

#include <cstdlib>
#include <filesystem>
#include <thread>

#include <gtest/gtest.h>

#include "common/errno_text.hpp"

namespace rbdvolume::testing {

namespace {

/* How long one sd_event_run() waits at most, so deadlines are checked often. */
constexpr uint64_t SliceUsec = uint64_t{ 10 } * 1000;

int onCompletions(sd_event_source * /*source*/, int /*fd*/, uint32_t /*revents*/, void *data)
{
	static_cast<daemon::WorkerPool *>(data)->runCompletions();
	return 0;
}

} /* namespace */

TestLoop::TestLoop()
{
	sd_event *event = nullptr;
	const int r = sd_event_new(&event);
	if (r < 0)
		ADD_FAILURE() << "sd_event_new: " << errnoText(-r);
	event_.reset(event);
}

void TestLoop::watch(daemon::WorkerPool &pool)
{
	sd_event_source *source = nullptr;
	const int r =
		sd_event_add_io(event_.get(), &source, pool.fd(), EPOLLIN, onCompletions, &pool);
	if (r < 0)
		ADD_FAILURE() << "sd_event_add_io: " << errnoText(-r);
	else
		sources_.emplace_back(source);
}

bool TestLoop::runUntil(const std::function<bool()> &done, const std::string &what,
			std::chrono::milliseconds timeout)
{
	const auto deadline = std::chrono::steady_clock::now() + timeout;
	while (!done()) {
		if (std::chrono::steady_clock::now() >= deadline) {
			ADD_FAILURE() << "timed out after " << timeout.count()
				      << " ms waiting for: " << what;
			return false;
		}
		if (const int r = sd_event_run(event_.get(), SliceUsec); r < 0) {
			ADD_FAILURE() << "sd_event_run: " << errnoText(-r);
			return false;
		}
	}
	return true;
}

void TestLoop::runFor(std::chrono::milliseconds duration)
{
	const auto deadline = std::chrono::steady_clock::now() + duration;
	while (std::chrono::steady_clock::now() < deadline) {
		if (const int r = sd_event_run(event_.get(), SliceUsec); r < 0) {
			ADD_FAILURE() << "sd_event_run: " << errnoText(-r);
			return;
		}
	}
}

SafeWorld::Call::Call(SafeWorld &world, std::optional<FakeOp> op, std::string volume)
	: world_(world), volume_(std::move(volume))
{
	std::unique_lock gate(world_.gateMutex_);
	if (op)
		world_.times_[*op].push_back(std::chrono::steady_clock::now());
	if (op && world_.gated_ == op) {
		world_.gated_.reset();
		world_.waiting_ = true;
		world_.gateChanged_.notify_all();
		world_.gateChanged_.wait(gate, [this] { return !world_.waiting_; });
	}
	if (!volume_.empty()) {
		world_.tracked_++;
		if (++world_.inFlight_[volume_] > 1)
			world_.overlaps_++;
	}
	gate.unlock();
	if (!volume_.empty() && world_.delay_.count() > 0)
		std::this_thread::sleep_for(world_.delay_);
	state_ = std::unique_lock(world_.mutex_);
}

SafeWorld::Call::~Call()
{
	if (volume_.empty())
		return;
	const std::lock_guard gate(world_.gateMutex_);
	world_.inFlight_[volume_]--;
}

std::vector<std::chrono::steady_clock::time_point> SafeWorld::callTimes(FakeOp op) const
{
	const std::lock_guard gate(gateMutex_);
	const auto found = times_.find(op);
	return found == times_.end() ? std::vector<std::chrono::steady_clock::time_point>()
				     : found->second;
}

void SafeWorld::hold(FakeOp op)
{
	const std::lock_guard gate(gateMutex_);
	gated_ = op;
}

bool SafeWorld::held() const
{
	const std::lock_guard gate(gateMutex_);
	return waiting_;
}

void SafeWorld::release()
{
	{
		const std::lock_guard gate(gateMutex_);
		gated_.reset();
		waiting_ = false;
	}
	gateChanged_.notify_all();
}

Result<std::vector<MountEntry>> SafeWorld::read()
{
	const Call call(*this, FakeOp::ReadTable, "");
	return FakeWorld::read();
}

Result<Change> SafeWorld::mount(const MountRequest &request)
{
	const Call call(*this, FakeOp::Mount, request.owner);
	return FakeWorld::mount(request);
}

Result<Change> SafeWorld::bind(const MountRequest &request)
{
	const Call call(*this, FakeOp::Bind, request.owner);
	return FakeWorld::bind(request);
}

Result<Change> SafeWorld::unmount(const std::string &target)
{
	const Call call(*this, FakeOp::Unmount, "");
	return FakeWorld::unmount(target);
}

Result<Change> SafeWorld::detach(const std::string &target)
{
	const Call call(*this, FakeOp::Unmount, "");
	return FakeWorld::detach(target);
}

ProbeResult SafeWorld::probe(const std::string &device)
{
	const Call call(*this, std::nullopt, "");
	return FakeWorld::probe(device);
}

Result<uint64_t> SafeWorld::deviceSize(const std::string &device)
{
	const Call call(*this, std::nullopt, "");
	return FakeWorld::deviceSize(device);
}

Result<std::vector<MappedImage>> SafeWorld::list()
{
	const Call call(*this, FakeOp::List, "");
	return FakeWorld::list();
}

Result<std::string> SafeWorld::map(const MapRequest &spec)
{
	const Call call(*this, FakeOp::Map, spec.volume);
	return FakeWorld::map(spec);
}

Result<Change> SafeWorld::unmap(const MapRequest &spec, const std::string &device)
{
	const Call call(*this, FakeOp::Unmap, spec.volume);
	return FakeWorld::unmap(spec, device);
}

Result<ImageChange> SafeWorld::ensureImage(const ImageRequest &spec)
{
	const Call call(*this, FakeOp::EnsureImage, spec.volume);
	return FakeWorld::ensureImage(spec);
}

Result<void> SafeWorld::checkSoleWriter(const ImageRequest &spec)
{
	const Call call(*this, std::nullopt, "");
	return FakeWorld::checkSoleWriter(spec);
}

Result<bool> SafeWorld::readsZeroes(const ImageRequest &spec)
{
	const Call call(*this, std::nullopt, "");
	return FakeWorld::readsZeroes(spec);
}

Result<std::optional<std::string>> SafeWorld::metadata(const ImageRequest &spec,
						       const std::string &key)
{
	const Call call(*this, std::nullopt, "");
	return FakeWorld::metadata(spec, key);
}

Result<void> SafeWorld::setMetadata(const ImageRequest &spec, const std::string &key,
				    const std::string &value)
{
	const Call call(*this, std::nullopt, "");
	return FakeWorld::setMetadata(spec, key, value);
}

Result<std::string> SafeWorld::format(const std::string &device, const FilesystemSpec &fs,
				      DeviceContents contents)
{
	const Call call(*this, FakeOp::Format, "");
	return FakeWorld::format(device, fs, contents);
}

Result<std::string> SafeWorld::check(const std::string &device, const FilesystemSpec &fs)
{
	const Call call(*this, FakeOp::Check, "");
	return FakeWorld::check(device, fs);
}

Result<Change> SafeWorld::grow(const std::string &device, const std::string &mountPoint,
			       const FilesystemSpec &fs)
{
	const Call call(*this, FakeOp::Grow, "");
	return FakeWorld::grow(device, mountPoint, fs);
}

Result<Ownership> SafeWorld::load(const std::string &volume)
{
	const Call call(*this, std::nullopt, "");
	return FakeWorld::load(volume);
}

Result<void> SafeWorld::save(const std::string &volume, const Ownership &record)
{
	const Call call(*this, FakeOp::Save, volume);
	return FakeWorld::save(volume, record);
}

std::string environmentOr(const char *name, const char *fallback)
{
	/* Read before any test starts a thread that could change the environment. */
	const char *value = std::getenv(name); /* NOLINT(concurrency-mt-unsafe) */
	return value != nullptr && *value != '\0' ? value : fallback;
}

daemon::Reconciler::Reply replyInto(const std::shared_ptr<Answer> &answer)
{
	return [answer](const Error *error) {
		answer->calls++;
		if (error != nullptr)
			answer->error = *error;
		else
			answer->error.reset();
	};
}

std::string volumeSpecText(const std::string &name)
{
	return "[image]\n"
	       "pool = \"rbd\"\n"
	       "name = \"" +
	       name +
	       "\"\n"
	       "\n"
	       "[[publish]]\n"
	       "path = \"/srv/" +
	       name + "\"\n";
}

std::vector<std::string> testMountRoots()
{
	return { "/run/rbd-volume/staging", "/srv" };
}

daemon::ReconcilerSettings fastSettings()
{
	daemon::ReconcilerSettings settings;
	settings.maxPasses = 3;
	settings.backoffInitial = std::chrono::milliseconds(20);
	settings.backoffMax = std::chrono::milliseconds(80);
	return settings;
}

ReconcilerRig::ReconcilerRig(unsigned workers, daemon::ReconcilerSettings settings)
	: host(world.host()), specs({ dir.path() + "/specs" }, testMountRoots()),
	  intents(dir.path() + "/intent")
{
	std::filesystem::create_directories(specDir());
	auto created = daemon::WorkerPool::create(workers);
	if (!created) {
		ADD_FAILURE() << created.error().message;
		return;
	}
	pool = std::move(*created);
	loop.watch(*pool);
	reconciler = std::make_unique<daemon::Reconciler>(loop.get(), host, *pool, specs, intents,
							  settings);
	reconciler->setListener(this);
}

ReconcilerRig::~ReconcilerRig()
{
	/*
	 * The workers end before what their jobs reach (the world, the host)
	 * goes away, as in the daemon; the reconciler goes first, so that one
	 * waiting at its closed gate goes on.
	 */
	world.release();
	reconciler.reset();
	pool.reset();
}

void ReconcilerRig::addVolume(const std::string &name)
{
	writeSpec(name, volumeSpecText(name));
	ImageSpec image;
	image.pool = "rbd";
	image.name = name;
	const auto held = world.lock();
	world.addImage(image);
}

void ReconcilerRig::writeSpec(const std::string &name, const std::string &text) const
{
	dir.write("specs/" + name + ".toml", text);
}

void ReconcilerRig::removeSpec(const std::string &name) const
{
	std::filesystem::remove(specDir() + "/" + name + ".toml");
}

bool ReconcilerRig::start()
{
	if (!reconciler)
		return false;
	auto started = reconciler->start([this] { readyCalls++; });
	if (!started) {
		ADD_FAILURE() << "start: " << started.error().message;
		return false;
	}
	return loop.runUntil([this] { return readyCalls > 0; }, "the reconciler to be ready");
}

std::optional<Error> ReconcilerRig::setIntentAndWait(const std::string &name, Intent intent)
{
	auto answer = std::make_shared<Answer>();
	auto accepted = reconciler->setIntent(name, intent, replyInto(answer));
	if (!accepted)
		return accepted.error();
	if (!loop.runUntil([&] { return answer->answered(); },
			   std::string("the reply to ") + intentName(intent) + " " + name))
		return Error{ Errc::Timeout, "no reply", 0 };
	return answer->error;
}

daemon::VolumeStatus ReconcilerRig::status(const std::string &name) const
{
	const daemon::VolumeStatus *status = reconciler->status(name);
	if (status == nullptr) {
		ADD_FAILURE() << "no volume '" << name << "'";
		return {};
	}
	return *status;
}

bool ReconcilerRig::settledIn(const std::string &name, const std::string &phase) const
{
	const daemon::VolumeStatus *status = reconciler->status(name);
	return status != nullptr && !status->busy && bus::phaseName(status->phase) == phase;
}

void ReconcilerRig::volumeAdded(const std::string &name)
{
	events.push_back("added " + name);
}

void ReconcilerRig::volumeRemoved(const std::string &name)
{
	events.push_back("removed " + name);
}

void ReconcilerRig::statusChanged(const std::string &name)
{
	const daemon::VolumeStatus *status = reconciler->status(name);
	if (status == nullptr) {
		ADD_FAILURE() << "statusChanged for an unknown volume '" << name << "'";
		return;
	}
	told[name].push_back(*status);
}

} /* namespace rbdvolume::testing */
