#!/bin/bash
# Build (or reuse) our debug test kernel from Debian's linux-source-6.12 with
# tests/kernel/debug.config on top of allnoconfig. Cached under
#   $UE_CACHE/testkernel/<key>/   (build/ = the O= tree, usable as KDIR)
# keyed by the source package version and the configuration's hash. Like a
# fetched kernel, the directory holds "kdir", "release" and
# boot/vmlinuz-<release>; mods/ holds its modules (kunit.ko). Prints it.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
UE_CACHE=${UE_CACHE:-$HOME/.cache/user-events-dkms}
log() { printf 'testkernel: %s\n' "$*" >&2; }

tree=$("$root/tests/vm/fetch-source.sh")
# The Debian package version (a cache unpacked before it was recorded: the
# tree's own version).
srcver=$(cat "$UE_CACHE/source/version" 2>/dev/null || make -s -C "$tree" kernelversion)
key=$( { echo "$srcver"; cat "$here/debug.config"; } | sha256sum | cut -c1-16)
dir=$UE_CACHE/testkernel/$key
out=$dir/build

# Extra kernel parameters for booting it (tests/vm/vm-lib.sh). no5lvl: a
# KASAN "wild-memory-access" in an early-boot interrupt (handle_edge_irq
# during identify_cpu, at a 5-level-paging direct-map address) was seen
# once in about five boots under TCG's -cpu max; 4-level paging avoids
# that path until it is understood.
write_cmdline() { echo "no5lvl" >"$dir/cmdline"; }

if [ -f "$dir/.complete" ]; then
	write_cmdline
	echo "$dir"
	exit 0
fi
log "building $srcver ($key); a cold build takes several minutes"
mkdir -p "$out"
t0=$(date +%s)
# An interrupted build resumes: the directory is keyed by source and config.
if [ ! -f "$out/.config" ]; then
	make -s -C "$tree" O="$out" allnoconfig >/dev/null
	"$tree/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" \
		"$here/debug.config" >/dev/null
	make -s -C "$tree" O="$out" olddefconfig >/dev/null
fi

# Every line of the fragment must have taken effect.
bad=0
while IFS= read -r line; do
	case $line in
	CONFIG_*=*) grep -qx "$line" "$out/.config" || { log "not applied: $line"; bad=1; } ;;
	"# CONFIG_"*" is not set")
		opt=${line#\# }; opt=${opt%% *}
		! grep -q "^$opt=" "$out/.config" || { log "not applied: $line"; bad=1; } ;;
	esac
done <"$here/debug.config"
[ $bad = 0 ] || { log "configuration incomplete"; exit 1; }

make -s -C "$tree" O="$out" -j"$(nproc)" bzImage modules >"$dir/build.log" 2>&1 ||
	{ tail -30 "$dir/build.log" >&2; log "build failed: $dir/build.log"; exit 1; }
make -s -C "$tree" O="$out" INSTALL_MOD_PATH="$dir/mods" modules_install >/dev/null
log "built in $(( $(date +%s) - t0 ))s"
# The same interface as a fetched kernel (tests/vm/fetch-kernels.sh).
rel=$(make -s -C "$tree" O="$out" kernelrelease)
echo "$rel" >"$dir/release"
echo "$out" >"$dir/kdir"
mkdir -p "$dir/boot"
ln -sfn "$out/arch/x86/boot/bzImage" "$dir/boot/vmlinuz-$rel"
write_cmdline
touch "$dir/.complete"
echo "$dir"
