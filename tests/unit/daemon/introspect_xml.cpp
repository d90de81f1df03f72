/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A tag scanner for D-Bus introspection XML, and the flat shape of an interface to compare. */
#include "introspect_xml.hpp"

#include <algorithm>
#include <array>
#include <utility>

namespace rbdvolume::testing {

namespace {

constexpr std::string_view EmitsChangedSignal = "org.freedesktop.DBus.Property.EmitsChangedSignal";

bool isSpace(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

std::string decodeEntities(std::string_view raw)
{
	static constexpr std::array<std::pair<std::string_view, char>, 5> Entities = { {
		{ "&lt;", '<' },
		{ "&gt;", '>' },
		{ "&amp;", '&' },
		{ "&quot;", '"' },
		{ "&apos;", '\'' },
	} };
	std::string text;
	for (size_t i = 0; i < raw.size(); i++) {
		const auto *const entity =
			std::find_if(Entities.begin(), Entities.end(), [&](const auto &known) {
				return raw.substr(i).starts_with(known.first);
			});
		if (entity == Entities.end()) {
			text += raw[i];
			continue;
		}
		text += entity->second;
		i += entity->first.size() - 1;
	}
	return text;
}

/* Reads one tag that starts at text[pos] == '<'; pos ends past its '>'. */
class TagReader
{
public:
	TagReader(std::string_view text, size_t pos) : text_(text), pos_(pos + 1) {}

	size_t end() const { return pos_; }

	Result<XmlElement> read(bool &selfClosing)
	{
		XmlElement element;
		element.name = name();
		if (element.name.empty())
			return problem("a tag without a name");
		for (;;) {
			skipSpace();
			if (pos_ >= text_.size())
				return problem("<" + element.name + " is not closed");
			if (text_.substr(pos_).starts_with("/>")) {
				pos_ += 2;
				selfClosing = true;
				return element;
			}
			if (text_[pos_] == '>') {
				pos_++;
				selfClosing = false;
				return element;
			}
			const std::string attribute = name();
			skipSpace();
			if (attribute.empty() || pos_ >= text_.size() || text_[pos_] != '=')
				return problem("a malformed attribute in <" + element.name + ">");
			pos_++;
			skipSpace();
			if (pos_ >= text_.size() || (text_[pos_] != '"' && text_[pos_] != '\''))
				return problem("an unquoted value of " + attribute);
			const char quote = text_[pos_++];
			const size_t close = text_.find(quote, pos_);
			if (close == std::string_view::npos)
				return problem("the value of " + attribute + " is not closed");
			element.attributes[attribute] =
				decodeEntities(text_.substr(pos_, close - pos_));
			pos_ = close + 1;
		}
	}

private:
	std::string name()
	{
		const size_t start = pos_;
		while (pos_ < text_.size() && !isSpace(text_[pos_]) && text_[pos_] != '/' &&
		       text_[pos_] != '>' && text_[pos_] != '=')
			pos_++;
		return std::string(text_.substr(start, pos_ - start));
	}
	void skipSpace()
	{
		while (pos_ < text_.size() && isSpace(text_[pos_]))
			pos_++;
	}
	static tl::unexpected<Error> problem(const std::string &what)
	{
		return fail(Errc::InvalidArgument, "malformed XML: " + what);
	}

	std::string_view text_;
	size_t pos_;
};

std::string attribute(const XmlElement &element, const std::string &name,
		      const std::string &fallback = "")
{
	const auto found = element.attributes.find(name);
	return found == element.attributes.end() ? fallback : found->second;
}

void addMember(const XmlElement &member, std::set<std::string> &lines)
{
	const std::string head = member.name + " " + attribute(member, "name");
	if (member.name == "property")
		lines.insert(head + " " + attribute(member, "type") + " " +
			     attribute(member, "access"));
	else
		lines.insert(head);
	unsigned argIndex = 0;
	for (const XmlElement &child : member.children) {
		if (child.name == "arg") {
			std::string line = head + " arg " + std::to_string(argIndex++) + " " +
					   attribute(child, "name") + " " +
					   attribute(child, "type");
			/* A method's args are "in" unless said otherwise; a signal's have no direction. */
			if (member.name == "method")
				line += " " + attribute(child, "direction", "in");
			lines.insert(line);
		} else if (child.name == "annotation") {
			const std::string name = attribute(child, "name");
			const std::string value = attribute(child, "value");
			if (member.name == "property" && name == EmitsChangedSignal &&
			    value == "true")
				continue;
			lines.insert(head + " annotation " + name + "=" + value);
		} else {
			lines.insert(head + " has a <" + child.name + ">");
		}
	}
}

} /* namespace */

Result<XmlElement> parseXml(std::string_view text)
{
	XmlElement document;
	std::vector<XmlElement *> open = { &document };
	size_t pos = 0;
	while ((pos = text.find('<', pos)) != std::string_view::npos) {
		const std::string_view rest = text.substr(pos);
		const auto skipTo = [&](std::string_view end) {
			const size_t found = text.find(end, pos);
			pos = found == std::string_view::npos ? found : found + end.size();
			return found != std::string_view::npos;
		};
		if (rest.starts_with("<!--")) {
			if (!skipTo("-->"))
				return fail(Errc::InvalidArgument,
					    "malformed XML: a comment is not closed");
			continue;
		}
		if (rest.starts_with("<?") || rest.starts_with("<!")) {
			if (!skipTo(">"))
				return fail(Errc::InvalidArgument,
					    "malformed XML: a declaration is not closed");
			continue;
		}
		if (rest.starts_with("</")) {
			const size_t close = text.find('>', pos);
			if (close == std::string_view::npos)
				return fail(Errc::InvalidArgument,
					    "malformed XML: an end tag is not closed");
			std::string name(text.substr(pos + 2, close - pos - 2));
			name.erase(std::remove_if(name.begin(), name.end(), isSpace), name.end());
			if (open.size() < 2 || open.back()->name != name)
				return fail(Errc::InvalidArgument, "malformed XML: </" + name +
									   "> closes <" +
									   open.back()->name + ">");
			open.pop_back();
			pos = close + 1;
			continue;
		}
		TagReader reader(text, pos);
		bool selfClosing = false;
		auto element = reader.read(selfClosing);
		if (!element)
			return element;
		pos = reader.end();
		XmlElement &parent = *open.back();
		parent.children.push_back(std::move(*element));
		if (!selfClosing)
			open.push_back(&parent.children.back());
	}
	if (open.size() != 1)
		return fail(Errc::InvalidArgument,
			    "malformed XML: <" + open.back()->name + "> is not closed");
	if (document.children.size() != 1)
		return fail(Errc::InvalidArgument, "malformed XML: not exactly one root element");
	return std::move(document.children.front());
}

std::optional<std::set<std::string>> interfaceShape(const XmlElement &node,
						    const std::string &interface)
{
	const auto found = std::find_if(
		node.children.begin(), node.children.end(), [&](const XmlElement &child) {
			return child.name == "interface" && attribute(child, "name") == interface;
		});
	if (found == node.children.end())
		return std::nullopt;
	std::set<std::string> lines;
	for (const XmlElement &member : found->children) {
		if (member.name == "annotation")
			lines.insert("annotation " + attribute(member, "name") + "=" +
				     attribute(member, "value"));
		else
			addMember(member, lines);
	}
	return lines;
}

std::vector<std::string> shapeDifferences(const std::set<std::string> &contract,
					  const std::set<std::string> &actual)
{
	std::vector<std::string> differences;
	for (const std::string &line : contract) {
		if (!actual.contains(line))
			differences.push_back("in the contract only: " + line);
	}
	for (const std::string &line : actual) {
		if (!contract.contains(line))
			differences.push_back("on the bus only: " + line);
	}
	return differences;
}

} /* namespace rbdvolume::testing */
