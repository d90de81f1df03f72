/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A stand-in for rbd-nbd: writes its parent's pid and its argv, one per line,
 * to $RBDV_FAKE_ARGV_FILE, so a test sees what the helper exec'ed, and that it
 * exec'ed (the parent is then the test itself, not the helper).
 */
#include <cstdio>
#include <cstdlib>
#include <unistd.h>

int main(int argc, char **argv)
{
	const char *path = std::getenv("RBDV_FAKE_ARGV_FILE");
	if (path == nullptr)
		return 2;
	FILE *out = std::fopen(path, "w");
	if (out == nullptr)
		return 3;
	std::fprintf(out, "ppid %d\n", static_cast<int>(getppid()));
	for (int i = 0; i < argc; i++)
		std::fprintf(out, "%s\n", argv[i]);
	return std::fclose(out) == 0 ? 0 : 4;
}
