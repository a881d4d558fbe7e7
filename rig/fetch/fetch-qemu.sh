#!/bin/bash
# The QEMU of make check's VMs: Debian 12's backport of QEMU 10
# (bookworm-backports), unpacked into the cache, not installed: its
# qemu-system-x86 and, for the arm64 rows, qemu-system-arm.
#
# Why not Debian 12's own QEMU 7.2: under multi-threaded TCG it sometimes
# runs a stale int3 after the guest has patched kernel text that the other
# vCPU executes (a static key or static call switched, at boot or when a
# tracepoint is enabled), and the guest oopses (docs/testing.md, "Two
# CPUs"). 10.0 has it too, but far less often: 3000 on/off toggles of
# sched/sched_wakeup in a boot of Debian's 6.12 oopsed (or hung) 7.2 in 5
# of 5 boots, 10.0 in 1 of 7 (measured 2026-11-25).
#
# The packages come through a private apt state (apt-lib.sh, pseudo-release
# "qemu": bookworm-backports on the mirror URI of the machine's own apt
# configuration) and are unpacked under
#   $UE_CACHE/qemu/<version>/root/
# Its libraries are Debian 12's, which Debian 12's qemu-system-x86 (in
# tests/deps.sh) brings. Prints the root; ue_boot (vm-lib.sh) runs
# ROOT/usr/bin/qemu-system-x86_64 when UE_QEMU_ROOT names it.
#
# Usage: fetch-qemu.sh [--cached]
#   --cached: the newest QEMU already in the cache, if there is one, without
#   asking the mirror for a newer (user-events-run: no network when warm).
. "$(dirname "$0")/../lib/prelude.sh"
set -e

ue_log_prefix='fetch-qemu: '

. "$here/../lib/apt-lib.sh"

dir=
if [ "${1:-}" = --cached ]; then
	dir=$(ls -d "$UE_CACHE"/qemu/*/.complete 2>/dev/null | sort -V | tail -1) || true
	dir=${dir%/.complete}
fi
if [ -z "$dir" ]; then
	ue_apt_setup qemu || die "no apt lists of bookworm-backports"
	candidate() { ue_apt_cache qemu policy "$1" | awk '$1 == "Candidate:" && $2 != "(none)" { print $2 }'; }
	ver=$(candidate qemu-system-x86)
	[ -n "$ver" ] || die "the mirror's bookworm-backports has no qemu-system-x86"
	dir=$UE_CACHE/qemu/$(echo "$ver" | tr ':~' '__')
fi
root=$dir/root
ver=${ver:-$(cat "$dir/version" 2>/dev/null)}

if [ ! -f "$dir/.complete" ]; then
	bios=$(candidate seabios)
	log "fetching qemu-system-x86 $ver (bookworm-backports)"
	rm -rf "$dir"
	mkdir -p "$dir/dl" "$root"
	(cd "$dir/dl" && ue_apt qemu download "qemu-system-x86=$ver" "qemu-system-common=$ver" \
		"qemu-system-data=$ver" ${bios:+"seabios=$bios"} >&2) ||
		die "download of qemu-system-x86 $ver failed"
	for f in "$dir"/dl/*.deb; do dpkg-deb -x "$f" "$root"; done
	rm -rf "$dir/dl"
	# The firmware links are absolute (/usr/share/seabios/...): into the root.
	relocate_links "$root"
	echo "$ver" >"$dir/version"
	touch "$dir/.complete"
fi
# qemu-system-arm (qemu-system-aarch64: the arm64 rows), of the same version,
# into the same root; added to a root cached without it (not with --cached,
# which user-events-run uses for amd64 kernels, without network).
if [ ! -x "$root/usr/bin/qemu-system-aarch64" ] && [ "${1:-}" != --cached ]; then
	ue_apt_setup qemu || die "no apt lists of bookworm-backports"
	log "fetching qemu-system-arm $ver (bookworm-backports)"
	rm -rf "$dir/dl-arm"
	mkdir -p "$dir/dl-arm"
	(cd "$dir/dl-arm" && ue_apt qemu download "qemu-system-arm=$ver" >&2) ||
		die "download of qemu-system-arm $ver failed"
	dpkg-deb -x "$dir"/dl-arm/*.deb "$root"
	rm -rf "$dir/dl-arm"
fi
for bin in "$root/usr/bin/qemu-system-x86_64" "$root/usr/bin/qemu-system-aarch64"; do
	[ -x "$bin" ] || continue
	missing=$(ldd "$bin" 2>&1 | awk '/not found/ { print $1 }' | tr '\n' ' ')
	[ -z "$missing" ] || die "QEMU $ver lacks libraries on this machine: $missing"
	QEMU_MODULE_DIR=$root/usr/lib/x86_64-linux-gnu/qemu "$bin" --version >/dev/null 2>&1 ||
		die "$bin --version failed"
done
echo "$root"
