/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The nbd netlink requests byte by byte, the replies read back from bytes
 * built here, and one real question to the running kernel: the id of its
 * netlink controller family, which every kernel has.
 */
#include "host/drivers/nbd/nbd_netlink.hpp"

#include <cerrno>
#include <cstring>

#include <linux/genetlink.h>
#include <linux/nbd-netlink.h>
#include <linux/netlink.h>

#include <gtest/gtest.h>

namespace rbdvolume::testing {
namespace {

/* netlink's own macros compute in int; these in size_t (all three headers are 4-aligned). */
constexpr size_t align4(size_t size)
{
	return (size + 3) & ~size_t{ 3 };
}
constexpr size_t MessageHeaderSize = sizeof(nlmsghdr);
constexpr size_t GenlHeaderSize = sizeof(genlmsghdr);
constexpr size_t AttrHeaderSize = sizeof(nlattr);

using Bytes = std::vector<uint8_t>;

template<typename T> T at(const Bytes &bytes, size_t offset)
{
	T value{};
	EXPECT_LE(offset + sizeof(T), bytes.size());
	if (offset + sizeof(T) <= bytes.size())
		std::memcpy(&value, bytes.data() + offset, sizeof(T));
	return value;
}

template<typename T> void put(Bytes &bytes, const T &value)
{
	const auto *raw = reinterpret_cast<const uint8_t *>(&value);
	bytes.insert(bytes.end(), raw, raw + sizeof(T));
}

/* One reply message: header with SEQ, then PAYLOAD; its length filled in. */
Bytes message(uint16_t type, uint32_t seq, const Bytes &payload)
{
	Bytes out;
	put(out,
	    nlmsghdr{ static_cast<uint32_t>(MessageHeaderSize + payload.size()), type, 0, seq, 0 });
	out.insert(out.end(), payload.begin(), payload.end());
	out.resize(align4(out.size()), 0);
	return out;
}

Bytes errorReply(uint32_t seq, int code)
{
	Bytes payload;
	put(payload, nlmsgerr{ code, nlmsghdr{} });
	return message(NLMSG_ERROR, seq, payload);
}

Bytes familyReply(uint32_t seq, uint16_t id)
{
	Bytes payload;
	put(payload, genlmsghdr{ CTRL_CMD_NEWFAMILY, 2, 0 });
	const char name[] = "nbd";
	put(payload, nlattr{ AttrHeaderSize + sizeof name, CTRL_ATTR_FAMILY_NAME });
	payload.insert(payload.end(), name, name + sizeof name);
	payload.resize(align4(payload.size()), 0);
	put(payload, nlattr{ AttrHeaderSize + sizeof id, CTRL_ATTR_FAMILY_ID });
	put(payload, id);
	payload.resize(align4(payload.size()), 0);
	return message(GENL_ID_CTRL, seq, payload);
}

TEST(NbdNetlink, FamilyRequestNamesTheFamily)
{
	const Bytes bytes = genlFamilyRequest("nbd", 7);
	ASSERT_EQ(bytes.size(), MessageHeaderSize + GenlHeaderSize + align4(AttrHeaderSize + 4));
	const auto header = at<nlmsghdr>(bytes, 0);
	EXPECT_EQ(header.nlmsg_len, bytes.size());
	EXPECT_EQ(header.nlmsg_type, GENL_ID_CTRL);
	EXPECT_EQ(header.nlmsg_flags, NLM_F_REQUEST); /* no acknowledgement after the reply */
	EXPECT_EQ(header.nlmsg_seq, 7U);
	EXPECT_EQ(at<genlmsghdr>(bytes, MessageHeaderSize).cmd, CTRL_CMD_GETFAMILY);
	const auto attribute = at<nlattr>(bytes, MessageHeaderSize + GenlHeaderSize);
	EXPECT_EQ(attribute.nla_type, CTRL_ATTR_FAMILY_NAME);
	EXPECT_EQ(attribute.nla_len, AttrHeaderSize + 4); /* "nbd" and its NUL */
	EXPECT_EQ(std::memcmp(bytes.data() + MessageHeaderSize + GenlHeaderSize + AttrHeaderSize,
			      "nbd", 4),
		  0);
}

TEST(NbdNetlink, ReconfigureCarriesIndexCookieAndTimeout)
{
	const std::string cookie =
		"rbd-volume.data.0123456789abcdef"; /* 32 chars + NUL: 33, padded */
	const Bytes bytes = nbdTimeoutRequest(29, 2, 5, cookie, 5);
	const auto header = at<nlmsghdr>(bytes, 0);
	EXPECT_EQ(header.nlmsg_len, bytes.size());
	EXPECT_EQ(header.nlmsg_type, 29);
	EXPECT_EQ(header.nlmsg_flags, NLM_F_REQUEST | NLM_F_ACK);
	const auto genl = at<genlmsghdr>(bytes, MessageHeaderSize);
	EXPECT_EQ(genl.cmd, NBD_CMD_RECONFIGURE);
	EXPECT_EQ(genl.version, NBD_GENL_VERSION);

	size_t offset = MessageHeaderSize + GenlHeaderSize;
	auto attribute = at<nlattr>(bytes, offset);
	EXPECT_EQ(attribute.nla_type, NBD_ATTR_INDEX);
	EXPECT_EQ(attribute.nla_len, AttrHeaderSize + 4);
	EXPECT_EQ(at<uint32_t>(bytes, offset + AttrHeaderSize), 5U);
	offset += align4(attribute.nla_len);

	attribute = at<nlattr>(bytes, offset);
	EXPECT_EQ(attribute.nla_type, NBD_ATTR_BACKEND_IDENTIFIER);
	EXPECT_EQ(attribute.nla_len, AttrHeaderSize + cookie.size() + 1);
	EXPECT_EQ(
		std::string(reinterpret_cast<const char *>(bytes.data() + offset + AttrHeaderSize)),
		cookie);
	offset += align4(attribute.nla_len);

	attribute = at<nlattr>(bytes, offset);
	EXPECT_EQ(attribute.nla_type, NBD_ATTR_TIMEOUT);
	EXPECT_EQ(attribute.nla_len, AttrHeaderSize + 8);
	EXPECT_EQ(at<uint64_t>(bytes, offset + AttrHeaderSize), 5U);
	EXPECT_EQ(offset + align4(attribute.nla_len), bytes.size());
}

TEST(NbdNetlink, FamilyIdReadFromTheReply)
{
	Bytes reply = familyReply(1, 31);
	auto id = genlFamilyId(reply, 1, "nbd");
	ASSERT_TRUE(id) << id.error().message;
	EXPECT_EQ(*id, 31);

	/* Another request's answer first, then ours. */
	Bytes both = familyReply(9, 40);
	both.insert(both.end(), reply.begin(), reply.end());
	EXPECT_EQ(genlFamilyId(both, 1, "nbd").value_or(0), 31);
}

TEST(NbdNetlink, FamilyErrorsSaySo)
{
	auto missing = genlFamilyId(errorReply(1, -ENOENT), 1, "nbd");
	ASSERT_FALSE(missing);
	EXPECT_EQ(missing.error().code, Errc::NotFound);
	EXPECT_NE(missing.error().message.find("the nbd module is not loaded"), std::string::npos);

	auto refused = genlFamilyId(errorReply(1, -EPERM), 1, "nbd");
	ASSERT_FALSE(refused);
	EXPECT_EQ(refused.error().sysErrno, EPERM);

	/* No answer to our request, a truncated one, one without the id. */
	EXPECT_FALSE(genlFamilyId(familyReply(2, 31), 1, "nbd"));
	Bytes truncated = familyReply(1, 31);
	truncated.resize(truncated.size() - 8);
	EXPECT_FALSE(genlFamilyId(truncated, 1, "nbd"));
	Bytes payload;
	put(payload, genlmsghdr{ CTRL_CMD_NEWFAMILY, 2, 0 });
	EXPECT_FALSE(genlFamilyId(message(GENL_ID_CTRL, 1, payload), 1, "nbd"));
	EXPECT_FALSE(genlFamilyId(Bytes{}, 1, "nbd"));
}

TEST(NbdNetlink, AcknowledgementOrTheKernelsErrno)
{
	EXPECT_TRUE(netlinkAck(errorReply(2, 0), 2));
	auto refused = netlinkAck(errorReply(2, -EINVAL), 2);
	ASSERT_FALSE(refused);
	EXPECT_EQ(refused.error().sysErrno, EINVAL);
	EXPECT_NE(refused.error().message.find("the kernel refused"), std::string::npos);
	EXPECT_FALSE(netlinkAck(errorReply(3, 0), 2));	 /* not ours */
	EXPECT_FALSE(netlinkAck(familyReply(2, 31), 2)); /* not an acknowledgement */
}

TEST(NbdNetlink, TheRunningKernelNamesItsFamilies)
{
	auto controller = genlFamilyOf("nlctrl");
	ASSERT_TRUE(controller) << controller.error().message;
	EXPECT_EQ(*controller, GENL_ID_CTRL);
	auto none = genlFamilyOf("rbdv-no-such");
	ASSERT_FALSE(none);
	EXPECT_EQ(none.error().code, Errc::NotFound);
}

TEST(NbdNetlink, OnlyAnNbdDeviceIsAsked)
{
	auto notNbd = setNbdRequestTimeout("/dev/sda", "rbd-volume.data.0123456789abcdef", 5);
	ASSERT_FALSE(notNbd);
	EXPECT_EQ(notNbd.error().code, Errc::InvalidArgument);
}

} /* namespace */
} /* namespace rbdvolume::testing */
