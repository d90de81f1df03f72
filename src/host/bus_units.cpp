/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "host/bus_units.hpp"

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <unistd.h>

#include "common/errno_text.hpp"
#include "common/sd_ptr.hpp"

namespace rbdvolume {

namespace {

using Clock = std::chrono::steady_clock;

constexpr const char *Systemd = "org.freedesktop.systemd1";
constexpr const char *ManagerPath = "/org/freedesktop/systemd1";
constexpr const char *ManagerInterface = "org.freedesktop.systemd1.Manager";
constexpr const char *UnitInterface = "org.freedesktop.systemd1.Unit";
constexpr const char *ServiceInterface = "org.freedesktop.systemd1.Service";

/* Every job that ended on this connection, by path: ours may end before its path is known. */
struct JobsEnded {
	std::map<std::string, std::string> results;
};

int onJobRemoved(sd_bus_message *message, void *userdata, sd_bus_error * /*error*/)
{
	uint32_t id = 0;
	const char *job = nullptr;
	const char *unit = nullptr;
	const char *result = nullptr;
	if (sd_bus_message_read(message, "uoss", &id, &job, &unit, &result) >= 0)
		static_cast<JobsEnded *>(userdata)->results[job] = result;
	return 0;
}

uint64_t usecUntil(Clock::time_point deadline)
{
	const auto left =
		std::chrono::duration_cast<std::chrono::microseconds>(deadline - Clock::now());
	return left.count() > 0 ? static_cast<uint64_t>(left.count()) : 1;
}

std::string seconds(std::chrono::milliseconds duration)
{
	return std::to_string(duration.count() / 1000) + "." +
	       std::to_string(duration.count() % 1000 / 100) + " s";
}

/*
 * Closed without a flush: flushing a connection whose handshake never
 * finished waits for it, up to sd-bus's own 90 s. Nothing we send needs to
 * outlive the call that waits for its answer.
 */
using UnitBusPtr = CHandle<sd_bus, sd_bus_close_unref>;

Result<UnitBusPtr> connect(const std::string &address, bool busClient, Clock::time_point deadline)
{
	sd_bus *raw = nullptr;
	int r = sd_bus_new(&raw);
	if (r < 0)
		return failErrno("cannot create a bus connection", -r);
	UnitBusPtr bus(raw);
	r = sd_bus_set_address(raw, address.c_str());
	if (r >= 0)
		r = sd_bus_set_bus_client(raw, busClient ? 1 : 0);
	if (r >= 0)
		r = sd_bus_set_method_call_timeout(raw, usecUntil(deadline));
	if (r >= 0)
		r = sd_bus_start(raw);
	/*
	 * sd_bus_start() only begins the handshake, and the first call would
	 * wait for PID 1's answer up to sd-bus's own 90 s whatever our
	 * timeout: a busy PID 1 still accepts the connection. So the handshake
	 * is awaited here, to the deadline.
	 */
	while (r >= 0 && (r = sd_bus_is_ready(raw)) == 0) {
		if (Clock::now() >= deadline)
			return fail(Errc::Timeout,
				    "systemd at " + address + " did not answer in time");
		if ((r = sd_bus_process(raw, nullptr)) == 0)
			r = sd_bus_wait(raw, usecUntil(deadline));
	}
	if (r < 0)
		return fail(Errc::Unreachable,
			    "cannot reach systemd at " + address + ": " + errnoText(-r), -r);
	/* As systemctl checks: only root (or we ourselves) may answer as systemd. On
	 * a bus that is whoever owns systemd's name, not the bus daemon. */
	sd_bus_creds *rawCreds = nullptr;
	uid_t peer = 0;
	r = busClient ? sd_bus_get_name_creds(raw, Systemd, SD_BUS_CREDS_EUID, &rawCreds)
		      : sd_bus_get_owner_creds(raw, SD_BUS_CREDS_EUID, &rawCreds);
	const CredsPtr creds(rawCreds);
	if (r >= 0)
		r = sd_bus_creds_get_euid(rawCreds, &peer);
	if (r < 0)
		return failErrno("cannot tell who answers as systemd at " + address, -r);
	if (peer != 0 && peer != geteuid())
		return fail(Errc::PermissionDenied, "the socket at " + address +
							    " is served by uid " +
							    std::to_string(peer) + ", not by root");
	return bus;
}

/* A string property of UNIT's object: of the Unit interface, or of another (Service). */
Result<std::string> unitProperty(sd_bus *bus, const std::string &unit, const char *property,
				 const char *interface = UnitInterface)
{
	char *raw = nullptr;
	int r = sd_bus_path_encode("/org/freedesktop/systemd1/unit", unit.c_str(), &raw);
	if (r < 0)
		return failErrno("cannot name " + unit + " on the bus", -r);
	const std::string path = raw;
	free(raw); /* NOLINT(cppcoreguidelines-no-malloc): sd_bus_path_encode's allocation */
	ScopedBusError error;
	char *value = nullptr;
	/* systemd loads a unit that is not loaded yet when its object is asked for. */
	r = sd_bus_get_property_string(bus, Systemd, path.c_str(), interface, property, error.get(),
				       &value);
	if (r < 0)
		return fail(Errc::Io,
			    "cannot read " + std::string(property) + " of " + unit + ": " +
				    (error.isSet() ? error.message() : errnoText(-r)),
			    -r);
	std::string text = value;
	free(value); /* NOLINT(cppcoreguidelines-no-malloc): sd-bus's allocation */
	return text;
}

/* "start", "stop", "reload" of the Manager's method names, for messages. */
std::string verbOf(const char *method)
{
	const std::string name = method;
	const std::string verb = name.substr(0, name.find("Unit"));
	std::string lower;
	for (const char c : verb)
		lower += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
	return lower;
}

} /* namespace */

Result<void> BusUnits::runJob(const char *method, const std::string &unit,
			      std::chrono::milliseconds timeout)
{
	const std::string what = verbOf(method) + " of " + unit;
	const Clock::time_point deadline = Clock::now() + timeout;
	auto bus = connect(address_, busClient_, deadline);
	if (!bus)
		return tl::make_unexpected(bus.error());
	sd_bus *raw = bus->get();

	/* Before the call: its job may end before the reply is read. A direct
	 * connection has no sender names, and PID 1 sends it every signal
	 * without a Subscribe(). */
	JobsEnded ended;
	sd_bus_slot *slot = nullptr;
	int r = sd_bus_match_signal(raw, &slot, nullptr, ManagerPath, ManagerInterface,
				    "JobRemoved", onJobRemoved, &ended);
	if (r < 0)
		return failErrno("cannot watch systemd's jobs", -r);
	const SlotPtr watching(slot);
	/* Over a bus, systemd sends its job signals only to clients that asked. */
	if (busClient_) {
		ScopedBusError error;
		r = sd_bus_call_method(raw, Systemd, ManagerPath, ManagerInterface, "Subscribe",
				       error.get(), nullptr, "");
		if (r < 0)
			return fail(Errc::Io,
				    what + ": cannot subscribe to systemd's jobs: " +
					    (error.isSet() ? error.message() : errnoText(-r)),
				    -r);
	}

	ScopedBusError error;
	sd_bus_message *reply = nullptr;
	r = sd_bus_call_method(raw, Systemd, ManagerPath, ManagerInterface, method, error.get(),
			       &reply, "ss", unit.c_str(), "replace");
	const MessagePtr answered(reply);
	if (r < 0) {
		if (r == -ETIMEDOUT)
			return fail(Errc::Timeout,
				    what + ": systemd did not answer within " + seconds(timeout),
				    -r);
		return fail(Errc::Io,
			    what + " failed: " + (error.isSet() ? error.message() : errnoText(-r)),
			    -r);
	}
	const char *job = nullptr;
	if ((r = sd_bus_message_read(reply, "o", &job)) < 0)
		return failErrno(what + ": systemd's answer is unreadable", -r);
	const std::string jobPath = job;

	for (;;) {
		if (const auto found = ended.results.find(jobPath); found != ended.results.end()) {
			/* As systemctl: "skipped" is a job that did not apply to the unit's state. */
			if (found->second == "done" || found->second == "skipped")
				return {};
			const auto result = unitProperty(raw, unit, "Result", ServiceInterface);
			return fail(Errc::Io,
				    what + " failed: its job ended '" + found->second + "'" +
					    (result ? ", the unit's result is '" + *result + "'"
						    : std::string()) +
					    "; see journalctl -u " + unit);
		}
		if ((r = sd_bus_process(raw, nullptr)) < 0)
			return failErrno(what + ": lost systemd", -r);
		if (r > 0)
			continue;
		if (Clock::now() >= deadline)
			return fail(Errc::Timeout, what + " did not finish within " +
							   seconds(timeout) +
							   "; systemd goes on with it");
		if ((r = sd_bus_wait(raw, usecUntil(deadline))) < 0)
			return failErrno(what + ": lost systemd", -r);
	}
}

BusUnits BusUnits::forThisUser(std::chrono::milliseconds timeout)
{
	if (geteuid() == 0)
		return BusUnits(timeout);
	/* As sd_bus_open_system() reads it; called before any thread of ours. */
	const char *address =
		std::getenv("DBUS_SYSTEM_BUS_ADDRESS"); /* NOLINT(concurrency-mt-unsafe) */
	return BusUnits(timeout, address != nullptr ? address : SystemBusAddress, true);
}

Result<void> BusUnits::start(const std::string &templateName, const std::string &instance)
{
	return runJob("StartUnit", unitName(templateName, instance), timeout_);
}

Result<void> BusUnits::stop(const std::string &templateName, const std::string &instance)
{
	return runJob("StopUnit", unitName(templateName, instance), timeout_);
}

Result<void> BusUnits::reload(const std::string &templateName, const std::string &instance)
{
	return runJob("ReloadUnit", unitName(templateName, instance),
		      std::min<std::chrono::milliseconds>(timeout_, ReloadTimeout));
}

Result<std::string> BusUnits::activeState(const std::string &templateName,
					  const std::string &instance)
{
	const auto timeout = std::min<std::chrono::milliseconds>(timeout_, StateTimeout);
	auto bus = connect(address_, busClient_, Clock::now() + timeout);
	if (!bus)
		return tl::make_unexpected(bus.error());
	return unitProperty(bus->get(), unitName(templateName, instance), "ActiveState");
}

Result<std::string> BusUnits::result(const std::string &templateName, const std::string &instance)
{
	const auto timeout = std::min<std::chrono::milliseconds>(timeout_, StateTimeout);
	auto bus = connect(address_, busClient_, Clock::now() + timeout);
	if (!bus)
		return tl::make_unexpected(bus.error());
	return unitProperty(bus->get(), unitName(templateName, instance), "Result",
			    ServiceInterface);
}

Result<std::string> BusUnits::subState(const std::string &templateName, const std::string &instance)
{
	const auto timeout = std::min<std::chrono::milliseconds>(timeout_, StateTimeout);
	auto bus = connect(address_, busClient_, Clock::now() + timeout);
	if (!bus)
		return tl::make_unexpected(bus.error());
	return unitProperty(bus->get(), unitName(templateName, instance), "SubState");
}

} /* namespace rbdvolume */
