/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "host/fs_tools.hpp"

namespace rbdvolume {

namespace {

/* e2fsck's exit status is a bit mask; 4 means errors were left uncorrected. */
constexpr int FsckErrorsUncorrected = 4;

} /* namespace */

/*
 * Fast and safe on a fresh thin image: no discard pass over the whole image,
 * lazy inode tables (the kernel zeroes them in the background), never -F/-f.
 * The journal is left unwritten only on a device known to hold zeroes:
 * "blank" to libblkid does not mean zeroed, and an old journal's blocks
 * could be replayed. That saves writing up to 1 GiB on a large image.
 */
Command mkfsCommand(const ToolConfig &tools, const std::string &device, const FilesystemSpec &fs,
		    DeviceContents contents)
{
	Command command;
	command.timeout = tools.mkfsTimeout;
	if (fs.type == FsType::Xfs)
		command.argv = { tools.mkfsXfs, "-q", "-K" };
	else
		command.argv = { tools.mkfsExt4,
				 "-q",
				 "-m",
				 "0",
				 "-E",
				 contents == DeviceContents::Zeroes
					 ? "nodiscard,lazy_itable_init=1,lazy_journal_init=1"
					 : "nodiscard,lazy_itable_init=1" };
	command.argv.insert(command.argv.end(), fs.mkfsOptions.begin(), fs.mkfsOptions.end());
	command.argv.push_back(device);
	return command;
}

Command fsckCommand(const ToolConfig &tools, const std::string &device)
{
	Command command;
	command.timeout = tools.fsckTimeout;
	command.argv = { tools.e2fsck, "-p", device };
	return command;
}

/*
 * xfs grows only online, through its mount point. ext4 grows online with
 * resize2fs on the device; offline, resize2fs insists on a forced fsck first.
 */
std::vector<Command> growCommands(const ToolConfig &tools, const std::string &device,
				  const std::string &mountPoint, const FilesystemSpec &fs)
{
	Command grow;
	grow.timeout = tools.growTimeout;
	if (fs.type == FsType::Xfs) {
		grow.argv = { tools.xfsGrowfs, mountPoint };
		return { grow };
	}
	grow.argv = { tools.resize2fs, device };
	if (!mountPoint.empty())
		return { grow };
	Command check = fsckCommand(tools, device);
	check.argv.insert(check.argv.begin() + 1, "-f");
	return { check, grow };
}

Result<std::string> ToolFilesystems::format(const std::string &device, const FilesystemSpec &fs,
					    DeviceContents contents)
{
	const Command command = mkfsCommand(tools_, device, fs, contents);
	auto output = runner_.run(command);
	if (!output)
		return tl::make_unexpected(output.error());
	if (!output->succeeded())
		return fail(Errc::Io, "'" + command.argv.front() + "' failed on " + device + ": " +
					      output->describe());
	return quoteArgv(command.argv);
}

/*
 * As kubelet does: fsck (preen) an ext4 filesystem before a read-write mount;
 * corrected errors are fine, uncorrected ones fail the stage. XFS checks and
 * replays its log at mount time, and xfs_repair is no preen tool.
 */
Result<std::string> ToolFilesystems::check(const std::string &device, const FilesystemSpec &fs)
{
	if (fs.type != FsType::Ext4)
		return std::string("not checked: xfs checks its log when it mounts");
	const Command command = fsckCommand(tools_, device);
	auto output = runner_.run(command);
	if (!output)
		return tl::make_unexpected(output.error());
	if (output->termSignal != 0 || (output->exitStatus & FsckErrorsUncorrected) != 0)
		return fail(Errc::Conflict,
			    "fsck found errors on " + device +
				    " that it could not correct: " + output->describe());
	/* e2fsck's bit 1: errors were found and corrected. A replayed journal (a crash, a
	 * power cut) is no error: it says so, and e2fsck may still exit 0. */
	std::string verdict =
		output->exitStatus == 0 ? "clean" : "errors corrected (" + output->describe() + ")";
	if (output->out.find("recovering journal") != std::string::npos)
		verdict += ", its journal replayed";
	return verdict;
}

Result<Change> ToolFilesystems::grow(const std::string &device, const std::string &mountPoint,
				     const FilesystemSpec &fs)
{
	if (fs.type == FsType::Xfs && mountPoint.empty())
		return fail(Errc::Unsupported, "xfs grows only while mounted");
	Change change = Change::Unchanged;
	for (const Command &command : growCommands(tools_, device, mountPoint, fs)) {
		auto output = runner_.run(command);
		if (!output)
			return tl::make_unexpected(output.error());
		const bool fsck = command.argv.front() == tools_.e2fsck;
		if (fsck && output->termSignal == 0 &&
		    (output->exitStatus & FsckErrorsUncorrected) == 0)
			continue;
		if (output->succeeded()) {
			/* Both tools say when there was nothing to do. */
			const std::string &said = output->out;
			if (said.find("Nothing to do") == std::string::npos &&
			    said.find("data size unchanged") == std::string::npos)
				change = Change::Changed;
			continue;
		}
		if (output->err.find("Permission denied to resize filesystem") != std::string::npos)
			return fail(
				Errc::PermissionDenied,
				"the kernel refused to grow ext4 on " + device +
					" online (resize2fs: Permission denied): root on this "
					"host lacks CAP_SYS_RESOURCE; the filesystem grows offline "
					"when the volume is next staged (take it down and up)",
				EPERM);
		return fail(Errc::Io, "'" + command.argv.front() + "' failed on " + device + ": " +
					      output->describe());
	}
	return change;
}

} /* namespace rbdvolume */
