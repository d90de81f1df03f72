/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* ceph-csi's config.json read with protobuf's JSON parser into google.protobuf.Value. */
#include "csi/cluster_map_json.hpp"

#include <exception>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/text_escape.hpp"
#include "config/spec_report.hpp"
#include "config/spec_values.hpp"
#include "csi/json_depth.hpp"

#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>

namespace rbdvolume::csi {

namespace {

using google::protobuf::Struct;
using google::protobuf::Value;

/* ceph-csi's config.json nests 4 deep; protobuf's parser slows down steeply with depth. */
constexpr unsigned MaxDepth = 32;

constexpr std::string_view NotAnArray =
	"expected a JSON array of clusters as in ceph-csi's config.json "
	"('[{\"clusterID\": ..., \"monitors\": [...]}]'), found ";

/* "a number", as in "expected a string, found a number". */
const char *typeName(const Value &value)
{
	switch (value.kind_case()) {
	case Value::kNullValue:
		return "null";
	case Value::kNumberValue:
		return "a number";
	case Value::kStringValue:
		return "a string";
	case Value::kBoolValue:
		return "a boolean";
	case Value::kStructValue:
		return "an object";
	case Value::kListValue:
		return "an array";
	case Value::KIND_NOT_SET:
		break;
	}
	return "nothing";
}

/* Line and column (1-based, columns in code points as toml++ counts) of a byte offset. */
SourcePos positionAt(std::string_view text, size_t offset)
{
	SourcePos pos{ 1, 1 };
	for (size_t i = 0; i < offset && i < text.size(); ++i) {
		if (text[i] == '\n') {
			++pos.line;
			pos.column = 1;
		} else if ((static_cast<unsigned char>(text[i]) & 0xc0U) != 0x80U) {
			++pos.column;
		}
	}
	return pos;
}

/*
 * protobuf 3.21 reports a syntax error as "MESSAGE\nSEGMENT\n   ^", the
 * segment a few dozen bytes of the input around the error and the caret under
 * it; an empty segment means the input ended too early. The error is located
 * when the segment occurs once in the text, or at the end of the text (past
 * trailing blanks) for an empty segment; else, and for any other form, it has
 * no line.
 */
void reportSyntaxError(std::string_view text, std::string_view status, SpecReport &report)
{
	const size_t firstBreak = status.find('\n');
	std::string_view message = status.substr(0, firstBreak);
	/* A value's problem starts with the path protobuf gives it: "(list_value.values[0]) ". */
	const size_t pathEnd = message.find(") ");
	if (!message.empty() && message.front() == '(' && pathEnd != std::string_view::npos)
		message.remove_prefix(pathEnd + 2);
	const std::string problem = "invalid JSON: " + escaped(message);

	const size_t lastBreak = status.rfind('\n');
	if (firstBreak == std::string_view::npos || lastBreak == firstBreak) {
		report.error("", SourcePos{}, problem);
		return;
	}
	const std::string_view segment = status.substr(firstBreak + 1, lastBreak - firstBreak - 1);
	const std::string_view caret = status.substr(lastBreak + 1);
	const size_t column = caret.find_first_not_of(' ');
	if (segment.empty() && caret == "^") {
		const size_t end = text.find_last_not_of(" \t\r\n");
		report.error("", positionAt(text, end == std::string_view::npos ? 0 : end + 1),
			     problem);
		return;
	}
	const size_t at = text.find(segment);
	const bool located = !segment.empty() && column != std::string_view::npos &&
			     caret.substr(column) == "^" && column <= segment.size() &&
			     at != std::string_view::npos &&
			     text.find(segment, at + 1) == std::string_view::npos;
	report.error("", located ? positionAt(text, at + column) : SourcePos{}, problem);
}

std::string indexField(std::string_view prefix, size_t index)
{
	return std::string(prefix) + '[' + std::to_string(index) + ']';
}

/* The value of `key`; nullptr when the object has none. */
const Value *member(const Struct &object, const std::string &key)
{
	const auto it = object.fields().find(key);
	return it == object.fields().end() ? nullptr : &it->second;
}

void wrongType(SpecReport &report, const std::string &field, const Value &value,
	       std::string_view expected)
{
	report.error(field, SourcePos{},
		     "expected " + std::string(expected) + ", found " + typeName(value));
}

void missing(SpecReport &report, const std::string &field, std::string_view key)
{
	report.error(field, SourcePos{}, "missing required key " + quoted(key));
}

std::optional<std::string> readClusterId(const Struct &object, const std::string &prefix,
					 SpecReport &report)
{
	const std::string field = prefix + ".clusterID";
	const Value *value = member(object, "clusterID");
	if (value == nullptr) {
		missing(report, field, "clusterID");
		return std::nullopt;
	}
	if (!value->has_string_value()) {
		wrongType(report, field, *value, "a string");
		return std::nullopt;
	}
	if (const auto problem = clusterIdProblem(value->string_value())) {
		report.error(field, SourcePos{}, *problem);
		return std::nullopt;
	}
	return value->string_value();
}

/* Every entry is checked; the list only when all of them are good. */
std::optional<std::vector<std::string>> readMonitors(const Struct &object,
						     const std::string &prefix, SpecReport &report)
{
	const std::string field = prefix + ".monitors";
	const Value *value = member(object, "monitors");
	if (value == nullptr) {
		missing(report, field, "monitors");
		return std::nullopt;
	}
	if (!value->has_list_value()) {
		wrongType(report, field, *value, "an array of strings");
		return std::nullopt;
	}
	const auto &list = value->list_value().values();
	if (const auto countProblem = monitorCountProblem(static_cast<size_t>(list.size()))) {
		report.error(field, SourcePos{}, *countProblem);
		return std::nullopt;
	}
	std::vector<std::string> monitors;
	bool good = true;
	for (int i = 0; i < list.size(); ++i) {
		const Value &element = list.Get(i);
		const std::optional<std::string> problem =
			element.has_string_value()
				? monitorProblem(element.string_value())
				: std::string("expected a string, found ") + typeName(element);
		if (problem) {
			report.error(indexField(field, static_cast<size_t>(i)), SourcePos{},
				     *problem);
			good = false;
			continue;
		}
		monitors.push_back(element.string_value());
	}
	if (!good)
		return std::nullopt;
	return monitors;
}

/* rbd.radosNamespace: "" when absent or null (as ceph-csi reads it); std::nullopt when reported. */
std::optional<std::string> readNamespace(const Struct &object, const std::string &prefix,
					 SpecReport &report)
{
	const Value *rbd = member(object, "rbd");
	if (rbd == nullptr || rbd->has_null_value())
		return std::string();
	if (!rbd->has_struct_value()) {
		wrongType(report, prefix + ".rbd", *rbd, "an object");
		return std::nullopt;
	}
	const std::string field = prefix + ".rbd.radosNamespace";
	const Value *value = member(rbd->struct_value(), "radosNamespace");
	if (value == nullptr || value->has_null_value())
		return std::string();
	if (!value->has_string_value()) {
		wrongType(report, field, *value, "a string");
		return std::nullopt;
	}
	if (const auto problem = radosNamespaceProblem(value->string_value())) {
		report.error(field, SourcePos{}, *problem);
		return std::nullopt;
	}
	return value->string_value();
}

ClusterRead readCluster(const Value &element, const std::string &prefix, SpecReport &report)
{
	if (!element.has_struct_value()) {
		wrongType(report, prefix, element, "an object");
		return {};
	}
	const Struct &object = element.struct_value();
	std::optional<std::string> id = readClusterId(object, prefix, report);
	std::optional<std::vector<std::string>> monitors = readMonitors(object, prefix, report);
	return ClusterRead::of(std::move(id), std::move(monitors),
			       readNamespace(object, prefix, report));
}

void readClusters(const Value &root, SpecReport &report, ClusterMap &map)
{
	if (!root.has_list_value()) {
		report.error("", SourcePos{}, std::string(NotAnArray) + typeName(root));
		return;
	}
	ClusterMapBuilder builder;
	const auto &list = root.list_value().values();
	for (int i = 0; i < list.size(); ++i) {
		const std::string prefix = indexField("", static_cast<size_t>(i));
		const std::string idField = prefix + ".clusterID";
		if (auto duplicate = builder.add(readCluster(list.Get(i), prefix, report), idField))
			report.error(idField, SourcePos{}, *duplicate);
	}
	map = builder.take();
}

ClusterMapOutcome parseChecked(std::string_view text, const std::string &file)
{
	SpecReport report(file);
	ClusterMapOutcome outcome;

	/* The common mistake, a single cluster's object, said plainly whatever follows it. */
	const size_t start = text.find_first_not_of(" \t\r\n");
	if (start != std::string_view::npos && text[start] == '{') {
		report.error("", positionAt(text, start), std::string(NotAnArray) + "an object");
		outcome.diagnostics = report.take();
		return outcome;
	}

	const size_t deep = jsonTooDeep(text, MaxDepth);
	if (deep != std::string_view::npos) {
		report.error("", positionAt(text, deep),
			     "expected JSON nested at most " + std::to_string(MaxDepth) +
				     " deep, found deeper nesting");
		outcome.diagnostics = report.take();
		return outcome;
	}

	Value root;
	const google::protobuf::util::Status status = google::protobuf::util::JsonStringToMessage(
		google::protobuf::StringPiece(text.data(), text.size()), &root);
	if (status.ok()) {
		readClusters(root, report, outcome.map);
	} else {
		const auto message = status.message();
		reportSyntaxError(text, std::string_view(message.data(), message.size()), report);
	}
	outcome.diagnostics = report.take();
	return outcome;
}

} /* namespace */

ClusterMapOutcome parseClusterMapJson(std::string_view text, const std::string &file)
{
	/* Nothing may escape a module: protobuf and the standard library may throw, we do not. */
	try {
		return parseChecked(text, file);
	} catch (const std::exception &error) {
		return clusterMapFailure(file, std::string("internal error while reading: ") +
						       error.what());
	} catch (...) {
		return clusterMapFailure(file, "internal error while reading: unknown exception");
	}
}

} /* namespace rbdvolume::csi */
