/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "csi/runtime_files.hpp"

#include <cerrno>
#include <unistd.h>

#include <sys/stat.h>

#include "common/errno_text.hpp"
#include "common/fs_util.hpp"
#include "config/spec_parser.hpp"
#include "config/spec_render.hpp"

namespace rbdvolume::csi {

namespace {

Result<void> removeFile(const std::string &path)
{
	if (unlink(path.c_str()) == 0 || errno == ENOENT)
		return {};
	return failErrno("cannot remove " + path, errno);
}

std::string diagnosticsText(const std::vector<Diagnostic> &diagnostics)
{
	std::string text;
	for (const Diagnostic &d : diagnostics)
		text += (text.empty() ? "" : "; ") + d.format();
	return text;
}

} /* namespace */

RuntimeFiles::RuntimeFiles(std::string runtimeDir) : runtimeDir_(std::move(runtimeDir))
{
}

std::string RuntimeFiles::specPath(const std::string &name) const
{
	return runtimeDir_ + "/volumes/" + name + ".toml";
}

std::string RuntimeFiles::csiDir() const
{
	return runtimeDir_ + "/csi";
}

std::string RuntimeFiles::keyPath(const std::string &name) const
{
	return csiDir() + "/" + name + ".key";
}

std::string RuntimeFiles::confPath(const std::string &name) const
{
	return csiDir() + "/" + name + ".conf";
}

Result<void> RuntimeFiles::ensureCsiDir() const
{
	if (auto made = makeDirectories(csiDir(), 0700); !made)
		return made;
	/* Keys live here: whoever made the directory, only root reads it. */
	if (chmod(csiDir().c_str(), 0700) < 0)
		return failErrno("cannot restrict " + csiDir(), errno);
	return {};
}

Result<std::optional<VolumeSpec>> RuntimeFiles::readSpec(const std::string &name) const
{
	const std::string path = specPath(name);
	auto text = readFile(path);
	if (!text)
		return tl::make_unexpected(text.error());
	if (!*text)
		return std::optional<VolumeSpec>{};
	SpecOutcome outcome = parseVolumeSpec(**text, path);
	if (!outcome.ok())
		return fail(Errc::InvalidArgument,
			    "the runtime spec is invalid: " + diagnosticsText(outcome.diagnostics));
	return std::optional<VolumeSpec>{ std::move(outcome.spec) };
}

Result<bool> RuntimeFiles::writeSpec(const VolumeSpec &spec, const std::string &volumeId) const
{
	const std::string path = specPath(spec.name);
	const std::string text =
		renderVolumeSpec(spec, "Written by rbd-volume-csi for CSI volume " + volumeId +
					       ".\nRemoved at NodeUnstageVolume; do not edit.");
	/* Never hand the daemon a spec it would refuse: check it as it will. */
	if (const SpecOutcome check = parseVolumeSpec(text, path); !check.ok())
		return fail(Errc::InvalidArgument, "the runtime spec would be invalid: " +
							   diagnosticsText(check.diagnostics));
	auto old = readFile(path);
	if (old && *old && **old == text)
		return false;
	if (auto made = makeDirectories(runtimeDir_ + "/volumes", 0755); !made)
		return tl::make_unexpected(made.error());
	if (auto written = writeFileAtomic(path, text, 0644); !written)
		return tl::make_unexpected(written.error());
	return true;
}

Result<std::optional<std::string>> RuntimeFiles::recordedVolumeId(const std::string &name) const
{
	auto text = readFile(csiDir() + "/" + name + ".id");
	if (!text)
		return tl::make_unexpected(text.error());
	if (!*text)
		return std::optional<std::string>{};
	std::string id = std::move(**text);
	if (!id.empty() && id.back() == '\n')
		id.pop_back();
	return std::optional<std::string>{ std::move(id) };
}

Result<void> RuntimeFiles::claimName(const std::string &name, const std::string &volumeId) const
{
	auto recorded = recordedVolumeId(name);
	if (!recorded)
		return tl::make_unexpected(recorded.error());
	if (*recorded && **recorded == volumeId)
		return {};
	if (*recorded)
		return fail(Errc::Conflict, "volume " + volumeId + " maps to the rbd-volume name " +
						    name + ", which volume " + **recorded +
						    " already holds on this node");
	if (auto made = ensureCsiDir(); !made)
		return made;
	return writeFileAtomic(csiDir() + "/" + name + ".id", volumeId + "\n", 0600);
}

Result<void> RuntimeFiles::writeKey(const std::string &name, const std::string &key) const
{
	if (auto made = ensureCsiDir(); !made)
		return made;
	auto old = readFile(keyPath(name));
	if (old && *old && **old == key + "\n")
		return {};
	return writeFileAtomic(keyPath(name), key + "\n", 0600);
}

Result<void> RuntimeFiles::writeConf(const std::string &name, const std::string &text) const
{
	if (auto made = ensureCsiDir(); !made)
		return made;
	auto old = readFile(confPath(name));
	if (old && *old && **old == text)
		return {};
	return writeFileAtomic(confPath(name), text, 0644);
}

Result<void> RuntimeFiles::removeAll(const std::string &name) const
{
	/* The spec first: without it nothing refers to the key any more. */
	for (const std::string &path :
	     { specPath(name), keyPath(name), confPath(name), csiDir() + "/" + name + ".id" }) {
		if (auto removed = removeFile(path); !removed)
			return removed;
	}
	return {};
}

} /* namespace rbdvolume::csi */
