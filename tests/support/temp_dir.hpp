/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A temporary directory for one test, removed with it. */
#pragma once

#include <filesystem>
#include <fstream>
#include <string>

namespace rbdvolume::testing {

class TempDir
{
public:
	TempDir()
	{
		std::string pattern =
			(std::filesystem::temp_directory_path() / "rbdv-unit-XXXXXX").string();
		path_ = mkdtemp(pattern.data()) ? pattern : std::string();
	}
	~TempDir() { std::filesystem::remove_all(path_); }
	TempDir(const TempDir &) = delete;
	TempDir &operator=(const TempDir &) = delete;
	TempDir(TempDir &&) = delete;
	TempDir &operator=(TempDir &&) = delete;

	const std::string &path() const { return path_; }

	/* Writes `text` to path()/relative, making directories. */
	void write(const std::string &relative, const std::string &text) const
	{
		const std::filesystem::path file = std::filesystem::path(path_) / relative;
		std::filesystem::create_directories(file.parent_path());
		std::ofstream(file, std::ios::binary) << text;
	}

private:
	std::string path_;
};

} /* namespace rbdvolume::testing */
