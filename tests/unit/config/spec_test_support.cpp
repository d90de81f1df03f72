/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Where the spec tests find their data and the rbd-volumectl binary. */
#include "spec_test_support.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace rbdvolume::test {

namespace {

std::string environmentOr(const char *name, const std::string &fallback)
{
	const char *value = std::getenv(name);
	return value != nullptr && *value != '\0' ? std::string(value) : fallback;
}

} /* namespace */

std::string testDataDir()
{
	return environmentOr("RBDV_TEST_DATA", "tests/data");
}

std::string exampleSpecPath()
{
	const std::filesystem::path fallback =
		std::filesystem::path(testDataDir()) / ".." / ".." / "conf" / "example.toml";
	return environmentOr("RBDV_EXAMPLE_SPEC", fallback.lexically_normal().string());
}

std::string volumectlPath()
{
	return environmentOr("RBDV_VOLUMECTL", "");
}

std::vector<std::string> filesIn(const std::string &dir, const std::string &suffix)
{
	std::vector<std::string> files;
	std::error_code error;
	for (const auto &entry : std::filesystem::directory_iterator(dir, error)) {
		const std::string name = entry.path().filename().string();
		const bool matches =
			name.size() >= suffix.size() &&
			name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
		if (entry.is_regular_file() && matches)
			files.push_back(entry.path().string());
	}
	std::sort(files.begin(), files.end());
	return files;
}

void writeFile(const std::string &path, const std::string &text)
{
	std::ofstream(path, std::ios::binary) << text;
}

} /* namespace rbdvolume::test */
