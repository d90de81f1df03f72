/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "journal/log.hpp"

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>

#include <sys/stat.h>
#include <sys/uio.h>

#include <systemd/sd-journal.h>

#include "journal/fields.hpp"

namespace rbdvolume::log {

namespace {

std::atomic<Level> currentLevel{ Level::Info };
std::atomic<Target> currentTarget{ Target::Auto };

/* systemd's JOURNAL_STREAM is "DEV:INODE" of the stream it connected stderr to. */
bool stderrIsJournal()
{
	static const bool journal = [] {
		/* Read once, at the first line: no thread changes the environment. */
		const char *stream =
			std::getenv("JOURNAL_STREAM"); /* NOLINT(concurrency-mt-unsafe) */
		if (stream == nullptr)
			return false;
		unsigned long long dev = 0;
		unsigned long long ino = 0;
		/* NOLINTNEXTLINE(cert-err34-c,bugprone-unchecked-string-to-number-conversion): a malformed value is "not the journal" */
		if (std::sscanf(stream, "%llu:%llu", &dev, &ino) != 2)
			return false;
		struct stat st {
		};
		return fstat(STDERR_FILENO, &st) == 0 && st.st_dev == dev && st.st_ino == ino;
	}();
	return journal;
}

const char *identifier()
{
	return program_invocation_short_name;
}

void sendToJournal(const Line &line, const CodePlace &where)
{
	std::vector<std::string> texts;
	texts.reserve(line.fields.size() + 8);
	texts.push_back("MESSAGE=" + line.message);
	texts.push_back("PRIORITY=" + std::to_string(static_cast<int>(line.level)));
	texts.push_back(std::string("SYSLOG_IDENTIFIER=") + identifier());
	if (!line.messageId.empty())
		texts.push_back("MESSAGE_ID=" + std::string(line.messageId));
	if (line.level <= Level::Warning) {
		texts.push_back(std::string("CODE_FILE=") + where.file);
		texts.push_back("CODE_LINE=" + std::to_string(where.line));
		texts.push_back(std::string("CODE_FUNC=") + where.function);
	}
	for (const Field &field : line.fields)
		texts.push_back(field.name + "=" + field.value);
	std::vector<iovec> parts;
	parts.reserve(texts.size());
	for (std::string &text : texts)
		parts.push_back({ text.data(), text.size() });
	/* A journal that does not take it (gone, full): the line goes to stderr. */
	if (sd_journal_sendv(parts.data(), static_cast<int>(parts.size())) < 0)
		std::fprintf(stderr, "%s\n", consoleText(line).c_str());
}

} /* namespace */

void setLevel(Level level)
{
	currentLevel.store(level, std::memory_order_relaxed);
}

Level level()
{
	return currentLevel.load(std::memory_order_relaxed);
}

void setTarget(Target target)
{
	currentTarget.store(target, std::memory_order_relaxed);
}

Target target()
{
	return currentTarget.load(std::memory_order_relaxed);
}

bool toJournal()
{
	switch (target()) {
	case Target::Journal:
		return true;
	case Target::Console:
		return false;
	case Target::Auto:
		break;
	}
	return stderrIsJournal();
}

std::string consoleText(const Line &line)
{
	std::string text = "<" + std::to_string(static_cast<int>(line.level)) + ">" + line.message;
	if (!line.fields.empty()) {
		text += " [";
		for (size_t i = 0; i < line.fields.size(); i++)
			text += (i == 0 ? "" : " ") + line.fields[i].name + "=" +
				line.fields[i].value;
		text += "]";
	}
	return text;
}

void write(const Line &line, CodePlace where)
{
	if (!enabled(line.level))
		return;
	if (toJournal())
		sendToJournal(line, where);
	else
		std::fprintf(stderr, "%s\n", consoleText(line).c_str());
}

Line volumeLine(Level level, const std::string &name, std::string message,
		std::vector<Field> fields)
{
	fields.insert(fields.begin(), Field{ field::Volume, name });
	return { level, std::move(message), std::move(fields), {} };
}

void info(std::string message, CodePlace where)
{
	write({ Level::Info, std::move(message), {}, {} }, where);
}

void warning(std::string message, CodePlace where)
{
	write({ Level::Warning, std::move(message), {}, {} }, where);
}

void error(std::string message, CodePlace where)
{
	write({ Level::Err, std::move(message), {}, {} }, where);
}

} /* namespace rbdvolume::log */
