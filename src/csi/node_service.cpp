/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "csi/node_service.hpp"

#include <algorithm>
#include <chrono>

#include "csi/request_checks.hpp"
#include "csi/volume_names.hpp"
#include "journal/fields.hpp"
#include "journal/log.hpp"

namespace rbdvolume::csi {

namespace v1 = ::csi::v1;

namespace {

/*
 * The caller's deadline on the steady clock. gRPC's "no deadline" (the
 * infinite future) becomes a day away: far beyond --max-wait, and no overflow.
 */
Deadline deadlineOf(const grpc::ServerContext &context)
{
	const auto left = std::min(context.deadline() - std::chrono::system_clock::now(),
				   std::chrono::system_clock::duration(std::chrono::hours(24)));
	return std::chrono::steady_clock::now() +
	       std::chrono::duration_cast<Deadline::duration>(left);
}

grpc::Status grpcStatusOf(const OpStatus &status)
{
	switch (status.code) {
	case Code::Ok:
		return grpc::Status::OK;
	case Code::InvalidArgument:
		return { grpc::StatusCode::INVALID_ARGUMENT, status.message };
	case Code::DeadlineExceeded:
		return { grpc::StatusCode::DEADLINE_EXCEEDED, status.message };
	case Code::NotFound:
		return { grpc::StatusCode::NOT_FOUND, status.message };
	case Code::AlreadyExists:
		return { grpc::StatusCode::ALREADY_EXISTS, status.message };
	case Code::PermissionDenied:
		return { grpc::StatusCode::PERMISSION_DENIED, status.message };
	case Code::FailedPrecondition:
		return { grpc::StatusCode::FAILED_PRECONDITION, status.message };
	case Code::Aborted:
		return { grpc::StatusCode::ABORTED, status.message };
	case Code::OutOfRange:
		return { grpc::StatusCode::OUT_OF_RANGE, status.message };
	case Code::Internal:
		return { grpc::StatusCode::INTERNAL, status.message };
	case Code::Unavailable:
		return { grpc::StatusCode::UNAVAILABLE, status.message };
	}
	return { grpc::StatusCode::INTERNAL, status.message };
}

/*
 * The outcome of one call in the journal: the CSI volume ID and our volume
 * name for it, gRPC's code and how long the call took. Never a request's
 * secrets: only the ID and the status's own message are read.
 */
void logOutcome(const char *rpc, const std::string &volumeId, const grpc::Status &status,
		std::chrono::microseconds took)
{
	const std::string code = std::to_string(static_cast<int>(status.error_code()));
	log::Line line{ status.ok() ? log::Level::Info : log::Level::Err,
			std::string(rpc) + " " + volumeId + ": " +
				(status.ok() ? std::string("done")
					     : "code " + code + ": " + status.error_message()),
			{ { log::field::CsiRpc, rpc },
			  { log::field::CsiVolumeId, volumeId },
			  { log::field::CsiCode, code },
			  { log::field::StepResult, status.ok() ? "done" : "failed" },
			  { log::field::DurationUsec, std::to_string(took.count()) } },
			{} };
	if (checkVolumeId(volumeId))
		line.fields.push_back({ log::field::Volume, volumeNameFor(volumeId) });
	log::write(line);
}

std::map<std::string, std::string>
plainMap(const google::protobuf::Map<std::string, std::string> &map)
{
	return { map.begin(), map.end() };
}

CapabilityField capabilityFieldOf(bool present, const v1::VolumeCapability &capability)
{
	CapabilityField field;
	field.present = present;
	switch (capability.access_type_case()) {
	case v1::VolumeCapability::kBlock:
		field.access = CapabilityField::Access::Block;
		break;
	case v1::VolumeCapability::kMount:
		field.access = CapabilityField::Access::Mount;
		field.fsType = capability.mount().fs_type();
		field.mountFlags.assign(capability.mount().mount_flags().begin(),
					capability.mount().mount_flags().end());
		break;
	default:
		break;
	}
	if (capability.has_access_mode())
		field.accessMode = capability.access_mode().mode();
	return field;
}

/* Each request as plain values; nothing is checked here, the operation does it. */
StageArgs argsOf(const v1::NodeStageVolumeRequest &request)
{
	return { request.volume_id(), request.staging_target_path(),
		 capabilityFieldOf(request.has_volume_capability(), request.volume_capability()),
		 plainMap(request.secrets()), plainMap(request.volume_context()) };
}

UnstageArgs argsOf(const v1::NodeUnstageVolumeRequest &request)
{
	return { request.volume_id(), request.staging_target_path() };
}

PublishArgs argsOf(const v1::NodePublishVolumeRequest &request)
{
	return { request.volume_id(), request.staging_target_path(), request.target_path(),
		 capabilityFieldOf(request.has_volume_capability(), request.volume_capability()),
		 request.readonly() };
}

UnpublishArgs argsOf(const v1::NodeUnpublishVolumeRequest &request)
{
	return { request.volume_id(), request.target_path() };
}

StatsArgs argsOf(const v1::NodeGetVolumeStatsRequest &request)
{
	return { request.volume_id(), request.volume_path() };
}

ExpandArgs argsOf(const v1::NodeExpandVolumeRequest &request)
{
	return { request.volume_id(), request.volume_path(),
		 request.capacity_range().required_bytes() };
}

/* Each operation, and its reply into the response when it succeeded. */
OpStatus perform(NodeOps &ops, const StageArgs &args, Deadline deadline,
		 v1::NodeStageVolumeResponse & /*response*/)
{
	return ops.stage(args, deadline);
}

OpStatus perform(NodeOps &ops, const UnstageArgs &args, Deadline deadline,
		 v1::NodeUnstageVolumeResponse & /*response*/)
{
	return ops.unstage(args, deadline);
}

OpStatus perform(NodeOps &ops, const PublishArgs &args, Deadline deadline,
		 v1::NodePublishVolumeResponse & /*response*/)
{
	return ops.publish(args, deadline);
}

OpStatus perform(NodeOps &ops, const UnpublishArgs &args, Deadline deadline,
		 v1::NodeUnpublishVolumeResponse & /*response*/)
{
	return ops.unpublish(args, deadline);
}

OpStatus perform(NodeOps &ops, const StatsArgs &args, Deadline /*deadline*/,
		 v1::NodeGetVolumeStatsResponse &response)
{
	StatsReply reply;
	OpStatus status = ops.stats(args, reply);
	if (!status.ok())
		return status;
	if (reply.usage) {
		const PathUsage &usage = *reply.usage;
		auto *bytes = response.add_usage();
		bytes->set_unit(v1::VolumeUsage::BYTES);
		bytes->set_total(static_cast<int64_t>(usage.totalBytes));
		if (!usage.block) {
			bytes->set_available(static_cast<int64_t>(usage.availableBytes));
			bytes->set_used(static_cast<int64_t>(usage.usedBytes));
			auto *inodes = response.add_usage();
			inodes->set_unit(v1::VolumeUsage::INODES);
			inodes->set_total(static_cast<int64_t>(usage.totalInodes));
			inodes->set_available(static_cast<int64_t>(usage.freeInodes));
			inodes->set_used(static_cast<int64_t>(usage.usedInodes));
		}
	}
	auto *condition = response.mutable_volume_condition();
	condition->set_abnormal(reply.abnormal);
	condition->set_message(reply.condition);
	return status;
}

OpStatus perform(NodeOps &ops, const ExpandArgs &args, Deadline deadline,
		 v1::NodeExpandVolumeResponse &response)
{
	ExpandReply reply;
	OpStatus status = ops.expand(args, deadline, reply);
	if (status.ok())
		response.set_capacity_bytes(static_cast<int64_t>(reply.capacityBytes));
	return status;
}

} /* namespace */

NodeService::NodeService(ShimSettings settings, VolumeControl &control)
	: ops_(std::move(settings), control)
{
}

template<typename Request, typename Response>
grpc::Status NodeService::serve(const char *rpc, const grpc::ServerContext &context,
				const Request &request, Response &response, Log log)
{
	const auto started = std::chrono::steady_clock::now();
	grpc::Status status =
		grpcStatusOf(perform(ops_, argsOf(request), deadlineOf(context), response));
	if (!status.ok() || log == Log::Always)
		logOutcome(rpc, request.volume_id(), status,
			   std::chrono::duration_cast<std::chrono::microseconds>(
				   std::chrono::steady_clock::now() - started));
	return status;
}

grpc::Status NodeService::NodeStageVolume(grpc::ServerContext *context,
					  const v1::NodeStageVolumeRequest *request,
					  v1::NodeStageVolumeResponse *response)
{
	return serve("NodeStageVolume", *context, *request, *response);
}

grpc::Status NodeService::NodeUnstageVolume(grpc::ServerContext *context,
					    const v1::NodeUnstageVolumeRequest *request,
					    v1::NodeUnstageVolumeResponse *response)
{
	return serve("NodeUnstageVolume", *context, *request, *response);
}

grpc::Status NodeService::NodePublishVolume(grpc::ServerContext *context,
					    const v1::NodePublishVolumeRequest *request,
					    v1::NodePublishVolumeResponse *response)
{
	return serve("NodePublishVolume", *context, *request, *response);
}

grpc::Status NodeService::NodeUnpublishVolume(grpc::ServerContext *context,
					      const v1::NodeUnpublishVolumeRequest *request,
					      v1::NodeUnpublishVolumeResponse *response)
{
	return serve("NodeUnpublishVolume", *context, *request, *response);
}

grpc::Status NodeService::NodeGetVolumeStats(grpc::ServerContext *context,
					     const v1::NodeGetVolumeStatsRequest *request,
					     v1::NodeGetVolumeStatsResponse *response)
{
	/* Asked every minute per volume: only failures are worth a line. */
	return serve("NodeGetVolumeStats", *context, *request, *response, Log::FailuresOnly);
}

grpc::Status NodeService::NodeExpandVolume(grpc::ServerContext *context,
					   const v1::NodeExpandVolumeRequest *request,
					   v1::NodeExpandVolumeResponse *response)
{
	return serve("NodeExpandVolume", *context, *request, *response);
}

grpc::Status NodeService::NodeGetCapabilities(grpc::ServerContext * /*context*/,
					      const v1::NodeGetCapabilitiesRequest * /*request*/,
					      v1::NodeGetCapabilitiesResponse *response)
{
	using Rpc = v1::NodeServiceCapability::RPC;
	for (const Rpc::Type type :
	     { Rpc::STAGE_UNSTAGE_VOLUME, Rpc::GET_VOLUME_STATS, Rpc::EXPAND_VOLUME,
	       Rpc::VOLUME_CONDITION, Rpc::SINGLE_NODE_MULTI_WRITER })
		response->add_capabilities()->mutable_rpc()->set_type(type);
	return grpc::Status::OK;
}

grpc::Status NodeService::NodeGetInfo(grpc::ServerContext * /*context*/,
				      const v1::NodeGetInfoRequest * /*request*/,
				      v1::NodeGetInfoResponse *response)
{
	const ShimSettings &settings = ops_.settings();
	response->set_node_id(settings.nodeId);
	response->set_max_volumes_per_node(settings.maxVolumes);
	if (!settings.topology.empty()) {
		auto *segments = response->mutable_accessible_topology()->mutable_segments();
		for (const auto &[key, value] : settings.topology)
			(*segments)[key] = value;
	}
	return grpc::Status::OK;
}

} /* namespace rbdvolume::csi */
