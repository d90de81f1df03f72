/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "csi/kms_config.hpp"

#include <exception>
#include <optional>

#include "config/text_file.hpp"
#include "csi/json_depth.hpp"

#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>

namespace rbdvolume::csi {

namespace {

using google::protobuf::Struct;
using google::protobuf::Value;

constexpr size_t MaxKmsConfigBytes = size_t{ 1024 } * 1024;
constexpr unsigned MaxDepth = 32;

/* The string member `key` of `object`; "" when absent, nullopt when not a string. */
std::optional<std::string> stringMember(const Struct &object, const std::string &key)
{
	const auto it = object.fields().find(key);
	if (it == object.fields().end())
		return std::string();
	if (it->second.kind_case() != Value::kStringValue)
		return std::nullopt;
	return it->second.string_value();
}

std::string knownIds(const Struct &root)
{
	std::string out;
	for (const auto &[id, value] : root.fields())
		out += (out.empty() ? "" : ", ") + ("'" + id + "'");
	return out.empty() ? "it has none" : "it has " + out;
}

Result<KmsEntry> parseChecked(std::string_view text, const std::string &file,
			      const std::string &kmsId)
{
	if (jsonTooDeep(text, MaxDepth) != std::string_view::npos)
		return fail(Errc::InvalidArgument, file + ": expected JSON nested at most " +
							   std::to_string(MaxDepth) + " deep");
	Value root;
	const auto status = google::protobuf::util::JsonStringToMessage(
		google::protobuf::StringPiece(text.data(), text.size()), &root);
	if (!status.ok() || root.kind_case() != Value::kStructValue)
		return fail(Errc::InvalidArgument,
			    file + ": expected ceph-csi's KMS config, a JSON object of KMS IDs" +
				    (status.ok() ? std::string()
						 : " (" + std::string(status.message()) + ")"));
	const Struct &ids = root.struct_value();
	const auto entry = ids.fields().find(kmsId);
	if (entry == ids.fields().end())
		return fail(Errc::InvalidArgument, "encryptionKMSID '" + kmsId + "' is not in " +
							   file + " (" + knownIds(ids) + ")");
	if (entry->second.kind_case() != Value::kStructValue)
		return fail(Errc::InvalidArgument,
			    file + ": KMS ID '" + kmsId + "' is not a JSON object");
	const Struct &fields = entry->second.struct_value();
	std::optional<std::string> type = stringMember(fields, "encryptionKMSType");
	if (type && type->empty())
		type = stringMember(fields, "KMS_PROVIDER");
	const std::optional<std::string> secretName = stringMember(fields, "secretName");
	if (!type || !secretName)
		return fail(Errc::InvalidArgument, file + ": KMS ID '" + kmsId +
							   "': encryptionKMSType and secretName "
							   "are strings");
	if (type->empty())
		return fail(Errc::InvalidArgument,
			    file + ": KMS ID '" + kmsId + "' has no encryptionKMSType");
	return KmsEntry{ *type, *secretName };
}

} /* namespace */

Result<KmsEntry> kmsEntryOf(std::string_view text, const std::string &file,
			    const std::string &kmsId)
{
	/* Nothing may escape a module: protobuf and the standard library may throw, we do not. */
	try {
		return parseChecked(text, file, kmsId);
	} catch (const std::exception &error) {
		return fail(Errc::Internal,
			    file + ": internal error while reading: " + error.what());
	} catch (...) {
		return fail(Errc::Internal, file + ": internal error while reading");
	}
}

Result<KmsEntry> loadKmsEntry(const std::string &path, const std::string &kmsId)
{
	auto text = readSmallTextFile(path, MaxKmsConfigBytes, "a KMS config");
	if (!text)
		return fail(Errc::InvalidArgument, path + ": " + text.error().message);
	if (!*text)
		return fail(Errc::InvalidArgument,
			    "encryptionKMSID '" + kmsId + "' needs ceph-csi's KMS config, and " +
				    path +
				    " does not exist (rbd-volume-csi --kms-config names another)");
	return kmsEntryOf(**text, path, kmsId);
}

} /* namespace rbdvolume::csi */
