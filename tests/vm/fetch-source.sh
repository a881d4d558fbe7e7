#!/bin/bash
# Fetch Debian's linux-source-6.12 and unpack it once under
#   $UE_CACHE/source/linux-source-6.12/
# for what the rig takes from the kernel tree: scripts/checkpatch.pl, the
# upstream user_events selftests, and the tree the test kernels build from.
# Nothing of it is committed. Prints the tree's path; the package version is
# in $UE_CACHE/source/version.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
UE_CACHE=${UE_CACHE:-$HOME/.cache/user-events-dkms}
pkg=linux-source-6.12
dir=$UE_CACHE/source
tree=$dir/$pkg

log() { printf 'fetch-source: %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }

. "$here/apt-lib.sh"

if [ ! -f "$dir/.complete" ]; then
	setup_private_apt
	log "fetching $pkg"
	rm -rf "$dir"
	mkdir -p "$dir"
	dl=$(mktemp -d "$UE_CACHE/dl.XXXXXX")
	(cd "$dl" && private_apt download "$pkg" >&2) || { rm -rf "$dl"; die "download of $pkg failed"; }
	dpkg-deb -f "$dl"/${pkg}_*.deb Version >"$dir/version"
	dpkg-deb --fsys-tarfile "$dl"/${pkg}_*.deb | tar -x -C "$dl" ./usr/src
	log "unpacking $(basename "$dl"/usr/src/$pkg.tar.*)"
	tar -xf "$dl"/usr/src/$pkg.tar.* -C "$dir"
	rm -rf "$dl"
	[ -f "$tree/scripts/checkpatch.pl" ] || die "no $pkg tree after unpacking"
	touch "$dir/.complete"
fi
echo "$tree"
