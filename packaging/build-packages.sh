#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# build-packages.sh: builds the Debian packages and checks the RPM spec.
#
#   packaging/build-packages.sh [--tests] OUTDIR
#
# 1. copies the source tree into a temporary directory: in a git checkout the
#    tracked files plus untracked ones that are not ignored, as they are in
#    the work tree (uncommitted work is packaged too; CI's checkout has none),
#    elsewhere everything but build directories; packaging/debian goes to
#    debian/ there;
# 2. runs `dpkg-buildpackage -us -uc -b` in it (DEB_BUILD_OPTIONS: nocheck,
#    parallel=$(nproc), noautodbgsym; the profile nocheck);
#    with --tests: the profiles pkg.rbd-volume.werror and
#    pkg.rbd-volume.hostsuites instead: what the system, kernel and packages
#    suites drive is built too (not the unit, integration and ceph suites'
#    programs: CI runs those from its sanitized build), all of it with -Werror
#    (none is run), with line tables (-g1) for Debian's full debug
#    information (-g): the same code, a third less compile time; the tree is
#    kept in OUTDIR/tree and its meson build directory is OUTDIR/build, for
#    the suites to run against (CI's gcc build: scripts/test.sh);
# 3. copies the .debs (rbd-volume, rbd-volume-csi) to OUTDIR, after removing
#    the rbd-volume*.deb files already there;
# 4. runs lintian on them: fails on an error, prints everything else
#    (packaging/debian/*.lintian-overrides hold the justified exceptions);
# 5. parses packaging/rpm/rbd-volume.spec with `rpmspec -P` (Debian's rpm).
#
# Progress lines start with "==>"; each step prints how long it took. Exit 0
# when all of it passed, 1 otherwise (the build log's tail is printed), 2 on
# a usage error. Needs dpkg-dev, debhelper, fakeroot, lintian, rpm and the
# build dependencies (scripts/install-deps.sh installs them all).
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)

usage() {
	echo "usage: packaging/build-packages.sh [--tests] OUTDIR" >&2
	exit 2
}
die() {
	echo "build-packages: ERROR: $*" >&2
	exit 1
}

tests=no
if [ "${1:-}" = --tests ]; then
	tests=yes
	shift
fi
if [ $# -ne 1 ] || [ -z "$1" ]; then usage; fi
mkdir -p "$1"
out=$(cd "$1" && pwd)

now() { date +%s; }
started_all=$(now)
step_started=0
step() {
	step_started=$(now)
	echo "==> $*"
}
step_done() { echo "    ($(($(now) - step_started)) s)"; }

for tool in dpkg-buildpackage dh fakeroot lintian rpmspec dpkg-parsechangelog meson; do
	command -v "$tool" >/dev/null || die "$tool not found (scripts/install-deps.sh installs it)"
done

# --- one version everywhere -------------------------------------------------------

step "versions"
meson_version=$(sed -n "s/^[[:space:]]*version[[:space:]]*:[[:space:]]*'\([^']*\)'.*/\1/p" "$src/meson.build" | head -n1)
deb_version=$(dpkg-parsechangelog -l "$src/packaging/debian/changelog" -S Version)
rpm_version=$(sed -n 's/^Version:[[:space:]]*//p' "$src/packaging/rpm/rbd-volume.spec")
echo "    meson.build $meson_version, debian/changelog $deb_version, rbd-volume.spec $rpm_version"
[ "${deb_version%-*}" = "$meson_version" ] ||
	die "packaging/debian/changelog is at ${deb_version%-*}, meson.build at $meson_version: add a changelog entry (dch -v $meson_version-1)"
[ "$rpm_version" = "$meson_version" ] ||
	die "packaging/rpm/rbd-volume.spec is at $rpm_version, meson.build at $meson_version"

# --- the source tree, with debian/ ------------------------------------------------

if [ $tests = yes ]; then
	# kept: the other suites run against its build directory
	work=$out/tree
	rm -rf --one-file-system "$work" "$out/build"
	mkdir -p "$work"
else
	work=$(mktemp -d "${TMPDIR:-/var/tmp}/rbd-volume-packages.XXXXXX")
	cleanup() { rm -rf --one-file-system "$work"; }
	trap cleanup EXIT
fi
tree=$work/rbd-volume-$meson_version

step "copying the source tree to $tree"
mkdir -p "$tree"
if git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	# Files deleted in the work tree but still in the index are left out.
	(cd "$src" && git ls-files -z -c -o --exclude-standard |
		while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
		tar --null -T - -cf -) | tar -C "$tree" -xf -
	how="git ls-files (tracked and untracked, not ignored)"
else
	tar -C "$src" --exclude='./build*' --exclude=./.git --exclude=./.cache -cf - . | tar -C "$tree" -xf -
	how="every file but build directories"
fi
rm -rf "$tree/debian"
cp -a "$tree/packaging/debian" "$tree/debian"
echo "    $(find "$tree" -type f | wc -l) files: $how"
step_done

# --- dpkg-buildpackage ----------------------------------------------------------------

profiles=nocheck what="nocheck" debug_strip="" debug_append=""
if [ $tests = yes ]; then
	profiles=pkg.rbd-volume.werror,pkg.rbd-volume.hostsuites
	what="with what the system, kernel and packages suites drive, -Werror, -g1"
	# gcc's code does not depend on the -g level; full debug information of
	# every test made a third of the compile time
	debug_strip=-g debug_append=-g1
fi
step "dpkg-buildpackage -us -uc -b -P$profiles ($what; $(nproc) jobs; log: $out/build.log)"
# Old packages go first: a failed build must not leave them to be tested.
rm -f "$out"/rbd-volume*.deb
if ! (cd "$tree" && DEB_BUILD_OPTIONS="nocheck parallel=$(nproc) noautodbgsym" \
	DEB_CXXFLAGS_STRIP=$debug_strip DEB_CXXFLAGS_APPEND=$debug_append \
	dpkg-buildpackage -us -uc -b -P"$profiles") >"$out/build.log" 2>&1; then
	tail -n 40 "$out/build.log" >&2
	die "dpkg-buildpackage failed (whole log: $out/build.log)"
fi
if [ $tests = yes ]; then
	builddir=$(find "$tree" -maxdepth 1 -type d -name 'obj-*' | head -n 1)
	[ -f "$builddir/build.ninja" ] || die "dpkg-buildpackage left no meson build directory in $tree"
	ln -sfn "$builddir" "$out/build"
fi
debs=()
for deb in "$work"/rbd-volume_*.deb "$work"/rbd-volume-csi_*.deb; do
	[ -e "$deb" ] || die "dpkg-buildpackage made no $(basename "$deb")"
	cp "$deb" "$out/"
	debs+=("$out/$(basename "$deb")")
done
# The maintainer scripts debhelper generated, for review.
mkdir -p "$out/maintscripts"
rm -f "$out"/maintscripts/*
cp "$tree"/debian/*.debhelper "$out/maintscripts/" 2>/dev/null || true
for deb in "${debs[@]}"; do
	pkg=$(dpkg-deb -f "$deb" Package)
	for script in preinst postinst prerm postrm conffiles triggers; do
		dpkg-deb --ctrl-tarfile "$deb" | tar -xOf - "./$script" >"$out/maintscripts/$pkg.$script" 2>/dev/null ||
			rm -f "$out/maintscripts/$pkg.$script"
	done
	printf '    %s: %s files, %s KiB; conffiles: %s\n' "$(basename "$deb")" \
		"$(dpkg-deb -c "$deb" | grep -vc '/$')" "$(($(stat -c %s "$deb") / 1024))" \
		"$(dpkg-deb --ctrl-tarfile "$deb" | tar -xOf - ./conffiles 2>/dev/null | tr '\n' ' ' || true)"
done
step_done

# --- lintian ----------------------------------------------------------------------------

step "lintian"
# Root gets a warning of its own from lintian; it is not about the packages.
set +e
lintian --fail-on error --display-info --tag-display-limit 0 "${debs[@]}" >"$out/lintian.log" 2>&1
lintian_rc=$?
set -e
sed -i '/running with root privileges is not recommended/d' "$out/lintian.log"
sed 's/^/    /' "$out/lintian.log"
count() { grep -c "^$1: " "$out/lintian.log" || true; }
echo "    $(count E) errors, $(count W) warnings, $(count I) infos, $(count N) notes"
case $lintian_rc in
0) ;;
1) die "lintian reported errors (above)" ;;
*) die "lintian failed (exit $lintian_rc; see $out/lintian.log)" ;;
esac
step_done

# --- the RPM spec ------------------------------------------------------------------------

step "rpmspec -P packaging/rpm/rbd-volume.spec"
spec=$src/packaging/rpm/rbd-volume.spec
rpmspec -P "$spec" >"$out/rbd-volume.spec.parsed" 2>"$out/rpmspec.log" || {
	cat "$out/rpmspec.log" >&2
	die "rpmspec cannot parse packaging/rpm/rbd-volume.spec"
}
echo "    parsed: $(grep -c '' "$out/rbd-volume.spec.parsed") lines ($out/rbd-volume.spec.parsed)"
# The upgrade rule: scriptlets that stop, restart or enable name the daemon
# (and the shim) only; the templates get nothing but a plain %systemd_postun.
bad=$(grep -E '^%systemd_(post|preun|postun_with_restart)[[:space:]]' "$out/rbd-volume.spec.parsed" |
	grep -E '@\.service' || true)
[ -z "$bad" ] || die "a template unit in a scriptlet that stops, enables or restarts: $bad"
grep -qE '^%systemd_postun_with_restart[[:space:]]+rbd-volumed\.service$' "$out/rbd-volume.spec.parsed" ||
	die "rbd-volume.spec does not restart rbd-volumed.service after an upgrade"
grep -qE '^%systemd_postun[[:space:]].*rbd-volume@\.service' "$out/rbd-volume.spec.parsed" ||
	die "rbd-volume.spec does not reload systemd for the templates (%systemd_postun)"
echo "    scriptlets: rbd-volumed.service restarted after upgrade; templates only reloaded"
step_done

echo "==> packages in $out ($(($(now) - started_all)) s in all):"
for deb in "${debs[@]}"; do echo "    $(basename "$deb")"; done
[ $tests = no ] || echo "    the build directory, for the system, kernel and packages suites: $out/build"
