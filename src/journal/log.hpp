/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The record the daemon and the shim leave: one call, one line, at a level,
 * with fields (RBDV_VOLUME=data, RBDV_STEP=format, ...) an operator can
 * query with journalctl. Sent through the journal's native protocol when
 * stderr is the journal (systemd sets JOURNAL_STREAM), else written to
 * stderr as "<N>message [FIELD=value ...]". Thread-safe; the level can be
 * changed at run time (org.freedesktop.LogControl1). Never give it a secret.
 */
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "journal/levels.hpp"

namespace rbdvolume::log {

/* Lines above `level` are dropped; Info until told otherwise. */
void setLevel(Level level);
Level level();
inline bool enabled(Level wanted)
{
	return wanted <= level();
}

/* Where lines go: the journal when stderr is it, else stderr; "console" forces stderr. */
enum class Target : uint8_t { Auto, Journal, Console };
void setTarget(Target target);
Target target();
/* The journal is used: stderr is the journal's stream, or the target says so. */
bool toJournal();

struct Field {
	std::string name; /* upper case, the journal's rules: "RBDV_VOLUME" */
	std::string value;
};

/* A 128-bit MESSAGE_ID in systemd's 32 lowercase hex digits, or none. */
using MessageId = std::string_view;

struct Line {
	Level level = Level::Info;
	std::string message;
	std::vector<Field> fields;
	MessageId messageId = {}; // NOLINT(readability-redundant-member-init)
};

/*
 * Where a line is written from: the caller's file, line and function, filled
 * in at the call by the default argument. Ours, not std::source_location,
 * which clang 14 does not provide with libstdc++ 12; both compilers fill
 * the builtins with the outermost caller's place.
 */
struct CodePlace {
	const char *file;
	unsigned line;
	const char *function;

	static constexpr CodePlace here(const char *file = __builtin_FILE(),
					unsigned line = __builtin_LINE(),
					const char *function = __builtin_FUNCTION())
	{
		return { file, line, function };
	}
};

/*
 * Sends `line`, with CODE_FILE, CODE_LINE and CODE_FUNC of `where` when it
 * is a warning or worse, and SYSLOG_IDENTIFIER. Nothing when not enabled.
 */
void write(const Line &line, CodePlace where = CodePlace::here());

/*
 * A line about volume `name`, as systemd's log_unit_struct() is about a
 * unit: RBDV_VOLUME=name first, then `fields`.
 */
Line volumeLine(Level level, const std::string &name, std::string message,
		std::vector<Field> fields = {});

/* Shorthands for a line without fields. */
void info(std::string message, CodePlace where = CodePlace::here());
void warning(std::string message, CodePlace where = CodePlace::here());
void error(std::string message, CodePlace where = CodePlace::here());

/* What the fallback writes for `line`: "<6>message [RBDV_VOLUME=data]". */
std::string consoleText(const Line &line);

} /* namespace rbdvolume::log */
