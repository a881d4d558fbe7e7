#!/bin/bash
# Fetch a Debian linux-source package and unpack it once, for what the rig
# takes from the kernel tree: scripts/checkpatch.pl, the upstream user_events
# selftests, and the trees our test kernels build from. Nothing of it is
# committed. Prints the tree's path; the package version is in the file
# "version" beside it.
#   fetch-source.sh           linux-source-6.12 (bookworm), in
#                             $UE_CACHE/source/linux-source-6.12/
#   fetch-source.sh newest    the newest linux-source-X.Y any release of
#                             rig/kernels.list has (7.3 of
#                             trixie-backports today), in
#                             $UE_CACHE/source-X.Y/linux-source-X.Y/
. "$(dirname "$0")/../lib/prelude.sh"
set -e

ue_log_prefix='fetch-source: '

. "$here/../lib/apt-lib.sh"
. "$here/../lib/matrix-lib.sh"

# newest: "release package version" of the newest linux-source-X.Y.
newest() {
	local r p
	for r in $(ue_matrix made=debian -- release | sort -u); do
		ue_apt_setup "$r" >&2 || continue
		for p in $(ue_apt_cache "$r" pkgnames linux-source- | grep -E '^linux-source-[0-9]+\.[0-9]+$'); do
			echo "$r $p $(ue_apt_cache "$r" policy "$p" | awk '$1 == "Candidate:" { print $2 }')"
		done
	done | sort -k3,3V | tail -1
}

if [ "${1:-}" = newest ]; then
	read -r rel pkg ver < <(newest) || die "no linux-source package in the releases of kernels.list"
	dir=$UE_CACHE/source-${pkg#linux-source-}
	get() { ue_apt "$rel" download "$pkg=$ver"; }
	want=$ver
else
	pkg=linux-source-6.12
	dir=$UE_CACHE/source
	get() { setup_private_apt; private_apt download "$pkg"; }
	want=
fi
tree=$dir/$pkg

# One fetch at a time among the runs that share the cache (make check's
# graph fetches it in one job, which our kernels' builds wait for; make
# bench or a second make check may fetch it at once): two unpacking over
# each other, or one unpacking under a kernel's build, break the tree.
mkdir -p "$(dirname "$dir")"
exec {lock}>"$dir.lock"
flock "$lock"
if [ ! -f "$dir/.complete" ] || { [ -n "$want" ] && [ "$(cat "$dir/version")" != "$want" ]; }; then
	log "fetching $pkg${want:+ $want}"
	rm -rf "$dir"
	mkdir -p "$dir"
	dl=$(ue_cache_scratch dl)
	(cd "$dl" && get >&2) || { rm -rf "$dl"; die "download of $pkg failed"; }
	dpkg-deb -f "$dl"/${pkg}_*.deb Version >"$dir/version"
	dpkg-deb --fsys-tarfile "$dl"/${pkg}_*.deb | tar -x -C "$dl" ./usr/src
	log "unpacking $(basename "$dl/usr/src/$pkg".tar.*)"
	tar -xf "$dl/usr/src/$pkg".tar.* -C "$dir"
	rm -rf "$dl"
	[ -f "$tree/scripts/checkpatch.pl" ] || die "no $pkg tree after unpacking"
	touch "$dir/.complete"
fi
echo "$tree"
