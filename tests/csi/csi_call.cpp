/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rbdv-csi-call: one unary RPC of the project's protos, request and response
 * in protobuf's JSON mapping, for shell tests. Methods are looked up in the
 * compiled-in descriptors and called through a generic stub.
 *
 *   rbdv-csi-call [--timeout SECONDS] ENDPOINT SERVICE.METHOD [JSON]
 *
 * Exit: 0 and the response on stdout; 10 + the gRPC code and "CODE: message"
 * on stderr when the call fails; 2 for a usage error or a request that does
 * not parse.
 */
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <future>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "csi.pb.h"
#include "pluginregistration.pb.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>
#include <google/protobuf/util/json_util.h>
#include <grpcpp/client_context.h>
#include <grpcpp/create_channel.h>
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/impl/codegen/proto_utils.h> /* SerializationTraits for any Message */
#include <grpcpp/security/credentials.h>

namespace {

namespace pb = google::protobuf;

constexpr int ExitUsage = 2;
constexpr int ExitRpcBase = 10;
constexpr double DefaultTimeout = 60;

struct Arguments {
	double timeout = DefaultTimeout;
	std::string endpoint;
	std::string method;
	std::string json = "{}";
};

int usage(std::FILE *out, int status)
{
	std::fprintf(
		out,
		"Usage: rbdv-csi-call [--timeout SECONDS] ENDPOINT SERVICE.METHOD [JSON]\n\n"
		"Calls one method of csi.v1 (Identity, Node) or pluginregistration\n"
		"(Registration) on a unix socket, e.g. Node.NodeStageVolume.\n"
		"ENDPOINT is a socket path or a unix: URI; JSON is the request in\n"
		"protobuf's JSON mapping (default {}). The response is printed as JSON.\n"
		"Exit status: 0 done, 2 usage or bad JSON, 10 + gRPC code when the call fails.\n"
		"  --timeout SECONDS  deadline of the call (default %g)\n",
		DefaultTimeout);
	return status;
}

/* Returns the exit status when the arguments do not make a call, else -1. */
int parseArguments(int argc, char *argv[], Arguments &args)
{
	std::vector<std::string> positional;
	for (int i = 1; i < argc; i++) {
		const std::string_view arg = argv[i];
		if (arg == "--help" || arg == "-h")
			return usage(stdout, 0);
		if (arg == "--timeout" && i + 1 < argc) {
			char *end = nullptr;
			args.timeout = std::strtod(argv[++i], &end);
			if (*end != '\0' || !(args.timeout > 0)) {
				std::fprintf(stderr, "rbdv-csi-call: bad timeout '%s'\n", argv[i]);
				return ExitUsage;
			}
			continue;
		}
		if (arg.starts_with("--"))
			return usage(stderr, ExitUsage);
		positional.emplace_back(arg);
	}
	if (positional.size() < 2 || positional.size() > 3)
		return usage(stderr, ExitUsage);
	args.endpoint = positional[0];
	args.method = positional[1];
	if (positional.size() == 3)
		args.json = positional[2];
	return -1;
}

/* "Node.NodeStageVolume" or "csi.v1.Node.NodeStageVolume"; nullptr if unknown. */
const pb::MethodDescriptor *findMethod(std::string_view name)
{
	/* Naming a message of each file links it in and registers its descriptors. */
	const std::array files = { csi::v1::ProbeRequest::descriptor()->file(),
				   pluginregistration::InfoRequest::descriptor()->file() };
	const size_t dot = name.rfind('.');
	if (dot == std::string_view::npos)
		return nullptr;
	const std::string_view service = name.substr(0, dot);
	const std::string method(name.substr(dot + 1));
	for (const pb::FileDescriptor *file : files) {
		for (int i = 0; i < file->service_count(); i++) {
			const pb::ServiceDescriptor *candidate = file->service(i);
			if (candidate->name() == service || candidate->full_name() == service)
				return candidate->FindMethodByName(method);
		}
	}
	return nullptr;
}

std::unique_ptr<pb::Message> newMessage(const pb::Descriptor *type)
{
	return std::unique_ptr<pb::Message>(
		pb::MessageFactory::generated_factory()->GetPrototype(type)->New());
}

const char *codeName(grpc::StatusCode code)
{
	static constexpr std::array<const char *, 17> Names = {
		"OK",
		"CANCELLED",
		"UNKNOWN",
		"INVALID_ARGUMENT",
		"DEADLINE_EXCEEDED",
		"NOT_FOUND",
		"ALREADY_EXISTS",
		"PERMISSION_DENIED",
		"RESOURCE_EXHAUSTED",
		"FAILED_PRECONDITION",
		"ABORTED",
		"OUT_OF_RANGE",
		"UNIMPLEMENTED",
		"INTERNAL",
		"UNAVAILABLE",
		"DATA_LOSS",
		"UNAUTHENTICATED",
	};
	const auto index = static_cast<size_t>(code);
	return index < Names.size() ? Names.at(index) : "UNKNOWN";
}

grpc::Status call(const Arguments &args, const pb::MethodDescriptor &method,
		  const pb::Message &request, pb::Message &response)
{
	const std::string target =
		args.endpoint.starts_with("unix:") ? args.endpoint : "unix:" + args.endpoint;
	grpc::TemplatedGenericStub<pb::Message, pb::Message> stub(
		grpc::CreateChannel(target, grpc::InsecureChannelCredentials()));
	grpc::ClientContext context;
	context.set_deadline(std::chrono::system_clock::now() +
			     std::chrono::duration_cast<std::chrono::system_clock::duration>(
				     std::chrono::duration<double>(args.timeout)));
	std::promise<grpc::Status> done;
	stub.UnaryCall(&context, "/" + method.service()->full_name() + "/" + method.name(),
		       grpc::StubOptions(), &request, &response,
		       [&done](const grpc::Status &status) { done.set_value(status); });
	return done.get_future().get();
}

int run(int argc, char *argv[])
{
	Arguments args;
	if (const int status = parseArguments(argc, argv, args); status >= 0)
		return status;
	const pb::MethodDescriptor *method = findMethod(args.method);
	if (method == nullptr) {
		std::fprintf(stderr, "rbdv-csi-call: no method '%s'\n", args.method.c_str());
		return ExitUsage;
	}
	const std::unique_ptr<pb::Message> request = newMessage(method->input_type());
	const pb::util::Status parsed = pb::util::JsonStringToMessage(args.json, request.get());
	if (!parsed.ok()) {
		std::fprintf(stderr, "rbdv-csi-call: bad %s: %s\n",
			     method->input_type()->full_name().c_str(),
			     std::string(parsed.message()).c_str());
		return ExitUsage;
	}
	const std::unique_ptr<pb::Message> response = newMessage(method->output_type());
	const grpc::Status status = call(args, *method, *request, *response);
	if (!status.ok()) {
		std::fprintf(stderr, "%s: %s\n", codeName(status.error_code()),
			     status.error_message().c_str());
		return ExitRpcBase + static_cast<int>(status.error_code());
	}
	pb::util::JsonPrintOptions options;
	options.preserve_proto_field_names = true;
	std::string json;
	if (const pb::util::Status printed =
		    pb::util::MessageToJsonString(*response, &json, options);
	    !printed.ok()) {
		std::fprintf(stderr, "rbdv-csi-call: cannot print the response: %s\n",
			     std::string(printed.message()).c_str());
		return 1;
	}
	std::printf("%s\n", json.c_str());
	return 0;
}

} /* namespace */

int main(int argc, char *argv[])
{
	try {
		return run(argc, argv);
	} catch (const std::exception &error) {
		std::fprintf(stderr, "rbdv-csi-call: %s\n", error.what());
	}
	return 1;
}
