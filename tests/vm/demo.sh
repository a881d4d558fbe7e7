#!/bin/bash
# make demo: boot Debian 12's 6.1 kernel in QEMU with user_events.ko and
# samples/example.c, and show the event at work (tests/vm/demo-init).
# Uses the rig of make check (vm-lib.sh, fetch-kernels.sh, the same cache).
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
vmdir=$root/tests/vm
. "$vmdir/vm-lib.sh"
export UE_CACHE=${UE_CACHE:-$HOME/.cache/user-events-dkms}
k=${UE_DEMO_KERNEL:-6.1}
out=$root/build/demo
say() { printf '== %s\n' "$*"; }

ue_deps_path demo "$out/path"
say "fetching kernel $k into $UE_CACHE (cached after the first time)"
"$vmdir/fetch-kernels.sh" "$k"
kr=$UE_CACHE/kernels/$k

mkdir -p "$out"
say "building user_events.ko for $(cat "$kr/release")"
ue_build_module "$root" "$out/mod" "$(cat "$kr/kdir")" ||
	{ tail -20 "$out/mod.log"; exit 1; }
say "building samples/example.c (static)"
gcc -static -O2 -Wall -I"$root/include/uapi" -o "$out/example" "$root/samples/example.c"

ir=$out/initramfs
ue_initramfs_skeleton "$ir" "$vmdir/demo-init"
cp "$out/mod/user_events.ko" "$ir/modules/"
cp "$out/example" "$ir/example"
ue_initramfs_pack "$ir" "$out/initrd.gz"

say "booting $(cat "$kr/release") (console log: $out/console.log)"
rc=0
ue_boot "$kr" "$out/initrd.gz" "$out/console.log" 120 || rc=$?
echo
tr -d '\r' <"$out/console.log" | sed -n 's/^DEMO|//p' | grep -v '^DONE$' || true
echo
if tr -d '\r' <"$out/console.log" | grep -q '^DEMO|DONE$'; then
	say "demo finished"
else
	say "the demo VM did not finish (qemu status $rc); see $out/console.log"
	exit 1
fi
