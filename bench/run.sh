#!/bin/bash
# make bench: compare our module with the kernel's own user_events.
#
# Builds (or reuses) two kernels from Debian's linux-source-6.12 that differ
# only in CONFIG_USER_EVENTS (tests/kernel/build.sh bench-ours and
# bench-inkernel), our module for the first, and bench/ue_bench.c; then
# boots each in QEMU (TCG, one CPU) UE_BENCH_BOOTS times, alternating
# ours / in-kernel, and runs ue_bench there (UE_BENCH_ROUNDS rounds per
# boot, UE_BENCH_SECS seconds per timed loop). QEMU runs with
# -icount shift=0,sleep=off (UE_BENCH_ICOUNT=0: without): the guest's clock
# then advances 1 ns per instruction executed, so a "time" is an
# instruction count, the same on every run, whatever else the host does.
# Prints a table of medians
# with the ratio ours / in-kernel per row and writes it, with the text that
# explains it, to build/bench/ (table.md, performance-section.md); the
# checkout is left as it was (checked at the end). Putting the numbers into
# docs/performance.md is a separate, deliberate step: make bench-docs.
#
# Exit status: 0 when the bench ran (target misses are printed as MISS and
# listed at the end; UE_BENCH_STRICT=1 makes them exit 3), 1 when it could
# not run or a measurement was not honest (BENCHERR in a guest).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/tests/vm/vm-lib.sh"
export UE_CACHE=${UE_CACHE:-$HOME/.cache/user-events-dkms}
icount=${UE_BENCH_ICOUNT:-1}
# Instruction counts repeat exactly, so fewer and shorter loops do there.
if [ "$icount" = 1 ]; then
	boots=${UE_BENCH_BOOTS:-2} rounds=${UE_BENCH_ROUNDS:-3} secs=${UE_BENCH_SECS:-0.25}
else
	boots=${UE_BENCH_BOOTS:-3} rounds=${UE_BENCH_ROUNDS:-5} secs=${UE_BENCH_SECS:-0.5}
fi
scale=${UE_BENCH_SCALE:-10000}
out=$root/build/bench
say() { printf '== %s\n' "$*"; }
die() { printf 'bench: %s\n' "$*" >&2; exit 1; }

t_start=$(date +%s)
tree_status_before=$(git -C "$root" status --porcelain 2>&1)
mkdir -p "$out"
ue_deps_path bench "$out/path" || die "dependencies missing"

say "kernels (built once, cached under $UE_CACHE/testkernel)"
k_ours=$("$root/tests/kernel/build.sh" bench-ours) || die "building the bench-ours kernel failed"
k_ink=$("$root/tests/kernel/build.sh" bench-inkernel) || die "building the bench-inkernel kernel failed"
grep -qx 'CONFIG_USER_EVENTS=y' "$(cat "$k_ink/kdir")/.config" || die "$k_ink lacks USER_EVENTS"
! grep -q '^CONFIG_USER_EVENTS=' "$(cat "$k_ours/kdir")/.config" || die "$k_ours has USER_EVENTS"

say "building user_events.ko for $(cat "$k_ours/release") and ue_bench"
ue_build_module "$root" "$out/mod" "$(cat "$k_ours/kdir")" ||
	{ tail -20 "$out/mod.log"; die "module build failed"; }
gcc -static -O2 -Wall -Werror -I"$root/include/uapi" -o "$out/ue_bench" "$root/bench/ue_bench.c"

for impl in ours inkernel; do
	ir=$out/initramfs-$impl
	ue_initramfs_skeleton "$ir" "$root/bench/guest-init"
	cp "$out/ue_bench" "$ir/ue_bench"
	echo "-r $rounds -t $secs -s $scale" >"$ir/bench-args"
	[ $impl = inkernel ] || cp "$out/mod/user_events.ko" "$ir/modules/"
	ue_initramfs_pack "$ir" "$out/initrd-$impl.gz"
done

rm -f "$out"/console-*.log*
# The rows so far measure one CPU; the test VMs' default is 2 (vm-lib.sh).
export UE_VM_CPUS=${UE_VM_CPUS:-1}
if [ "$icount" = 1 ]; then
	export UE_QEMU_OPTS="-icount shift=0,sleep=off"
	clockdesc="instruction counts (QEMU -icount shift=0: 1 ns of guest time per instruction)"
else
	export UE_QEMU_OPTS=
	clockdesc="TCG wall-clock time (UE_BENCH_ICOUNT=0)"
fi
say "measuring $clockdesc"
for b in $(seq 1 "$boots"); do
	for impl in ours inkernel; do
		if [ $impl = ours ]; then kr=$k_ours; else kr=$k_ink; fi
		log=$out/console-$impl-$b.log
		say "boot $b/$boots: $impl ($(cat "$kr/release"))"
		t0=$(date +%s)
		rc=0
		ue_boot "$kr" "$out/initrd-$impl.gz" "$log" 900 || rc=$?
		tr -d '\r' <"$log" >"$log.txt"
		if grep -q '^BENCHERR' "$log.txt"; then
			grep '^BENCHERR' "$log.txt" >&2
			die "$impl: a measurement failed (see $log)"
		fi
		grep -q '^BENCHDONE errors=0' "$log.txt" ||
			die "$impl: the VM did not finish (qemu status $rc, see $log)"
		if splats=$(ue_splats "$log.txt"); then
			echo "$splats" | head -3 >&2
			die "$impl: kernel splat on the console (see $log)"
		fi
		echo "   $(grep -c '^BENCH ' "$log.txt") measurements in $(( $(date +%s) - t0 ))s"
	done
done

# All BENCH lines: impl row value unit.
for impl in ours inkernel; do
	cat "$out"/console-$impl-*.log.txt | awk -v impl=$impl '$1 == "BENCH" { print impl, $2, $3, $4 }'
done >"$out/results.txt"

host_cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
qemu_ver=$(qemu-system-x86_64 --version | head -1 | sed 's/.*version \([^ ]*\).*/\1/')
srcrel=$(cat "$k_ours/release")

# The table (Markdown) and the list of misses.
awk -v boots="$boots" -v rounds="$rounds" -v scale="$scale" '
function median(key,   n, i, j, t, a) {
	n = cnt[key]
	for (i = 1; i <= n; i++) a[i] = v[key, i]
	for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
	if (n % 2) return a[(n + 1) / 2]
	return (a[n / 2] + a[n / 2 + 1]) / 2
}
function fmt(x, unit) {
	if (unit == "ns/op") {
		if (x >= 1e6) return sprintf("%.2f ms", x / 1e6)
		if (x >= 1e5) return sprintf("%.0f µs", x / 1e3)
		return sprintf("%.1f µs", x / 1e3)
	}
	if (unit == "B/event") return sprintf("%.0f B", x)
	return x " " unit
}
function rate(x) { return sprintf(" (%.0f k/s)", 1e6 / x) }
function row(key, label, target,   o, k, r, s, t, note) {
	if (!cnt["ours" SUBSEP key] || !cnt["inkernel" SUBSEP key]) { printf "| %s | – | – | – | missing |\n", label; miss = miss "\n" label ": no measurement"; return }
	o = median("ours" SUBSEP key); k = median("inkernel" SUBSEP key)
	med["ours", key] = o; med["inkernel", key] = k
	r = (k > 0) ? o / k : 0
	s = fmt(k, unit[key]); t = fmt(o, unit[key])
	if (key ~ /^write_|^marker|^floor/) { s = s rate(k); t = t rate(o) }
	note = ""
	if (target != "" && sprintf("%.2f", r) + 0 > target) { note = " **MISS**"; miss = miss sprintf("\n%s: ours/in-kernel %.2f > %.2f", label, r, target) }
	printf "| %s | %s | %s | %.2f%s |\n", label, s, t, r, note
}
{ key = $1 SUBSEP $2; cnt[key]++; v[key, cnt[key]] = $3; unit[$2] = $4 }
END {
	print "| Row | in-kernel | ours | ours / in-kernel |"
	print "|---|---:|---:|---:|"
	row("write_ftrace", "enabled write, ftrace (writev, 3 fields, 48-byte payload)", 1.00)
	row("write_perf", "enabled write, perf (PERF_SAMPLE_RAW into a ring buffer)", 1.00)
	row("write_disabled", "disabled write (`-EBADF`)", 1.00)
	row("marker_raw", "`trace_marker_raw` write, same size (the same kernel code in both: noise)", "")
	row("floor_writev", "the same `writev` to /dev/null (system call floor; noise)", "")
	row("floor_write", "the same-size `write` to /dev/null (system call floor; noise)", "")
	row("reg_new", "DIAG_IOCSREG, new event", 1.00)
	row("reg_existing", "DIAG_IOCSREG, existing event", 1.00)
	row("unreg", "DIAG_IOCSUNREG", 1.00)
	row("enable_1", "`echo 1 > enable`, 1 process", 1.00)
	row("disable_1", "`echo 0 > enable`, 1 process", 1.00)
	row("enable_100", "`echo 1 > enable`, 100 processes", 1.00)
	row("disable_100", "`echo 0 > enable`, 100 processes", 1.00)
	row("enable_1000", "`echo 1 > enable`, 1000 processes", 1.00)
	row("disable_1000", "`echo 0 > enable`, 1000 processes", 1.00)
	row("scale_reg", scale " events: DIAG_IOCSREG per event", 1.00)
	row("scale_slab", scale " events: slab (`Slab:` in /proc/meminfo) per event", 1.00)
	row("scale_mem", scale " events: all memory (`MemFree:` drop) per event", "")
	print ""
	for (impl = 0; impl < 2; impl++) {
		name = impl ? "inkernel" : "ours"
		r = med[name, "write_ftrace"] / med[name, "marker_raw"]
		printf "Enabled ftrace write / `trace_marker_raw` write, %s: **%.2f**", impl ? "in-kernel" : "ours", r
		if (!impl) {
			printf " (target ≤ 1.25%s)", (sprintf("%.2f", r) + 0 > 1.25 ? ", **MISS**" : "")
			if (sprintf("%.2f", r) + 0 > 1.25) miss = miss sprintf("\nenabled ftrace write / trace_marker_raw (ours): %.2f > 1.25", r)
		}
		print "."
	}
	printf "Of that, the system calls alone (to /dev/null), `writev` / `write`: %.2f (ours), %.2f (in-kernel); what is\n", med["ours", "floor_writev"] / med["ours", "floor_write"], med["inkernel", "floor_writev"] / med["inkernel", "floor_write"]
	printf "left after them, (enabled ftrace write - `writev` floor) / (`trace_marker_raw` - `write` floor): %.2f (ours), %.2f (in-kernel).\n", (med["ours", "write_ftrace"] - med["ours", "floor_writev"]) / (med["ours", "marker_raw"] - med["ours", "floor_write"]), (med["inkernel", "write_ftrace"] - med["inkernel", "floor_writev"]) / (med["inkernel", "marker_raw"] - med["inkernel", "floor_write"])
	lb = (med["ours", "floor_writev"] + med["ours", "marker_raw"] - med["ours", "floor_write"]) / med["ours", "marker_raw"]
	printf "The least any `writev` implementation can reach, the `writev` floor plus what `trace_marker_raw` spends on its\n"
	printf "record beyond the `write` floor, over `trace_marker_raw`: %.2f; ours is %.2f times that bound, in-kernel %.2f.\n", lb, med["ours", "write_ftrace"] / (lb * med["ours", "marker_raw"]), med["inkernel", "write_ftrace"] / (lb * med["ours", "marker_raw"])
	print ""
	printf "Medians of %d rounds in each of %d boots per kernel.\n", rounds, boots
	print miss > "/dev/stderr"
}' "$out/results.txt" >"$out/table.md" 2>"$out/misses.txt"

{
	echo "<!-- bench:begin -->"
	echo "<!-- Written by make bench-docs from make bench's build/bench/performance-section.md; edits between the markers are overwritten. -->"
	cat <<EOF
\`make bench\` boots two kernels built from Debian's \`linux-source-6.12\` ($srcrel) with the same
small configuration (\`tests/kernel/base.config\` + \`bench.config\`: no debug options, no IBT),
one with \`CONFIG_USER_EVENTS=y\` (**in-kernel**, \`bench-inkernel.config\`) and one without, running
our module (**ours**). Both are built once and cached like the debug kernel. Each boots
$boots times, alternating ours / in-kernel, in QEMU $qemu_ver with TCG (no KVM), one vCPU, 1 GiB;
\`bench/ue_bench.c\` runs $rounds rounds of every measurement per boot and the table shows
medians over all rounds. Every value is a cost, lower is better: time per operation (with
operations per second for the writes) or bytes per event, so **ours / in-kernel ≤ 1.00 means ours
is at least as fast or as small**.

* Writes: a loop of about ${secs} s on one CPU. The event is
  \`$(sed -n 's/^#define W_EVENT "\(.*\)"/\1/p' "$root/bench/ue_bench.c")\`; each \`writev\` carries
  the 4-byte write index and a 48-byte payload (u32, u64, the \`__rel_loc\` word, 32 bytes of
  string). ftrace: the event enabled in the top instance, checked afterwards against the ring
  buffer's entries + overruns. perf: a \`perf_event_open\` tracepoint event on the task with
  \`PERF_SAMPLE_RAW\` and a mapped ring buffer that the loop keeps draining, checked against the
  event's count. \`trace_marker_raw\`: a 52-byte \`write\` (4-byte id + 48 bytes).
* DIAG_IOCSREG / DIAG_IOCSUNREG: 500 calls per round (new: 500 distinct events; existing: one
  event, 500 enable words; then unregistering those 500).
* Enable fan-out: N processes each register the event with their own enable word in a shared
  page; the time of one \`write()\` of "1" or "0" to its \`enable\` file, averaged over a loop of
  about ${secs} s; after every write all N bits are checked.
* Scale: $scale distinct events registered by one process (once per boot); \`Slab:\` and
  \`MemFree:\` of /proc/meminfo before and after (caches dropped, and \`Slab:\` read once
  it has settled: two readings 0.5 s apart within 64 kB).

Clock: $clockdesc.
EOF
	if [ "$icount" = 1 ]; then
		cat <<'EOF'
TCG emulates every instruction, so real times under it are many times those of hardware,
skewed (it runs some instructions and module code comparatively slowly) and, on a shared 2-core
host, noisy (±30 % between rounds). Under `-icount shift=0,sleep=off` QEMU instead advances the
guest's clock by 1 ns per instruction executed: a "µs" in the table is a thousand guest
instructions (and "k/s" per thousand of them per guest second), and rounds and boots agree
closely. The ratios are then exact comparisons of how many instructions each implementation
executes (waits such as RCU grace periods count as the virtual time that passes), not of cache
misses or instruction latencies; **quote the ratios, not the absolute numbers**.
`UE_BENCH_ICOUNT=0 make bench` measures TCG's real time instead.
EOF
	else
		cat <<'EOF'
TCG emulates every instruction, so absolute times are many times those of real hardware and
skewed (it runs some instructions and module code comparatively slowly); on a shared 2-core host
they are noisy too (±30 % between rounds). **Quote the ratios, not the absolute numbers**; the
rows that run the same kernel code in both kernels (`trace_marker_raw`, /dev/null) show the
run's noise.
EOF
	fi
	cat <<EOF

Last run: $(date -u +%Y-%m-%d), host: ${host_cpu:-unknown CPU}, $(nproc) cores.

EOF
	cat "$out/table.md"
	echo "<!-- bench:end -->"
} >"$out/performance-section.md"

echo
cat "$out/table.md"
echo
say "results: $out/table.md; make bench-docs puts them into docs/performance.md"
tree_status_after=$(git -C "$root" status --porcelain 2>&1)
[ "$tree_status_after" = "$tree_status_before" ] ||
	die "make bench changed the checkout: $(echo "$tree_status_after" | head -3 | tr '\n' ' ')"
say "make bench took $(( $(date +%s) - t_start ))s"
if [ -s "$out/misses.txt" ] && grep -q . "$out/misses.txt"; then
	say "target misses:"
	grep . "$out/misses.txt" | sed 's/^/   /'
	[ "${UE_BENCH_STRICT:-0}" != 1 ] || exit 3
else
	say "all targets hold"
fi
