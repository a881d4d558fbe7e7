#!/bin/bash
# make demo: boot a Debian kernel in QEMU with user_events.ko and
# samples/example.c, and show the event at work (rig/guest/demo-init): the
# row of rig/kernels.list flagged demo for the architecture
# (UE_DEMO_KERNEL: another row of it). make demo ARCH=arm64
# (demo.sh arm64): an arm64 kernel, under qemu-system-aarch64, the
# module cross-built in a chroot of its Debian release as make check
# builds it.
# Uses the rig of make check (vm-lib.sh, fetch-kernels.sh, the same cache).
. "$(dirname "$0")/../lib/prelude.sh"
set -e

root=$(cd "$(dirname "$0")/../.." && pwd)
rig=$root/rig
. "$rig/lib/vm-lib.sh"
. "$rig/lib/matrix-lib.sh"
export UE_CACHE
arch=${1:-amd64}
case $arch in
amd64|x86_64|x86|'') arch=amd64 entry=demo ;;
arm64|aarch64) arch=arm64 entry=demo_arm64 ;;
*) echo "make demo: ARCH=$arch is not one of amd64, arm64" >&2; exit 2 ;;
esac
k=${UE_DEMO_KERNEL:-$(ue_matrix_one flags~demo arch=$arch -- name)}
# (a Debian row: fetch-kernels.sh fetches it, and its release builds the module)
ue_matrix_one name="$k" made=debian -- name >/dev/null 2>&1 ||
	{ echo "make demo: $k is no Debian row of rig/kernels.list" >&2; exit 2; }
out=$root/build/demo
ue_log_prefix='== ' ue_log_fd=1

ue_deps_path "$entry" "$out/path"
say "fetching kernel $k into $UE_CACHE (cached after the first time)"
"$rig/fetch/fetch-kernels.sh" "$k"
kr=$UE_CACHE/kernels/$k
[ "$(ue_kroot_arch "$kr")" = "$arch" ] ||
	{ echo "make demo: kernel $k is not an $arch kernel" >&2; exit 2; }

mkdir -p "$out"
say "building user_events.ko for $(cat "$kr/release")"
if [ "$arch" = amd64 ]; then
	ue_build_module "$root" "$out/mod" "$(cat "$kr/kdir")" ||
		{ tail -20 "$out/mod.log"; exit 1; }
else
	# As make check does: in a chroot of the kernel's Debian release, with
	# its cross compiler (chroot-lib.sh).
	. "$rig/lib/apt-lib.sh"
	. "$rig/lib/chroot-lib.sh"
	r=$(ue_matrix_one name="$k" -- release)
	ue_chroot_make "$r" && ue_chroot_cross "$r" "$kr" ||
		{ echo "make demo: no $r chroot to build the module in" >&2; exit 1; }
	ue_chroot_build_module "$r" "$root" "$out/mod" "$(cat "$kr/kdir")" ||
		{ tail -20 "$out/mod.log"; exit 1; }
fi
say "building samples/example.c (static, $arch)"
"$(ue_cross_prefix "$arch")gcc" -static -O2 -Wall -I"$root/include/uapi" -o "$out/example" \
	"$root/samples/example.c"

ir=$out/initramfs
ue_initramfs_skeleton "$ir" "$rig/guest/demo-init" "$(ue_kroot_busybox "$kr")"
cp "$out/mod/user_events.ko" "$ir/modules/"
cp "$out/example" "$ir/example"
ue_initramfs_pack "$ir" "$out/initrd.cpio"

say "booting $(cat "$kr/release") (console log: $out/console.log)"
rc=0
ue_boot "$kr" "$out/initrd.cpio" "$out/console.log" 120 || rc=$?
echo
tr -d '\r' <"$out/console.log" | sed -n 's/^DEMO|//p' | grep -v '^DONE$' || true
echo
if tr -d '\r' <"$out/console.log" | grep '^DEMO|DONE$' >/dev/null; then
	say "demo finished"
else
	say "the demo VM did not finish (qemu status $rc); see $out/console.log"
	exit 1
fi
