/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libFuzzer target: parseVolumeSpec must never crash, throw or report a nameless problem. */
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "config/spec_parser.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* TOML is text; the parser sees the bytes as the file would give them. */
	const std::string_view text(reinterpret_cast<const char *>(data), size);
	const rbdvolume::SpecOutcome outcome = rbdvolume::parseVolumeSpec(text, "fuzz.toml");
	for (const rbdvolume::Diagnostic &diagnostic : outcome.diagnostics) {
		/* Every diagnostic says something, and a located one has a column too. */
		if (diagnostic.message.empty() || (diagnostic.line != 0 && diagnostic.column == 0))
			std::abort();
		if (diagnostic.format().empty())
			std::abort();
	}
	/* A clean spec is complete: the invariants VolumeSpec documents hold. */
	if (outcome.ok()) {
		const rbdvolume::VolumeSpec &spec = outcome.spec;
		if (spec.staging.path.empty() || spec.image.pool.empty() || spec.image.name.empty())
			std::abort();
		if (spec.filesystem.has_value() != (spec.mode == rbdvolume::VolumeMode::Filesystem))
			std::abort();
		if (!spec.image.snapshot.empty() && !spec.map.readOnly)
			std::abort();
	}
	return 0;
}
