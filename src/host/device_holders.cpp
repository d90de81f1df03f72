/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "host/device_holders.hpp"

#include <algorithm>
#include <filesystem>
#include <set>
#include <sstream>

#include "common/fs_util.hpp"

namespace rbdvolume {

namespace {

/* A mount table of ten thousand entries is about a megabyte. */
constexpr size_t MountinfoBytes = size_t{ 16 } << 20;

std::string linkTarget(const std::string &path)
{
	std::error_code ec;
	return std::filesystem::read_symlink(path, ec).string();
}

/* The mount points of device MAJ:MIN in one /proc/PID/mountinfo (escaped as there). */
std::vector<std::string> mountsOf(const std::string &mountinfo, const std::string &devNumber)
{
	std::vector<std::string> targets;
	auto text = readFile(mountinfo, MountinfoBytes);
	if (!text || !*text)
		return targets;
	std::istringstream lines(**text);
	std::string line;
	while (std::getline(lines, line)) {
		/* ID PARENT MAJ:MIN ROOT TARGET ... */
		std::istringstream fields(line);
		std::string id;
		std::string parent;
		std::string number;
		std::string root;
		std::string target;
		if (fields >> id >> parent >> number >> root >> target && number == devNumber)
			targets.push_back(target);
	}
	return targets;
}

class Found
{
public:
	explicit Found(size_t limit) : limit_(limit) {}

	void add(std::string line)
	{
		if (lines_.size() < limit_)
			lines_.push_back(std::move(line));
		else
			more_++;
	}

	std::vector<std::string> take()
	{
		if (more_ != 0)
			lines_.push_back("... and " + std::to_string(more_) + " more");
		return std::move(lines_);
	}

private:
	size_t limit_;
	size_t more_ = 0;
	std::vector<std::string> lines_;
};

} /* namespace */

std::vector<std::string> deviceHolders(const SystemRoots &roots, const std::string &device,
				       size_t limit)
{
	Found found(limit);
	const std::string name = std::filesystem::path(device).filename().string();
	const std::string block = roots.sysfs + "/block/" + name;
	for (const std::string &holder : sortedEntries(block + "/holders")) {
		const std::string dmName =
			attributeText(roots.sysfs + "/block/" + holder + "/dm/name");
		found.add("held by " + holder + (dmName.empty() ? "" : " (" + dmName + ")"));
	}

	const std::string devNumber = attributeText(block + "/dev");
	const std::string ownNamespace = linkTarget(roots.proc + "/self/ns/mnt");
	std::set<std::string> namespaces;
	for (const std::string &pid : sortedEntries(roots.proc)) {
		if (pid.find_first_not_of("0123456789") != std::string::npos)
			continue;
		const std::string base = roots.proc + "/" + pid;
		const auto who = [&] {
			return "pid " + pid + " (" + attributeText(base + "/comm") + ")";
		};
		/* Each mount namespace once: its first process stands for it. */
		const std::string ns = linkTarget(base + "/ns/mnt");
		if (!devNumber.empty() && !ns.empty() && namespaces.insert(ns).second) {
			for (const std::string &target : mountsOf(base + "/mountinfo", devNumber))
				found.add("mounted at " + target +
					  (ns == ownNamespace
						   ? std::string()
						   : " in the mount namespace of " + who()));
		}
		const std::vector<std::string> fds = sortedEntries(base + "/fd");
		if (std::any_of(fds.begin(), fds.end(), [&](const std::string &fd) {
			    return linkTarget(base + "/fd/" + fd) == device;
		    }))
			found.add("open by " + who());
	}
	return found.take();
}

std::string deviceHoldersText(const std::vector<std::string> &holders, const std::string &none)
{
	if (holders.empty())
		return none;
	std::string text;
	for (const std::string &holder : holders)
		text += (text.empty() ? "" : "; ") + holder;
	return text;
}

} /* namespace rbdvolume */
