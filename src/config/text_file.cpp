/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "config/text_file.hpp"

#include <cerrno>

#include "common/file_io.hpp"
#include "common/size_text.hpp"

namespace rbdvolume {

Result<std::optional<std::string>> readSmallTextFile(const std::string &path, size_t maxBytes,
						     std::string_view what)
{
	auto text = readFileBounded(path, maxBytes, Symlinks::Follow);
	if (!text && text.error().sysErrno == EFBIG)
		return fail(Errc::InvalidArgument,
			    "expected " + std::string(what) + " of at most " + sizeText(maxBytes) +
				    ", found a larger file",
			    EFBIG);
	return text;
}

} /* namespace rbdvolume */
