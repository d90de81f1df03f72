#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# build-cephcsi.sh: ceph-csi's `cephcsi` (its RBD node plugin) for the
# side-by-side figure (tests/kernel/side_by_side.sh), built offline: from a
# git clone of github.com/ceph/ceph-csi whose release tags vendor every Go
# module, with Go 1.23 from Debian's bookworm-backports (fetched with
# `apt-get download` under OUT; the machine's apt configuration untouched)
# and Debian's Ceph libraries. About five minutes on two cores.
#
#   tests/kernel/build-cephcsi.sh CEPH_CSI_GIT OUT     (OUT/bin/cephcsi)
#
# CEPHCSI_REF picks the tag (v3.12.2). The paths cephcsi writes at start
# (/etc/ceph/ceph.conf and keyring) and reads its cluster map from
# (/etc/ceph-csi-config/config.json) are constants in its source: they are
# moved under OUT, which must not be under /tmp (the guest has its own).
set -euo pipefail

git_dir=${1:?usage: build-cephcsi.sh CEPH_CSI_GIT OUT}
out=${2:?usage: build-cephcsi.sh CEPH_CSI_GIT OUT}
ref=${CEPHCSI_REF:-v3.12.2}
mkdir -p "$out"
out=$(cd "$out" && pwd)
case $out in /tmp/*) echo "build-cephcsi: OUT under /tmp is not seen by the guest" >&2; exit 2 ;; esac
commit=$(git --git-dir="$git_dir" rev-parse "$ref^{commit}")

apt-get install -y -q librados-dev librbd-dev libcephfs-dev gcc pkg-config >/dev/null

# Go from bookworm-backports, unpacked under OUT
backports=$out/backports
goroot=$out/go/usr/lib/go-1.23
if [ ! -x "$goroot/bin/go" ]; then
	mkdir -p "$backports/lists/partial" "$backports/cache/archives/partial" "$backports/debs" "$out/go"
	echo 'deb http://deb.debian.org/debian bookworm-backports main' >"$backports/sources.list"
	apt=(-o "Dir::Etc::sourcelist=$backports/sources.list" -o "Dir::Etc::sourceparts=-"
		-o "Dir::State::Lists=$backports/lists" -o "Dir::Cache=$backports/cache"
		-o "APT::Sandbox::User=root")
	apt-get "${apt[@]}" -qq update
	(cd "$backports/debs" && apt-get "${apt[@]}" -qq download golang-1.23-go golang-1.23-src)
	for deb in "$backports/debs"/*.deb; do dpkg-deb -x "$deb" "$out/go"; done
fi

rm -rf "$out/src"
mkdir -p "$out/src" "$out/bin"
git --git-dir="$git_dir" archive "$ref" | tar -x -C "$out/src"
sed -i -e "s#\"/etc/ceph\"#\"$out/etc-ceph\"#" -e "s#\"/etc/ceph/ceph.conf\"#\"$out/etc-ceph/ceph.conf\"#" \
	-e "s#\"/etc/ceph/keyring\"#\"$out/etc-ceph/keyring\"#" \
	-e "s#\"/etc/ceph-csi-config/config.json\"#\"$out/ceph-csi-config/config.json\"#" \
	"$out/src/internal/util/cephconf.go" "$out/src/internal/util/csiconfig.go"
[ "$(grep -c "\"$out/" "$out/src/internal/util/cephconf.go" "$out/src/internal/util/csiconfig.go" |
	awk -F: '{n += $2} END {print n}')" = 4 ] || {
	echo "build-cephcsi: $ref's config paths are not where they were in v3.12.2" >&2
	exit 1
}
# ceph_preview, as upstream's `make cephcsi` (its squid tag changes nothing in go-ceph v0.28)
package=github.com/ceph/ceph-csi
(cd "$out/src" && env GOROOT="$goroot" GOTOOLCHAIN=local GOFLAGS=-mod=vendor GOPROXY=off \
	GOWORK=off CGO_ENABLED=1 GOCACHE="$out/gocache" GOPATH="$out/gopath" \
	"$goroot/bin/go" build -tags=ceph_preview -o "$out/bin/cephcsi" \
	-ldflags "-X $package/internal/util.GitCommit=$commit -X $package/internal/util.DriverVersion=$ref" ./cmd/)
"$out/bin/cephcsi" --version
