/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "config/mount_roots.hpp"

#include <algorithm>

#include "common/paths.hpp"

namespace rbdvolume {

void checkMountRoots(const VolumeSpec &spec, const std::vector<std::string> &roots,
		     std::vector<Diagnostic> &problems)
{
	const auto allowed = [&roots](const std::string &path) {
		return std::any_of(roots.begin(), roots.end(), [&](const std::string &root) {
			return paths::isSameOrBelow(path, root) && path != root;
		});
	};
	std::string listed;
	for (const std::string &root : roots)
		listed += (listed.empty() ? "" : ", ") + root;
	const auto refuse = [&](const std::string &field, const std::string &path) {
		problems.push_back({ spec.sourceFile, 0, 0, field,
				     "'" + path + "' is not below an allowed mount root (" +
					     listed +
					     "; allowed-mount-roots in rbd-volumed.toml)" });
	};
	if (!allowed(spec.staging.path))
		refuse("staging.path", spec.staging.path);
	for (size_t i = 0; i < spec.publish.size(); i++) {
		if (!allowed(spec.publish[i].path))
			refuse("publish[" + std::to_string(i) + "].path", spec.publish[i].path);
	}
}

} /* namespace rbdvolume */
