/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A pre-parse scan that keeps toml++ 3.3 away from input it mishandles. */
#include "config/toml_guard.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace rbdvolume {

namespace {

bool isNonAscii(char c)
{
	return static_cast<unsigned char>(c) >= 0x80;
}

bool isContinuation(char c)
{
	return (static_cast<unsigned char>(c) & 0xc0U) == 0x80;
}

/* "U+00E9" for a well-formed UTF-8 sequence at `text`, else "byte 0xNN". */
std::string describeCodePoint(std::string_view text)
{
	constexpr std::string_view Hex = "0123456789ABCDEF";
	const auto lead = static_cast<unsigned char>(text.front());
	size_t length = 0;
	uint32_t value = 0;
	if ((lead & 0xe0U) == 0xc0U) {
		length = 2;
		value = lead & 0x1fU;
	} else if ((lead & 0xf0U) == 0xe0U) {
		length = 3;
		value = lead & 0x0fU;
	} else if ((lead & 0xf8U) == 0xf0U) {
		length = 4;
		value = lead & 0x07U;
	}
	bool good = length != 0 && text.size() >= length;
	for (size_t i = 1; good && i < length; ++i) {
		good = isContinuation(text[i]);
		value = (value << 6U) | (static_cast<unsigned char>(text[i]) & 0x3fU);
	}
	std::string out;
	if (!good) {
		out = "byte 0x";
		out += Hex[lead >> 4U];
		out += Hex[lead & 0xfU];
		return out;
	}
	out = "U+";
	/* At least four hex digits, as Unicode writes them: U+00E9, U+1F600. */
	int digits = 4;
	while (digits < 6 && (value >> (4U * static_cast<unsigned>(digits))) != 0)
		++digits;
	for (int shift = (digits - 1) * 4; shift >= 0; shift -= 4)
		out += Hex[(value >> static_cast<unsigned>(shift)) & 0xfU];
	return out;
}

enum class State : uint8_t { Normal, Comment, Basic, Literal, MultiBasic, MultiLiteral };

/*
 * toml++ 3.3 builds a table per dotted-key part recursively and overflows
 * the stack at some ten thousand parts (a 40 KB spec); arrays and inline
 * tables it stops at 256. A spec is three levels deep: far below either.
 */
constexpr size_t MaxKeyParts = 16;
constexpr size_t MaxNesting = 16;

/* An array or inline table inside a value. */
struct Level {
	char open = '[';
	bool inValue = false; /* inline table: past this entry's '=' */
};

/*
 * Follows TOML's lexical structure as toml++ reads it, just far enough to
 * know where each character stands. A quote opens a string only at the
 * start of a key or value token: inside a bare token (`-F"x"`) toml++ reads
 * it as part of the token and tests every character up to a terminator.
 */
class Scanner
{
public:
	explicit Scanner(std::string_view text) : text_(text) {}

	std::optional<TomlGuardProblem> run();

private:
	char at(size_t offset) const
	{
		return pos_ + offset < text_.size() ? text_[pos_ + offset] : '\0';
	}
	size_t quoteRun(char c) const;
	void advance(size_t count = 1);
	TomlGuardProblem problem(std::string_view what) const;
	TomlGuardProblem problemHere(std::string message) const;

	std::optional<TomlGuardProblem> normal();
	std::optional<TomlGuardProblem> structural(char c);
	void openString();
	std::optional<TomlGuardProblem> inString();
	std::optional<TomlGuardProblem> multiBasicEscape();
	bool keyContext() const;

	std::string_view text_;
	size_t pos_ = 0;
	unsigned line_ = 1;
	unsigned column_ = 1;
	State state_ = State::Normal;
	bool key_ = false;	     /* the current string is a quoted key */
	std::vector<Level> nesting_; /* arrays and inline tables inside a value */
	bool header_ = false;	     /* inside a [table] or [[array]] header */
	bool afterEquals_ = false;   /* top level: this line's key is done */
	bool tokenStart_ = true;     /* the next non-blank character starts a key or a value */
	size_t keyParts_ = 1;	     /* of the key being read */
};

size_t Scanner::quoteRun(char c) const
{
	size_t count = 0;
	while (at(count) == c)
		++count;
	return count;
}

void Scanner::advance(size_t count)
{
	/* Columns count code points: a continuation byte belongs to the one before. */
	for (size_t i = 0; i < count && pos_ < text_.size(); ++i, ++pos_) {
		if (text_[pos_] == '\n') {
			++line_;
			column_ = 1;
		} else if (!isContinuation(text_[pos_])) {
			++column_;
		}
	}
}

TomlGuardProblem Scanner::problem(std::string_view what) const
{
	return TomlGuardProblem{ line_, column_,
				 std::string(what) + " " + describeCodePoint(text_.substr(pos_)) };
}

TomlGuardProblem Scanner::problemHere(std::string message) const
{
	return TomlGuardProblem{ line_, column_, std::move(message) };
}

bool Scanner::keyContext() const
{
	if (header_)
		return true;
	if (nesting_.empty())
		return !afterEquals_;
	return nesting_.back().open == '{' && !nesting_.back().inValue;
}

void Scanner::openString()
{
	const char quote = at(0);
	key_ = keyContext();
	tokenStart_ = false;
	if (quoteRun(quote) >= 3) {
		state_ = quote == '"' ? State::MultiBasic : State::MultiLiteral;
		advance(3);
	} else {
		state_ = quote == '"' ? State::Basic : State::Literal;
		advance();
	}
}

/* A character that may open, close or separate keys and values. */
std::optional<TomlGuardProblem> Scanner::structural(char c)
{
	const bool key = keyContext();
	Level *level = nesting_.empty() ? nullptr : &nesting_.back();
	switch (c) {
	case '=':
		/* Only the '=' after a key; another one is part of a bare value. */
		tokenStart_ = key;
		keyParts_ = 1;
		if (key && level == nullptr)
			afterEquals_ = true;
		else if (key)
			level->inValue = true;
		break;
	case '.':
		/* Joins dotted keys; in a value it is part of a number or a date. */
		tokenStart_ = key;
		if (key && ++keyParts_ > MaxKeyParts)
			return problemHere("invalid spec: a key of more than " +
					   std::to_string(MaxKeyParts) +
					   " dotted parts (a spec nests three levels deep)");
		break;
	case ',':
		if (level != nullptr && level->open == '{')
			level->inValue = false;
		tokenStart_ = true;
		keyParts_ = 1;
		break;
	case '[':
		if (tokenStart_ && level == nullptr && !afterEquals_) {
			header_ = true;
			keyParts_ = 1;
		} else if (tokenStart_) {
			nesting_.push_back(Level{ '[', false });
		}
		break;
	case '{':
		if (tokenStart_ && !key)
			nesting_.push_back(Level{ '{', false });
		else
			tokenStart_ = false;
		break;
	default: /* ']' and '}' */
		if (header_)
			header_ = false;
		else if (level != nullptr && level->open == (c == ']' ? '[' : '{'))
			nesting_.pop_back();
		tokenStart_ = false;
		break;
	}
	if (nesting_.size() > MaxNesting)
		return problemHere("invalid spec: arrays or inline tables nested more than " +
				   std::to_string(MaxNesting) +
				   " levels deep (a spec nests three levels deep)");
	return std::nullopt;
}

std::optional<TomlGuardProblem> Scanner::normal()
{
	const char c = at(0);
	if (isNonAscii(c))
		return problem("invalid TOML: unexpected character outside a string or comment:");
	switch (c) {
	case '#':
		state_ = State::Comment;
		break;
	case '"':
	case '\'':
		if (tokenStart_) {
			openString();
			return std::nullopt;
		}
		break;
	case '\n':
		if (nesting_.empty()) {
			afterEquals_ = false;
			header_ = false;
			tokenStart_ = true;
			keyParts_ = 1;
		}
		break;
	case ' ':
	case '\t':
	case '\r':
		break;
	case '=':
	case '.':
	case ',':
	case '[':
	case ']':
	case '{':
	case '}':
		if (auto deep = structural(c))
			return deep;
		break;
	default:
		tokenStart_ = false;
		break;
	}
	advance();
	return std::nullopt;
}

std::optional<TomlGuardProblem> Scanner::multiBasicEscape()
{
	/* At the backslash: toml++ tests the next character for whitespace. */
	advance();
	const char next = at(0);
	if (isNonAscii(next))
		return problem("unsupported TOML: a backslash before a non-ASCII character in a "
			       "multi-line string:");
	if (next != ' ' && next != '\t' && next != '\r' && next != '\n') {
		advance();
		return std::nullopt;
	}
	/* A line-ending backslash: toml++ tests each following character until a non-blank. */
	while (at(0) == ' ' || at(0) == '\t' || at(0) == '\r' || at(0) == '\n')
		advance();
	if (isNonAscii(at(0)))
		return problem("unsupported TOML: a non-ASCII character right after a line-ending "
			       "backslash:");
	return std::nullopt;
}

std::optional<TomlGuardProblem> Scanner::inString()
{
	const char c = at(0);
	const bool multi = state_ == State::MultiBasic || state_ == State::MultiLiteral;
	const char quote = state_ == State::Basic || state_ == State::MultiBasic ? '"' : '\'';
	if (key_ && isNonAscii(c))
		return problem(
			"unsupported TOML: a quoted key with a non-ASCII character (spec keys "
			"are ASCII):");
	if (c == '\\' && state_ == State::MultiBasic)
		return multiBasicEscape();
	if (c == '\\' && state_ == State::Basic) {
		advance(2);
		return std::nullopt;
	}
	if (!multi && (c == quote || c == '\n')) {
		state_ = State::Normal;
		if (c == '\n')
			return normal();
		advance();
		return std::nullopt;
	}
	if (multi && c == quote) {
		/* Up to two quotes may sit right before the closing delimiter. */
		const size_t count = quoteRun(quote);
		if (count >= 3)
			state_ = State::Normal;
		advance(count);
		return std::nullopt;
	}
	advance();
	return std::nullopt;
}

std::optional<TomlGuardProblem> Scanner::run()
{
	if (text_.substr(0, 3) == "\xef\xbb\xbf")
		pos_ = 3;
	while (pos_ < text_.size()) {
		std::optional<TomlGuardProblem> found;
		switch (state_) {
		case State::Normal:
			found = normal();
			break;
		case State::Comment:
			if (at(0) == '\n')
				state_ = State::Normal;
			else
				advance();
			break;
		default:
			found = inString();
			break;
		}
		if (found)
			return found;
	}
	return std::nullopt;
}

} /* namespace */

std::optional<TomlGuardProblem> findTomlHazard(std::string_view text)
{
	return Scanner(text).run();
}

} /* namespace rbdvolume */
