/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "host/drivers/nbd/nbd_netlink.hpp"

#include <cerrno>
#include <charconv>
#include <cstring>
#include <optional>

#include <linux/genetlink.h>
#include <linux/nbd-netlink.h>
#include <linux/netlink.h>
#include <sys/socket.h>
#include <sys/time.h>

#include "common/errno_text.hpp"
#include "common/unique_fd.hpp"
#include "host/drivers/nbd/nbd_devices.hpp"

namespace rbdvolume {
namespace {

/* netlink's own macros compute in int; these in size_t (all three headers are 4-aligned). */
constexpr size_t align4(size_t size)
{
	return (size + 3) & ~size_t{ 3 };
}
constexpr size_t MessageHeaderSize = sizeof(nlmsghdr);
constexpr size_t GenlHeaderSize = sizeof(genlmsghdr);
constexpr size_t AttrHeaderSize = sizeof(nlattr);

constexpr size_t ReplyBufferSize = 32768; /* a family's reply lists its operations */

template<typename T> void append(std::vector<uint8_t> &out, const T &value)
{
	const auto *bytes = reinterpret_cast<const uint8_t *>(&value);
	out.insert(out.end(), bytes, bytes + sizeof(T));
}

void appendAttribute(std::vector<uint8_t> &out, uint16_t type, const void *data, size_t size)
{
	const nlattr header{ static_cast<uint16_t>(AttrHeaderSize + size), type };
	append(out, header);
	const auto *bytes = static_cast<const uint8_t *>(data);
	out.insert(out.end(), bytes, bytes + size);
	out.resize(align4(out.size()), 0);
}

/* nlmsghdr + genlmsghdr; the length is filled in by finished(). */
std::vector<uint8_t> genlHeader(uint16_t type, uint16_t flags, uint8_t command, uint8_t version,
				uint32_t seq)
{
	std::vector<uint8_t> out;
	append(out, nlmsghdr{ 0, type, flags, seq, 0 });
	append(out, genlmsghdr{ command, version, 0 });
	return out;
}

std::vector<uint8_t> finished(std::vector<uint8_t> message)
{
	const auto length = static_cast<uint32_t>(message.size());
	std::memcpy(message.data(), &length, sizeof length);
	return message;
}

template<typename T> std::optional<T> readAt(std::span<const uint8_t> bytes, size_t offset)
{
	if (offset > bytes.size() || bytes.size() - offset < sizeof(T))
		return std::nullopt;
	T value{};
	std::memcpy(&value, bytes.data() + offset, sizeof(T));
	return value;
}

/* The message in REPLY answering SEQ: its header and its whole bytes. */
struct Answer {
	nlmsghdr header;
	std::span<const uint8_t> bytes;
};

Result<Answer> answerTo(std::span<const uint8_t> reply, uint32_t seq)
{
	size_t offset = 0;
	while (auto header = readAt<nlmsghdr>(reply, offset)) {
		if (header->nlmsg_len < MessageHeaderSize ||
		    header->nlmsg_len > reply.size() - offset)
			break;
		if (header->nlmsg_seq == seq)
			return Answer{ *header, reply.subspan(offset, header->nlmsg_len) };
		offset += align4(header->nlmsg_len);
	}
	return fail(Errc::Io,
		    "the kernel's netlink reply has no answer to request " + std::to_string(seq));
}

/* NLMSG_ERROR's code: 0 for an acknowledgement, else a negative errno. */
std::optional<int> errorCode(const Answer &answer)
{
	if (answer.header.nlmsg_type != NLMSG_ERROR)
		return std::nullopt;
	return readAt<int>(answer.bytes, MessageHeaderSize).value_or(-EBADMSG);
}

class GenericNetlink
{
public:
	Result<void> open()
	{
		fd_ = UniqueFd(socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC));
		if (!fd_.valid())
			return failErrno("cannot open a generic netlink socket", errno);
		const timeval bound{ NetlinkReplyTimeoutSec, 0 };
		if (setsockopt(fd_.get(), SOL_SOCKET, SO_RCVTIMEO, &bound, sizeof bound) < 0 ||
		    setsockopt(fd_.get(), SOL_SOCKET, SO_SNDTIMEO, &bound, sizeof bound) < 0)
			return failErrno("cannot bound the netlink socket's waits", errno);
		return {};
	}

	/*
	 * Sends MESSAGE, then reads datagrams until one answers SEQ (a reply
	 * or an acknowledgement): a datagram left over from an earlier
	 * request is skipped, not taken for the answer.
	 */
	Result<std::vector<uint8_t>> ask(const std::vector<uint8_t> &message, uint32_t seq)
	{
		sockaddr_nl kernel{};
		kernel.nl_family = AF_NETLINK;
		if (sendto(fd_.get(), message.data(), message.size(), 0,
			   reinterpret_cast<const sockaddr *>(&kernel), sizeof kernel) < 0)
			return failErrno("cannot send to the kernel's netlink", errno);
		constexpr int MaxDatagrams = 8;
		for (int i = 0; i < MaxDatagrams; i++) {
			std::vector<uint8_t> reply(ReplyBufferSize);
			const ssize_t got = recv(fd_.get(), reply.data(), reply.size(), MSG_TRUNC);
			if (got < 0 && errno == EAGAIN)
				return fail(Errc::Timeout,
					    "no netlink reply within " +
						    std::to_string(NetlinkReplyTimeoutSec) + " s");
			if (got < 0)
				return failErrno("cannot read the netlink reply", errno);
			if (static_cast<size_t>(got) > reply.size())
				return fail(Errc::Io, "a netlink reply larger than " +
							      std::to_string(ReplyBufferSize) +
							      " bytes");
			reply.resize(static_cast<size_t>(got));
			if (answerTo(reply, seq))
				return reply;
		}
		return fail(Errc::Io, "the kernel's netlink replies have no answer to request " +
					      std::to_string(seq));
	}

private:
	UniqueFd fd_;
};

Result<uint16_t> resolveFamily(GenericNetlink &netlink, const std::string &name)
{
	constexpr uint32_t Seq = 1;
	auto reply = netlink.ask(genlFamilyRequest(name, Seq), Seq);
	if (!reply)
		return tl::make_unexpected(reply.error());
	return genlFamilyId(*reply, Seq, name);
}

std::optional<uint32_t> nbdIndex(const std::string &device)
{
	const std::string name = nbdDeviceName(device);
	uint32_t index = 0;
	if (name.empty() ||
	    std::from_chars(name.data() + 3, name.data() + name.size(), index).ec != std::errc())
		return std::nullopt;
	return index;
}

} /* namespace */

std::vector<uint8_t> genlFamilyRequest(const std::string &family, uint32_t seq)
{
	std::vector<uint8_t> message =
		genlHeader(GENL_ID_CTRL, NLM_F_REQUEST, CTRL_CMD_GETFAMILY, 1, seq);
	appendAttribute(message, CTRL_ATTR_FAMILY_NAME, family.c_str(), family.size() + 1);
	return finished(std::move(message));
}

std::vector<uint8_t> nbdTimeoutRequest(uint16_t family, uint32_t seq, uint32_t index,
				       const std::string &cookie, uint64_t seconds)
{
	std::vector<uint8_t> message = genlHeader(family, NLM_F_REQUEST | NLM_F_ACK,
						  NBD_CMD_RECONFIGURE, NBD_GENL_VERSION, seq);
	appendAttribute(message, NBD_ATTR_INDEX, &index, sizeof index);
	appendAttribute(message, NBD_ATTR_BACKEND_IDENTIFIER, cookie.c_str(), cookie.size() + 1);
	appendAttribute(message, NBD_ATTR_TIMEOUT, &seconds, sizeof seconds);
	return finished(std::move(message));
}

Result<uint16_t> genlFamilyId(std::span<const uint8_t> reply, uint32_t seq,
			      const std::string &family)
{
	auto answer = answerTo(reply, seq);
	if (!answer)
		return tl::make_unexpected(answer.error());
	if (auto code = errorCode(*answer)) {
		if (*code == -ENOENT)
			return fail(Errc::NotFound,
				    "the kernel has no '" + family + "' netlink family" +
					    (family == NBD_GENL_FAMILY_NAME
						     ? " (the nbd module is not loaded, or this "
						       "is not the host's network namespace)"
						     : ""),
				    ENOENT);
		return failErrno("the kernel refused to name its '" + family + "' netlink family",
				 -*code);
	}
	size_t offset = MessageHeaderSize + GenlHeaderSize;
	while (auto attribute = readAt<nlattr>(answer->bytes, offset)) {
		if (attribute->nla_len < AttrHeaderSize)
			break;
		if (attribute->nla_type == CTRL_ATTR_FAMILY_ID) {
			if (auto id = readAt<uint16_t>(answer->bytes, offset + AttrHeaderSize))
				return *id;
			break;
		}
		offset += align4(attribute->nla_len);
	}
	return fail(Errc::Io, "the kernel's family reply carries no family id");
}

Result<void> netlinkAck(std::span<const uint8_t> reply, uint32_t seq)
{
	auto answer = answerTo(reply, seq);
	if (!answer)
		return tl::make_unexpected(answer.error());
	const std::optional<int> code = errorCode(*answer);
	if (!code)
		return fail(Errc::Io, "the kernel answered with message type " +
					      std::to_string(answer->header.nlmsg_type) +
					      ", not an acknowledgement");
	if (*code != 0)
		return failErrno("the kernel refused", -*code);
	return {};
}

Result<uint16_t> genlFamilyOf(const std::string &name)
{
	GenericNetlink netlink;
	if (auto opened = netlink.open(); !opened)
		return tl::make_unexpected(opened.error());
	return resolveFamily(netlink, name);
}

Result<void> setNbdRequestTimeout(const std::string &device, const std::string &cookie,
				  uint64_t seconds)
{
	const std::optional<uint32_t> index = nbdIndex(device);
	if (!index)
		return fail(Errc::InvalidArgument, "'" + device + "' is not an nbd device");
	GenericNetlink netlink;
	if (auto opened = netlink.open(); !opened)
		return opened;
	auto family = resolveFamily(netlink, NBD_GENL_FAMILY_NAME);
	if (!family)
		return tl::make_unexpected(family.error());
	constexpr uint32_t Seq = 2;
	auto reply = netlink.ask(nbdTimeoutRequest(*family, Seq, *index, cookie, seconds), Seq);
	if (!reply)
		return tl::make_unexpected(reply.error());
	if (auto acked = netlinkAck(*reply, Seq); !acked)
		return fail(acked.error().code,
			    "setting the request timeout of " + device + ": " +
				    acked.error().message +
				    " (the kernel log says why: a device no longer "
				    "configured, or carrying another cookie)",
			    acked.error().sysErrno);
	return {};
}

} /* namespace rbdvolume */
