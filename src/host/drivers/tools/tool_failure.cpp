/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "host/drivers/tools/tool_failure.hpp"

#include <cerrno>

#include "common/errno_text.hpp"

namespace rbdvolume {

/*
 * rbd and rbd-nbd end a failure with "rbd: map failed: (6) No such device
 * or address". rbd's exit status is that errno too, but rbd-nbd's is not,
 * and a 1 may be EPERM or a usage error: the text is what both share.
 */
int cephToolErrno(const std::string &message)
{
	for (size_t open = message.rfind('('); open != std::string::npos;
	     open = open == 0 ? std::string::npos : message.rfind('(', open - 1)) {
		const size_t close = message.find(')', open);
		if (close == std::string::npos)
			continue;
		const std::string digits = message.substr(open + 1, close - open - 1);
		if (!digits.empty() && digits.size() <= 4 &&
		    digits.find_first_not_of("0123456789") == std::string::npos)
			return std::stoi(digits);
	}
	return 0;
}

Errc errcForErrno(int err)
{
	switch (err) {
	case EINVAL:
		return Errc::InvalidArgument; /* rbd: a value of the spec it refuses */
	case ENXIO:
		return Errc::Unsupported; /* krbd: an image feature the kernel lacks */
	default:
		/* ETIMEDOUT too: the tool's own timeout is a definite failure, not an uncertain kill. */
		return errcFromErrno(err);
	}
}

tl::unexpected<Error> toolFailure(const std::string &what, const CommandOutput &output)
{
	const std::string described = output.describe();
	const int err = output.termSignal == 0 ? cephToolErrno(described) : 0;
	return fail(err != 0 ? errcForErrno(err) : Errc::Io, what + ": " + described, err);
}

} /* namespace rbdvolume */
