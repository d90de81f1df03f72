/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "host/intent_files.hpp"

#include <filesystem>
#include <unistd.h>

#include "common/file_io.hpp"
#include "common/fs_util.hpp"
#include "common/volume_name.hpp"

namespace rbdvolume {

std::map<std::string, Intent> IntentFiles::loadAll() const
{
	std::map<std::string, Intent> intents;
	std::error_code ec;
	for (const auto &entry : std::filesystem::directory_iterator(directory_, ec)) {
		const std::string name = entry.path().filename().string();
		if (!isValidVolumeName(name) || isAtomicWriteTemporary(name))
			continue;
		if (auto intent = load(name))
			intents[name] = *intent;
	}
	return intents;
}

std::optional<Intent> IntentFiles::load(const std::string &volume) const
{
	auto text = readFile(directory_ + "/" + volume);
	if (!text || !*text)
		return std::nullopt;
	return intentFromName((*text)->substr(0, (*text)->find('\n')));
}

Result<void> IntentFiles::save(const std::string &volume, Intent intent) const
{
	if (auto made = makeDirectories(directory_, 0755); !made)
		return made;
	return writeFileAtomic(directory_ + "/" + volume, std::string(intentName(intent)) + "\n",
			       0644);
}

void IntentFiles::remove(const std::string &volume) const
{
	(void)unlink((directory_ + "/" + volume).c_str());
}

} /* namespace rbdvolume */
