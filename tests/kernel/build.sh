#!/bin/bash
# Build (or reuse) one of our kernels from Debian's linux-source-6.12:
# allnoconfig plus configuration fragments from tests/kernel/, applied in
# order (a later fragment overrides an earlier one):
#   build.sh [debug]        base.config debug.config (make check's debug kernel)
#   build.sh debug-newest   the same, from the newest linux-source Debian
#                           ships (make check's debug-newest kernel)
#   build.sh bench-ours     base.config bench.config (no USER_EVENTS: our module)
#   build.sh bench-inkernel base.config bench.config bench-inkernel.config
#                           (CONFIG_USER_EVENTS=y, the in-kernel implementation)
# A second argument names the linux-source tree to build from (make check's
# linux-source jobs fetched it); without it, the flavour's is fetched here.
# Cached under
#   $UE_CACHE/testkernel/<key>/   (build/ = the O= tree, usable as KDIR)
# keyed by the source package version and the hash of the fragments'
# settings (their lines without comments and blank lines, "# CONFIG_X is
# not set" kept: a comment's edit does not rebuild a kernel; a setting's
# in base.config rebuilds every flavour). Like a fetched kernel, the directory
# holds "kdir", "release" and boot/vmlinuz-<release>; mods/ holds its
# modules (kunit.ko); "source" names the package and version built. Prints it.
. "$(dirname "$0")/../../rig/lib/prelude.sh"
set -e

root=$(cd "$here/../.." && pwd)
ue_log_prefix='testkernel: '

flavour=${1:-debug}
tree=${2:-}
# debug-newest: the debug kernel from the newest linux-source Debian ships.
if [ -n "$tree" ]; then
	:
elif [ "$flavour" = debug-newest ]; then
	tree=$("$root/rig/fetch/fetch-source.sh" newest)
else
	tree=$("$root/rig/fetch/fetch-source.sh")
fi
# The Debian package version (a cache unpacked before it was recorded: the
# tree's own version).
srcver=$(cat "$(dirname "$tree")/version" 2>/dev/null || make -s -C "$tree" kernelversion)
case $flavour in
debug|debug-newest) frags="base.config debug.config" ;;
bench-ours) frags="base.config bench.config" ;;
bench-inkernel) frags="base.config bench.config bench-inkernel.config" ;;
*) log "unknown flavour '$flavour' (debug, debug-newest, bench-ours, bench-inkernel)"; exit 2 ;;
esac
fragpaths=()
for f in $frags; do fragpaths+=("$here/$f"); done
key=$( {
	echo "$srcver"
	awk '/^# CONFIG_[A-Za-z0-9_]+ is not set$/ || !/^[[:space:]]*(#|$)/' "${fragpaths[@]}"
} | sha256sum | cut -c1-16)
dir=$UE_CACHE/testkernel/$key
out=$dir/build

# Extra kernel parameters for booting it (rig/lib/vm-lib.sh). no5lvl: a
# KASAN "wild-memory-access" in an early-boot interrupt (handle_edge_irq
# during identify_cpu, at a 5-level-paging direct-map address) was seen
# once in about five boots under TCG's -cpu max; 4-level paging avoids
# that path until it is understood.
write_cmdline() {
	if [ "$flavour" != "${flavour#debug}" ]; then
		echo "no5lvl" >"$dir/cmdline"
	else
		: >"$dir/cmdline"
	fi
}

if [ -f "$dir/.complete" ]; then
	echo "$(basename "$tree") $srcver" >"$dir/source"
	write_cmdline
	echo "$dir"
	exit 0
fi
log "building $flavour kernel $srcver ($key); a cold build takes several minutes"
mkdir -p "$out"
t0=$(date +%s)
# An interrupted build resumes: the directory is keyed by source and config.
if [ ! -f "$out/.config" ]; then
	make -s -C "$tree" O="$out" allnoconfig >/dev/null
	"$tree/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" \
		"${fragpaths[@]}" >/dev/null
	make -s -C "$tree" O="$out" olddefconfig >/dev/null
fi

# Every setting of the fragments must have taken effect; where fragments
# disagree, the last one's setting is the one that counts. A symbol that
# this tree's Kconfig no longer declares (PROC_SYSCTL, gone in 7.x where
# SYSCTL brings /proc/sys) is said, not fatal: linux-source-6.12 has them all.
declared() { grep -rqE --include='Kconfig*' "^[[:space:]]*(menu)?config ${1#CONFIG_}\$" "$tree"; }
bad=0
while IFS= read -r line; do
	case $line in
	CONFIG_*=*)
		grep -qx "$line" "$out/.config" && continue
		if declared "${line%%=*}"; then log "not applied: $line"; bad=1
		else log "not in $(basename "$tree")'s Kconfig, left out: $line"; fi ;;
	"# CONFIG_"*" is not set")
		opt=${line#\# }; opt=${opt%% *}
		! grep -q "^$opt=" "$out/.config" || { log "not applied: $line"; bad=1; } ;;
	esac
done < <(cat "${fragpaths[@]}" | awk '
	/^CONFIG_[A-Za-z0-9_]+=/ { o = $0; sub(/=.*/, "", o) }
	/^# CONFIG_[A-Za-z0-9_]+ is not set$/ { o = $2 }
	o != "" { if (!(o in last)) order[n++] = o; last[o] = $0; o = "" }
	END { for (i = 0; i < n; i++) print last[order[i]] }')
[ $bad = 0 ] || { log "configuration incomplete"; exit 1; }

make -s -C "$tree" O="$out" -j"$(nproc)" bzImage modules >"$dir/build.log" 2>&1 ||
	{ tail -30 "$dir/build.log" >&2; log "build failed: $dir/build.log"; exit 1; }
make -s -C "$tree" O="$out" INSTALL_MOD_PATH="$dir/mods" modules_install >/dev/null
log "built in $(( $(date +%s) - t0 ))s"
# The same interface as a fetched kernel (rig/fetch/fetch-kernels.sh).
rel=$(make -s -C "$tree" O="$out" kernelrelease)
echo "$rel" >"$dir/release"
echo "$out" >"$dir/kdir"
mkdir -p "$dir/boot"
ln -sfn "$out/arch/x86/boot/bzImage" "$dir/boot/vmlinuz-$rel"
write_cmdline
echo "$(basename "$tree") $srcver" >"$dir/source"
touch "$dir/.complete"
echo "$dir"
