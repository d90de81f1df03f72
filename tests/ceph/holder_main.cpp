/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rbdv-ceph-holder: another client using an image, for the ceph suite. Opens
 * IMAGE read-write (a header watch) and takes its exclusive lock, prints
 * "ready", and holds both until its standard input closes. Plain librbd C
 * API, none of the code under test.
 *
 *   rbdv-ceph-holder CONF CLIENT_ID KEYRING POOL IMAGE
 */
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <unistd.h>

#include <rados/librados.h>
#include <rbd/librbd.h>

namespace {

int failed(const char *what, int ret)
{
	/* librados runs threads of its own: strerror_r (GNU), not strerror. */
	std::array<char, 128> buffer{};
	std::fprintf(stderr, "rbdv-ceph-holder: %s: %s\n", what,
		     strerror_r(-ret, buffer.data(), buffer.size()));
	return 1;
}

void waitForEof()
{
	char buffer[64];
	while (read(STDIN_FILENO, buffer, sizeof(buffer)) > 0 || errno == EINTR)
		errno = 0;
}

int hold(rados_ioctx_t ioctx, const char *image)
{
	rbd_image_t opened = nullptr;
	int ret = rbd_open(ioctx, image, &opened, nullptr);
	if (ret < 0)
		return failed("rbd_open", ret);
	/* -EINVAL: the image has no exclusive-lock feature; the watch alone holds it. */
	ret = rbd_lock_acquire(opened, RBD_LOCK_MODE_EXCLUSIVE);
	if (ret < 0 && ret != -EINVAL) {
		(void)rbd_close(opened);
		return failed("rbd_lock_acquire", ret);
	}
	std::printf("ready\n");
	std::fflush(stdout);
	waitForEof();
	(void)rbd_close(opened);
	return 0;
}

} /* namespace */

int main(int argc, char **argv)
{
	if (argc != 6) {
		std::fprintf(stderr, "usage: rbdv-ceph-holder CONF CLIENT_ID KEYRING POOL IMAGE\n");
		return 2;
	}
	const std::string name = std::string("client.") + argv[2];
	rados_t cluster = nullptr;
	int ret = rados_create2(&cluster, "ceph", name.c_str(), 0);
	if (ret < 0)
		return failed("rados_create2", ret);
	ret = rados_conf_read_file(cluster, argv[1]);
	if (ret == 0)
		ret = rados_conf_set(cluster, "keyring", argv[3]);
	if (ret == 0)
		ret = rados_conf_set(cluster, "client_mount_timeout", "20");
	if (ret == 0)
		ret = rados_connect(cluster);
	rados_ioctx_t ioctx = nullptr;
	if (ret == 0)
		ret = rados_ioctx_create(cluster, argv[4], &ioctx);
	int status = ret < 0 ? failed("connecting", ret) : hold(ioctx, argv[5]);
	if (ioctx)
		rados_ioctx_destroy(ioctx);
	rados_shutdown(cluster);
	return status;
}
