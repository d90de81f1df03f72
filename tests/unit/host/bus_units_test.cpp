/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * BusUnits against a stand-in for PID 1's private socket: a unix socket
 * served by sd-bus in a thread, answering the Manager's job methods with a
 * job path and ending each job with a JobRemoved signal as scripted.
 */
#include "host/bus_units.hpp"

#include <atomic>
#include <cstdlib>
#include <map>
#include <mutex>
#include <poll.h>
#include <thread>

#include <sys/socket.h>
#include <sys/un.h>

#include <gtest/gtest.h>

#include "common/sd_ptr.hpp"
#include "common/unique_fd.hpp"
#include "private_bus.hpp"
#include "temp_dir.hpp"

namespace rbdvolume::testing {
namespace {

using namespace std::chrono_literals;

constexpr const char *ManagerPath = "/org/freedesktop/systemd1";
constexpr const char *ManagerInterface = "org.freedesktop.systemd1.Manager";

/* What FakeManager(BusClient{ ADDRESS }) connects to: a bus daemon, where it owns systemd's name. */
struct BusClient {
	std::string address;
};

class FakeManager
{
public:
	explicit FakeManager(const BusClient &bus)
	{
		thread_ = std::thread([this, address = bus.address] { serveOnBus(address); });
	}
	explicit FakeManager(const std::string &socketPath)
	{
		listener_ = UniqueFd(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
		sockaddr_un address{};
		address.sun_family = AF_UNIX;
		socketPath.copy(address.sun_path, sizeof address.sun_path - 1);
		if (bind(listener_.get(), reinterpret_cast<const sockaddr *>(&address),
			 sizeof address) != 0 ||
		    listen(listener_.get(), 4) != 0)
			ADD_FAILURE() << "cannot listen on " << socketPath;
		thread_ = std::thread([this] { serve(); });
	}

	~FakeManager()
	{
		stop_ = true;
		thread_.join();
	}

	FakeManager(const FakeManager &) = delete;
	FakeManager &operator=(const FakeManager &) = delete;
	FakeManager(FakeManager &&) = delete;
	FakeManager &operator=(FakeManager &&) = delete;

	/* Per unit: how its jobs end ("done", "failed"; "" never), and its Result property. */
	void script(const std::string &unit, std::string jobResult, std::string unitResult = "")
	{
		const std::lock_guard lock(mutex_);
		jobResults_[unit] = std::move(jobResult);
		unitResults_[unit] = std::move(unitResult);
	}
	void endJobsBeforeReplying() { removedFirst_ = true; }
	/* Before each job's own end: another job's, with the opposite result. */
	void endAnotherJobFirst() { anotherFirst_ = true; }
	/* With BusClient: until it owns systemd's name; false when it cannot. */
	bool waitNamed() const
	{
		while (named_ == 0)
			std::this_thread::sleep_for(std::chrono::milliseconds(5));
		return named_ > 0;
	}

	std::vector<std::string> calls() const
	{
		const std::lock_guard lock(mutex_);
		return calls_;
	}

private:
	void serve()
	{
		while (!stop_) {
			pollfd ready{ listener_.get(), POLLIN, 0 };
			if (poll(&ready, 1, 50) <= 0)
				continue;
			const int fd = accept4(listener_.get(), nullptr, nullptr, SOCK_CLOEXEC);
			if (fd >= 0)
				serveConnection(fd);
		}
	}

	void serveConnection(int fd)
	{
		sd_bus *raw = nullptr;
		sd_id128_t id{};
		if (sd_bus_new(&raw) < 0)
			return;
		const BusPtr bus(raw);
		if (sd_bus_set_fd(raw, fd, fd) < 0 || sd_id128_randomize(&id) < 0 ||
		    sd_bus_set_server(raw, 1, id) < 0 || sd_bus_start(raw) < 0)
			return;
		serve(raw);
	}

	void serveOnBus(const std::string &address)
	{
		sd_bus *raw = nullptr;
		if (sd_bus_new(&raw) < 0)
			return;
		const BusPtr bus(raw);
		if (sd_bus_set_address(raw, address.c_str()) < 0 ||
		    sd_bus_set_bus_client(raw, 1) < 0 || sd_bus_start(raw) < 0 ||
		    sd_bus_request_name(raw, "org.freedesktop.systemd1", 0) < 0) {
			ADD_FAILURE() << "cannot own systemd's name on " << address;
			named_ = -1;
			return;
		}
		named_ = 1;
		serve(raw);
	}

	void serve(sd_bus *raw)
	{
		static const sd_bus_vtable manager[] = {
			SD_BUS_VTABLE_START(0),
			SD_BUS_METHOD("Subscribe", "", "", onSubscribe, 0),
			SD_BUS_METHOD("StartUnit", "ss", "o", onJob, 0),
			SD_BUS_METHOD("StopUnit", "ss", "o", onJob, 0),
			SD_BUS_METHOD("ReloadUnit", "ss", "o", onJob, 0),
			SD_BUS_SIGNAL("JobRemoved", "uoss", 0),
			SD_BUS_VTABLE_END,
		};
		/* As systemd's: ActiveState on the Unit interface, Result on the Service one. */
		static const sd_bus_vtable unit[] = {
			SD_BUS_VTABLE_START(0),
			SD_BUS_PROPERTY("ActiveState", "s", onProperty, 0, 0),
			SD_BUS_VTABLE_END,
		};
		static const sd_bus_vtable service[] = {
			SD_BUS_VTABLE_START(0),
			SD_BUS_PROPERTY("Result", "s", onProperty, 0, 0),
			SD_BUS_VTABLE_END,
		};
		if (sd_bus_add_object_vtable(raw, nullptr, ManagerPath, ManagerInterface, manager,
					     this) < 0 ||
		    sd_bus_add_fallback_vtable(raw, nullptr, "/org/freedesktop/systemd1/unit",
					       "org.freedesktop.systemd1.Unit", unit, nullptr,
					       this) < 0 ||
		    sd_bus_add_fallback_vtable(raw, nullptr, "/org/freedesktop/systemd1/unit",
					       "org.freedesktop.systemd1.Service", service, nullptr,
					       this) < 0)
			return;
		while (!stop_) {
			const int r = sd_bus_process(raw, nullptr);
			if (r < 0)
				return; /* the client went */
			if (r == 0)
				(void)sd_bus_wait(raw, 50'000);
		}
	}

	static int onSubscribe(sd_bus_message *call, void *userdata, sd_bus_error * /*error*/)
	{
		auto *self = static_cast<FakeManager *>(userdata);
		{
			const std::lock_guard lock(self->mutex_);
			self->calls_.emplace_back("Subscribe");
		}
		return sd_bus_reply_method_return(call, "");
	}

	static int onJob(sd_bus_message *call, void *userdata, sd_bus_error * /*error*/)
	{
		auto *self = static_cast<FakeManager *>(userdata);
		const char *unit = nullptr;
		const char *mode = nullptr;
		if (sd_bus_message_read(call, "ss", &unit, &mode) < 0)
			return -EINVAL;
		std::string result;
		{
			const std::lock_guard lock(self->mutex_);
			self->calls_.push_back(std::string(sd_bus_message_get_member(call)) + " " +
					       unit + " " + mode);
			result = self->jobResults_[unit];
		}
		const uint32_t job = ++self->jobs_;
		const std::string path = "/org/freedesktop/systemd1/job/" + std::to_string(job);
		sd_bus *bus = sd_bus_message_get_bus(call);
		const auto removed = [&] {
			if (self->anotherFirst_)
				(void)sd_bus_emit_signal(
					bus, ManagerPath, ManagerInterface, "JobRemoved", "uoss",
					job + 1000, "/org/freedesktop/systemd1/job/other",
					"other.service", result == "done" ? "failed" : "done");
			if (!result.empty())
				(void)sd_bus_emit_signal(bus, ManagerPath, ManagerInterface,
							 "JobRemoved", "uoss", job, path.c_str(),
							 unit, result.c_str());
		};
		if (self->removedFirst_)
			removed();
		const int r = sd_bus_reply_method_return(call, "o", path.c_str());
		if (!self->removedFirst_)
			removed();
		return r;
	}

	static int onProperty(sd_bus * /*bus*/, const char *path, const char * /*interface*/,
			      const char *property, sd_bus_message *reply, void *userdata,
			      sd_bus_error * /*error*/)
	{
		auto *self = static_cast<FakeManager *>(userdata);
		char *decoded = nullptr;
		if (sd_bus_path_decode(path, "/org/freedesktop/systemd1/unit", &decoded) <= 0)
			return -ENOENT;
		const std::string unit = decoded;
		free(decoded); /* NOLINT(cppcoreguidelines-no-malloc): sd-bus's allocation */
		const std::lock_guard lock(self->mutex_);
		const std::string value = std::string(property) == "Result"
						  ? self->unitResults_[unit]
						  : std::string("active");
		return sd_bus_message_append(reply, "s", value.c_str());
	}

	UniqueFd listener_;
	std::thread thread_;
	std::atomic<bool> stop_{ false };
	std::atomic<uint32_t> jobs_{ 0 };
	std::atomic<bool> removedFirst_{ false };
	std::atomic<bool> anotherFirst_{ false };
	std::atomic<int> named_{ 0 }; /* on a bus: 1 owns systemd's name, -1 could not */
	mutable std::mutex mutex_;
	std::map<std::string, std::string> jobResults_;
	std::map<std::string, std::string> unitResults_;
	std::vector<std::string> calls_;
};

class BusUnitsTest : public ::testing::Test
{
protected:
	BusUnits units(std::chrono::milliseconds timeout = 5s)
	{
		return BusUnits(timeout, "unix:path=" + socket_);
	}

	TempDir dir_;
	const std::string socket_ = dir_.path() + "/private";
	FakeManager manager_{ socket_ };
};

TEST_F(BusUnitsTest, AStartWaitsForItsJobToEnd)
{
	manager_.script("rbd-fuse@a.service", "done");
	BusUnits bus = units();
	ASSERT_TRUE(bus.start("rbd-fuse", "a"));
	ASSERT_TRUE(bus.stop("rbd-fuse", "a"));
	ASSERT_TRUE(bus.reload("rbd-fuse", "a"));
	EXPECT_EQ(manager_.calls(),
		  (std::vector<std::string>{ "StartUnit rbd-fuse@a.service replace",
					     "StopUnit rbd-fuse@a.service replace",
					     "ReloadUnit rbd-fuse@a.service replace" }));
}

TEST_F(BusUnitsTest, AFailedJobNamesTheUnitsResult)
{
	manager_.script("rbd-nbd@b.service", "failed", "exit-code");
	auto started = units().start("rbd-nbd", "b");
	ASSERT_FALSE(started);
	EXPECT_EQ(started.error().code, Errc::Io);
	const std::string &message = started.error().message;
	EXPECT_NE(message.find("start of rbd-nbd@b.service failed: its job ended 'failed'"),
		  std::string::npos)
		<< message;
	EXPECT_NE(message.find("the unit's result is 'exit-code'"), std::string::npos) << message;
	EXPECT_NE(message.find("journalctl -u rbd-nbd@b.service"), std::string::npos) << message;
}

/* PID 1 may end a job before its caller has read the reply: the end is not missed. */
TEST_F(BusUnitsTest, AJobThatEndsBeforeTheReplyIsSeen)
{
	manager_.script("rbd-fuse@c.service", "done");
	manager_.endJobsBeforeReplying();
	EXPECT_TRUE(units(2s).start("rbd-fuse", "c"));
}

/* Every job's end reaches every connection: only our job's counts. */
TEST_F(BusUnitsTest, AnotherJobsEndIsNotOurs)
{
	manager_.script("rbd-fuse@d.service", "failed", "signal");
	manager_.endAnotherJobFirst();
	EXPECT_FALSE(units().start("rbd-fuse", "d"));
	manager_.script("rbd-fuse@d.service", "done");
	EXPECT_TRUE(units().start("rbd-fuse", "d"));
}

TEST_F(BusUnitsTest, AJobThatNeverEndsTimesOut)
{
	manager_.script("rbd-fuse@e.service", "");
	const auto began = std::chrono::steady_clock::now();
	auto started = units(300ms).start("rbd-fuse", "e");
	ASSERT_FALSE(started);
	EXPECT_EQ(started.error().code, Errc::Timeout);
	EXPECT_NE(started.error().message.find("did not finish within 0.3 s; systemd goes on"),
		  std::string::npos)
		<< started.error().message;
	EXPECT_LT(std::chrono::steady_clock::now() - began, 3s);
}

TEST_F(BusUnitsTest, ActiveStateIsRead)
{
	auto state = units().activeState("rbd-nbd", "f");
	ASSERT_TRUE(state) << state.error().message;
	EXPECT_EQ(*state, "active");
}

TEST_F(BusUnitsTest, ResultIsReadFromTheServiceInterface)
{
	manager_.script("rbd-nbd@h.service", "done", "signal");
	auto result = units().result("rbd-nbd", "h");
	ASSERT_TRUE(result) << result.error().message;
	EXPECT_EQ(*result, "signal");
}

TEST_F(BusUnitsTest, ASkippedJobIsDoneAsForSystemctl)
{
	manager_.script("rbd-fuse@g.service", "skipped");
	EXPECT_TRUE(units().reload("rbd-fuse", "g"));
}

/* A manager that accepts the connection but never answers holds us to our timeout only. */
TEST(BusUnits, AManagerThatNeverAnswersTimesOut)
{
	const TempDir dir;
	const std::string path = dir.path() + "/silent";
	const UniqueFd listener(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
	sockaddr_un address{};
	address.sun_family = AF_UNIX;
	path.copy(address.sun_path, sizeof address.sun_path - 1);
	ASSERT_EQ(
		bind(listener.get(), reinterpret_cast<const sockaddr *>(&address), sizeof address),
		0);
	ASSERT_EQ(listen(listener.get(), 4), 0);
	const auto began = std::chrono::steady_clock::now();
	auto state = BusUnits(300ms, "unix:path=" + path).activeState("rbd-nbd", "a");
	ASSERT_FALSE(state);
	EXPECT_EQ(state.error().code, Errc::Timeout) << state.error().message;
	EXPECT_LT(std::chrono::steady_clock::now() - began, 3s);
}

TEST(BusUnits, NoManagerIsUnreachable)
{
	const TempDir dir;
	auto started = BusUnits(1s, "unix:path=" + dir.path() + "/none").start("rbd-fuse", "a");
	ASSERT_FALSE(started);
	EXPECT_EQ(started.error().code, Errc::Unreachable);
}

/* Not root, as the dry run of an operator's shell: systemd answers by its name on the system bus. */
class BusUnitsOnABus : public ::testing::Test
{
protected:
	void SetUp() override
	{
		std::string problem;
		bus_ = PrivateBus::start(problem);
		if (!problem.empty()) {
			if (integrationRequired())
				FAIL() << "RBDV_REQUIRE_INTEGRATION=1 but " << problem;
			GTEST_SKIP() << problem;
		}
	}

	BusUnits units() const { return BusUnits(5s, bus_->address(), true); }

	std::unique_ptr<PrivateBus> bus_;
};

TEST_F(BusUnitsOnABus, StatesAreReadFromWhoeverOwnsSystemdsName)
{
	FakeManager manager(BusClient{ bus_->address() });
	ASSERT_TRUE(manager.waitNamed());
	manager.script("rbd-nbd@b.service", "done", "exit-code");
	auto state = units().activeState("rbd-nbd", "b");
	ASSERT_TRUE(state) << state.error().message;
	EXPECT_EQ(*state, "active");
	auto result = units().result("rbd-nbd", "b");
	ASSERT_TRUE(result) << result.error().message;
	EXPECT_EQ(*result, "exit-code");
}

TEST_F(BusUnitsOnABus, AJobSubscribesBeforeItWaitsForItsEnd)
{
	FakeManager manager(BusClient{ bus_->address() });
	ASSERT_TRUE(manager.waitNamed());
	manager.script("rbd-nbd@c.service", "done");
	auto started = units().start("rbd-nbd", "c");
	ASSERT_TRUE(started) << started.error().message;
	EXPECT_EQ(manager.calls(),
		  (std::vector<std::string>{ "Subscribe", "StartUnit rbd-nbd@c.service replace" }));
}

TEST_F(BusUnitsOnABus, NoOwnerOfSystemdsNameIsNoAnswer)
{
	auto state = units().activeState("rbd-nbd", "d");
	ASSERT_FALSE(state);
	EXPECT_NE(state.error().message.find("who answers as systemd"), std::string::npos)
		<< state.error().message;
}

} /* namespace */
} /* namespace rbdvolume::testing */
