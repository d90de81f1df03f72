/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "bus/errors.hpp"

#include <array>
#include <cerrno>
#include <string>

#include "common/errno_text.hpp"

namespace rbdvolume::bus {

namespace {

constexpr std::string_view DaemonPrefix = "org.rbdvolume1.Error.";
constexpr std::string_view DBusPrefix = "org.freedesktop.DBus.Error.";

struct KnownError {
	std::string_view name; /* without its prefix */
	Errc code;
	std::string_view fallback; /* the message when the reply has none */
};

/*
 * Only NoSuchVolume is Errc::NotFound (exit 5). Error.NotFound names an image
 * or a device the spec refers to: the operation failed (exit 1).
 */
constexpr std::array<KnownError, 9> DaemonErrors = { {
	{ "NoSuchVolume", Errc::NotFound, "no such volume" },
	{ "SpecInvalid", Errc::InvalidArgument, "the volume's spec is invalid" },
	{ "Conflict", Errc::Conflict, "the host holds something in the way" },
	{ "Timeout", Errc::Timeout, "a step ran out of time" },
	{ "Busy", Errc::Busy, "the volume is in use" },
	{ "PermissionDenied", Errc::PermissionDenied, "a key of the volume was refused" },
	{ "NotFound", Errc::Io, "an image or device of the spec does not exist" },
	{ "Failed", Errc::Io, "the operation failed" },
	{ "ShuttingDown", Errc::ShuttingDown, "rbd-volumed is shutting down" },
} };

constexpr std::string_view RunningHint = "is rbd-volumed running? (systemctl status rbd-volumed)";

std::string orFallback(std::string_view message, std::string_view fallback)
{
	return std::string(message.empty() ? fallback : message);
}

bool isConnectionErrno(int err)
{
	switch (err) {
	case ECONNREFUSED:
	case ENOENT:
	case ECONNRESET:
	case ENOTCONN:
	case EPIPE:
	case EHOSTUNREACH:
	case ESHUTDOWN:
		return true;
	default:
		return false;
	}
}

Error errorFromDBus(std::string_view shortName, std::string_view name, std::string_view message)
{
	if (shortName == "AccessDenied")
		return Error{ Errc::PermissionDenied, "permission denied: must be root", 0 };
	if (shortName == "ServiceUnknown" || shortName == "NameHasNoOwner")
		return daemonUnreachable("nothing owns org.rbdvolume1 on the system bus");
	if (shortName == "Disconnected" || shortName == "NoServer")
		return daemonUnreachable(orFallback(message, "disconnected from the system bus"));
	/* We never set a call timeout: no reply means the daemon left the bus mid-call. */
	if (shortName == "NoReply")
		return Error{ Errc::Disconnected,
			      "no reply from rbd-volumed (" + orFallback(message, "no reply") + ")",
			      0 };
	if (shortName == "InvalidArgs")
		return Error{ Errc::InvalidArgument, orFallback(message, "invalid arguments"), 0 };
	if (shortName == "UnknownObject")
		return Error{ Errc::NotFound, orFallback(message, "no such object"), 0 };
	if (shortName == "UnknownMethod" || shortName == "UnknownInterface" ||
	    shortName == "UnknownProperty")
		return Error{ Errc::Unsupported,
			      "rbd-volumed does not know this call (" + orFallback(message, name) +
				      "); is it an older version?",
			      0 };
	return Error{ Errc::Io,
		      std::string(name) + (message.empty() ? "" : ": " + std::string(message)), 0 };
}

} /* namespace */

const char *errorName(Errc code)
{
	switch (code) {
	case Errc::InvalidArgument:
		return "org.rbdvolume1.Error.SpecInvalid";
	case Errc::NotFound:
		return "org.rbdvolume1.Error.NotFound";
	case Errc::Conflict:
		return "org.rbdvolume1.Error.Conflict";
	case Errc::Busy:
		return "org.rbdvolume1.Error.Busy";
	case Errc::Timeout:
		return "org.rbdvolume1.Error.Timeout";
	case Errc::PermissionDenied:
		return "org.rbdvolume1.Error.PermissionDenied";
	case Errc::ShuttingDown:
		return "org.rbdvolume1.Error.ShuttingDown";
	default:
		return "org.rbdvolume1.Error.Failed";
	}
}

Error errorFromBus(std::string_view name, std::string_view message)
{
	if (name.starts_with(DaemonPrefix)) {
		const std::string_view shortName = name.substr(DaemonPrefix.size());
		for (const KnownError &known : DaemonErrors) {
			if (known.name == shortName)
				return Error{ known.code, orFallback(message, known.fallback), 0 };
		}
		/* One this rbd-volumectl does not know yet: its message says enough. */
		return Error{ Errc::Io, orFallback(message, name), 0 };
	}
	if (name.starts_with(DBusPrefix))
		return errorFromDBus(name.substr(DBusPrefix.size()), name, message);
	if (name.empty())
		return Error{ Errc::Io, orFallback(message, "the call failed"), 0 };
	return Error{ Errc::Io,
		      std::string(name) + (message.empty() ? "" : ": " + std::string(message)), 0 };
}

Error errorFromErrno(int negativeErrno, std::string_view what)
{
	const int err = negativeErrno < 0 ? -negativeErrno : negativeErrno;
	const std::string reason = std::string(what) + ": " + errnoText(err);
	if (isConnectionErrno(err))
		return daemonUnreachable(reason);
	if (err == EACCES || err == EPERM)
		return Error{ Errc::PermissionDenied, "permission denied: must be root", 0 };
	if (err == ETIMEDOUT)
		return Error{ Errc::Timeout, reason, 0 };
	return Error{ Errc::Io, reason, err };
}

Error noReplyWithin(uint64_t seconds, const std::string &volume)
{
	const std::string status =
		volume.empty() ? "rbd-volumectl status" : "rbd-volumectl status " + volume;
	return Error{ Errc::Timeout,
		      "no reply within " + std::to_string(seconds) +
			      " s; rbd-volumed carries on (see '" + status + "')",
		      0 };
}

Error daemonUnreachable(std::string_view detail)
{
	return Error{ Errc::Unreachable,
		      "cannot reach rbd-volumed (" + std::string(detail) + "); " +
			      std::string(RunningHint),
		      0 };
}

bool isDaemonGone(const Error &error)
{
	return error.code == Errc::ShuttingDown || error.code == Errc::Disconnected;
}

} /* namespace rbdvolume::bus */
