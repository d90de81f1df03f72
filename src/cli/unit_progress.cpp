/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "cli/unit_progress.hpp"

#include <cstdlib>

#include <systemd/sd-daemon.h>

#include "common/text_escape.hpp"

namespace rbdvolume::cli {

std::shared_ptr<UnitProgress> UnitProgress::fromEnvironment()
{
	/* Read before any thread exists. */
	if (std::getenv("NOTIFY_SOCKET") == nullptr) /* NOLINT(concurrency-mt-unsafe) */
		return nullptr;
	return std::make_shared<UnitProgress>();
}

void UnitProgress::activity(const std::string &text)
{
	activity_ = text;
	since_ = Clock::now();
	heartbeat();
}

void UnitProgress::heartbeat() const
{
	(void)sd_notify(0, message(Clock::now()).c_str());
}

std::string UnitProgress::message(Clock::time_point now) const
{
	const auto extension = std::chrono::duration_cast<std::chrono::microseconds>(Extension);
	std::string text = "EXTEND_TIMEOUT_USEC=" + std::to_string(extension.count());
	if (activity_.empty())
		return text;
	const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(now - since_);
	/* One line: the status is the host's bytes, escaped as a terminal gets them. */
	return text + "\nSTATUS=" + terminalSafe(activity_) + ", " +
	       std::to_string(seconds.count()) + " s";
}

} /* namespace rbdvolume::cli */
