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
# The scaling rows need real time: after those boots, each kernel boots
# UE_BENCH_SMP_BOOTS times (default 2; 0: none) with 2 vCPUs and
# multi-threaded TCG, without -icount (which runs the vCPUs in turn in one
# host thread and counts the instructions of both), UE_BENCH_SMP_ROUNDS
# rounds (default 10) of UE_BENCH_SMP_SECS-second loops (default 0.3). Such
# a boot is taken only while no other QEMU runs on the host: it waits up to
# UE_BENCH_SMP_WAIT seconds (default 1800) for the others to end, watches
# for others while it runs, and a boot during which another QEMU ran is
# set aside (console-smp-*.log.tainted) and retried, twice at most; rows
# without an untainted boot are printed as missing and listed as misses.
# Other load is measured (the host's busy time minus this QEMU's): a boot
# during which it averaged more than UE_BENCH_SMP_BUSY cores (default
# 0.25) is retried too, and kept after the third try, with the results
# saying so.
#
# The USDT rows: ue_bench has a sys/sdt.h probe (ue_bench:w) with a
# semaphore; the uprobe_events definition that attaches it, with its
# reference counter and fetchargs for its three arguments, is derived here
# from the built program's .note.stapsdt (usdt_uprobe) and given to the
# guests.
#
# Exit status: 0 when the bench ran (target misses are printed as MISS and
# listed at the end; UE_BENCH_STRICT=1 makes them exit 3), 1 when it could
# not run or a measurement was not honest (BENCHERR in a guest).
. "$(dirname "$0")/../rig/lib/prelude.sh"
set -e

root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/rig/lib/vm-lib.sh"
export UE_CACHE
icount=${UE_BENCH_ICOUNT:-1}
# Instruction counts repeat exactly, so fewer and shorter loops do there.
if [ "$icount" = 1 ]; then
	boots=${UE_BENCH_BOOTS:-2} rounds=${UE_BENCH_ROUNDS:-3} secs=${UE_BENCH_SECS:-0.25}
else
	boots=${UE_BENCH_BOOTS:-3} rounds=${UE_BENCH_ROUNDS:-5} secs=${UE_BENCH_SECS:-0.5}
fi
scale=${UE_BENCH_SCALE:-10000}
out=$root/build/bench
ue_log_prefix='bench: '

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

# usdt_reg NAME: the pt_regs name (uprobe_events' %REG) of an x86-64
# register as a USDT argument names it (rax, eax, ax, al: ax).
usdt_reg() {
	case $1 in
	rax|eax|ax|al) echo ax ;; rbx|ebx|bx|bl) echo bx ;;
	rcx|ecx|cx|cl) echo cx ;; rdx|edx|dx|dl) echo dx ;;
	rsi|esi|si|sil) echo si ;; rdi|edi|di|dil) echo di ;;
	rbp|ebp|bp|bpl) echo bp ;; rsp|esp|sp|spl) echo sp ;;
	r[89]|r1[0-5]) echo "$1" ;;
	r[89][dwb]|r1[0-5][dwb]) echo "${1%?}" ;;
	*) return 1 ;;
	esac
}

# usdt_fetcharg OPERAND: the uprobe_events fetcharg of a USDT argument's
# operand: %reg, [off](%reg) or $imm (gas syntax). RIP-relative and
# indexed operands have no such form: an error.
usdt_fetcharg() {
	local op=$1 off reg
	case $op in
	\$*) echo "\\${op#\$}" ;;
	%*) reg=$(usdt_reg "${op#%}") && echo "%$reg" ;;
	*"(%"*")")
		off=${op%%"("*} reg=${op#*"(%"}
		reg=$(usdt_reg "${reg%")"}") || return 1
		case ${off:-0} in -*) ;; *) off=+${off:-0} ;; esac
		echo "$off(%$reg)" ;;
	*) return 1 ;;
	esac
}

# usdt_fileoff BINARY ADDR: the file offset of virtual address ADDR (in a
# PT_LOAD segment's file part), in hex.
usdt_fileoff() {
	local off vaddr filesz
	while read -r off vaddr filesz; do
		if (( $2 >= vaddr && $2 < vaddr + filesz )); then
			printf '0x%x\n' $(( $2 - vaddr + off ))
			return 0
		fi
	done < <(readelf -lW "$1" | awk '$1 == "LOAD" { print $2, $3, $5 }')
	return 1
}

# usdt_uprobe BINARY PROVIDER NAME EVENT GUEST-PATH FIELD...: the
# uprobe_events line that attaches the USDT probe PROVIDER:NAME of BINARY
# (at GUEST-PATH in the guest) as EVENT (group/name), with its semaphore as
# the reference counter and one fetcharg per FIELD (name, or name:string
# for a char * argument: the string it points to), from .note.stapsdt:
# the probe's address (corrected by the .stapsdt.base section's actual
# address, as the note's Base asks) and the semaphore's, as file offsets,
# and each argument's size and operand.
usdt_uprobe() {
	local bin=$1 prov=$2 name=$3 ev=$4 gpath=$5 note loc nbase sem args sbase
	local poff soff def i f fa sz
	shift 5
	note=$(readelf -nW "$bin" | awk -v p="$prov" -v n="$name" '
		/Provider:/ { sub(/.*Provider:[ \t]*/, ""); prov = $1 }
		/^[ \t]*Name:/ { nm = $2 }
		/Location:/ && prov == p && nm == n { gsub(",", ""); loc = $2 " " $4 " " $6; found = 1; next }
		/Arguments:/ && found == 1 { sub(/^[ \t]*Arguments:[ \t]*/, ""); print loc " " $0; found = 2 }')
	[ -n "$note" ] || { echo "bench: no USDT probe $prov:$name in $bin" >&2; return 1; }
	read -r loc nbase sem args <<<"$note"
	sbase=$(readelf -SW "$bin" | sed 's/^ *\[ *[0-9]*\] *//' |
		awk '$1 == ".stapsdt.base" { print "0x" $3 }')
	[ -n "$sbase" ] || { echo "bench: $bin has no .stapsdt.base" >&2; return 1; }
	poff=$(usdt_fileoff "$bin" $(( loc + sbase - nbase ))) &&
	soff=$(usdt_fileoff "$bin" $(( sem + sbase - nbase ))) ||
		{ echo "bench: $prov:$name is not in a loaded part of $bin" >&2; return 1; }
	(( sem != 0 )) || { echo "bench: $prov:$name has no semaphore" >&2; return 1; }
	def="p:$ev $gpath:$poff($soff)"
	set -- "$@"
	i=0
	for a in $args; do
		i=$((i + 1))
		f=${!i:-}
		[ -n "$f" ] || { echo "bench: $prov:$name has more arguments than fields" >&2; return 1; }
		sz=${a%%@*}
		fa=$(usdt_fetcharg "${a#*@}") ||
			{ echo "bench: USDT operand $a has no uprobe fetcharg" >&2; return 1; }
		case $f in
		*:string) def="$def ${f%:string}=+0($fa):string" ;;
		*) case $sz in -*) def="$def $f=$fa:s$(( -sz * 8 ))" ;; *) def="$def $f=$fa:u$(( sz * 8 ))" ;; esac ;;
		esac
	done
	[ "$i" = $# ] || { echo "bench: $prov:$name has $i arguments, not $#" >&2; return 1; }
	echo "$def"
}
usdt_def=$(usdt_uprobe "$out/ue_bench" ue_bench w ue_bench_usdt/w /ue_bench a b c:string) ||
	die "cannot derive the USDT probe's uprobe from $out/ue_bench"
echo "   USDT probe: $usdt_def"

smp_boots=${UE_BENCH_SMP_BOOTS:-2} smp_rounds=${UE_BENCH_SMP_ROUNDS:-10}
smp_secs=${UE_BENCH_SMP_SECS:-0.3} smp_wait=${UE_BENCH_SMP_WAIT:-1800}
smp_busy=${UE_BENCH_SMP_BUSY:-0.25}
for impl in ours inkernel; do
	for kind in "" smp-; do
		ir=$out/initramfs-$kind$impl
		ue_initramfs_skeleton "$ir" "$root/bench/guest-init"
		cp "$out/ue_bench" "$ir/ue_bench"
		echo "$usdt_def" >"$ir/usdt-probe"
		if [ -z "$kind" ]; then
			# UE_BENCH_MEM=1: the scale row's memory breakdown
			# (bench/mem-breakdown.sh).
			echo "-r $rounds -t $secs -s $scale -u /usdt-probe$([ "${UE_BENCH_MEM:-0}" != 1 ] || echo " -M")" >"$ir/bench-args"
		else
			echo "-m smp -r $smp_rounds -t $smp_secs" >"$ir/bench-args"
		fi
		[ $impl = inkernel ] || cp "$out/mod/user_events.ko" "$ir/modules/"
		ue_initramfs_pack "$ir" "$out/initrd-$kind$impl.cpio"
	done
done

rm -f "$out"/console-*.log*
# The rows so far measure one CPU; the test VMs' default is 2 (vm-lib.sh).
export UE_VM_CPUS=${UE_VM_CPUS:-1}
if [ "$icount" = 1 ]; then
	ue_qemu_opts="-icount shift=0,sleep=off"
	clockdesc="instruction counts (QEMU -icount shift=0: 1 ns of guest time per instruction)"
else
	ue_qemu_opts=
	clockdesc="TCG wall-clock time (UE_BENCH_ICOUNT=0)"
fi
# bench_boot KROOT INITRD LOG IMPL: boot, and fail on what makes its
# measurements worthless (BENCHERR, no BENCHDONE, a splat).
bench_boot() {
	local rc=0 t0 splats
	t0=$(date +%s)
	ue_boot "$1" "$2" "$3" 900 || rc=$?
	tr -d '\r' <"$3" >"$3.txt"
	if grep -q '^BENCHERR' "$3.txt"; then
		grep '^BENCHERR' "$3.txt" >&2
		die "$4: a measurement failed (see $3)"
	fi
	grep -q '^BENCHDONE errors=0' "$3.txt" ||
		die "$4: the VM did not finish (qemu status $rc, see $3)"
	grep -q '^BENCHINFO .* aslr=0 ' "$3.txt" ||
		die "$4: the guest ran with address-space randomization (bench/guest-init; see $3)"
	if splats=$(ue_splats "$3.txt"); then
		echo "$splats" | head -3 >&2
		die "$4: kernel splat on the console (see $3)"
	fi
	echo "   $(grep -c '^BENCH ' "$3.txt") measurements in $(( $(date +%s) - t0 ))s"
}

say "measuring $clockdesc"
for b in $(seq 1 "$boots"); do
	for impl in ours inkernel; do
		if [ $impl = ours ]; then kr=$k_ours; else kr=$k_ink; fi
		say "boot $b/$boots: $impl ($(cat "$kr/release"))"
		bench_boot "$kr" "$out/initrd-$impl.cpio" "$out/console-$impl-$b.log" $impl
	done
done

# other_qemu: the QEMU system emulators running on this host (processes
# whose program is a qemu-system-*) other than this run's (whose command
# lines name its initrds), one "pid command" a line.
other_qemu() {
	local p cmd
	for p in $(pgrep -f '^[^ ]*qemu-system-' || true); do
		cmd=$(tr '\0' ' ' 2>/dev/null <"/proc/$p/cmdline") || continue
		case $cmd in *"$out/initrd-"*|"") continue ;; esac
		echo "$p ${cmd:0:120}"
	done
}

# cpu_busy: jiffies the host's CPUs have been busy (all but idle and iowait).
cpu_busy() { awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8 + $9; exit }' /proc/stat; }

# The scaling rows: real time, 2 vCPUs, multi-threaded TCG; only while no
# other QEMU runs (see the top).
smp_note=
rm -f "$out/smp-others.txt"
watch=
trap '[ -z "$watch" ] || kill "$watch" 2>/dev/null || true' EXIT
if [ "$smp_boots" -gt 0 ]; then
	say "measuring the 2-vCPU rows in real time (multi-threaded TCG, no other QEMU running)"
	for b in $(seq 1 "$smp_boots"); do
		for impl in ours inkernel; do
			if [ $impl = ours ]; then kr=$k_ours; else kr=$k_ink; fi
			log=$out/console-smp-$impl-$b.log
			for try in 1 2 3; do
				waited=0
				while [ -n "$(other_qemu)" ] && [ $waited -lt "$smp_wait" ]; do
					[ $waited != 0 ] || { echo "   waiting for other QEMU processes to end:"; other_qemu | sed 's/^/     /'; }
					sleep 5
					waited=$((waited + 5))
				done
				if [ -n "$(other_qemu)" ]; then
					echo "   other QEMU processes still run after ${smp_wait}s: no scaling boot $b of $impl"
					smp_note="$smp_note scaling boot $b of $impl not taken: other QEMU processes ran for ${smp_wait}s;"
					break
				fi
				say "scaling boot $b/$smp_boots: $impl, try $try"
				: >"$log.others"
				: >"$log.ours"
				# Other QEMU processes, and the CPU time of ours
				# (utime + stime, its last reading before it ends).
				( while :; do
					other_qemu >>"$log.others"
					for p in $(pgrep -f "^[^ ]*qemu-system-.*$out/initrd-smp-" || true); do
						awk '{ print $14 + $15 }' "/proc/$p/stat" 2>/dev/null >"$log.ours.new" &&
							mv "$log.ours.new" "$log.ours" || true
					done
					sleep 0.5
				  done ) &
				watch=$!
				busy0=$(cpu_busy)
				t0=$(date +%s)
				UE_VM_CPUS=2 ue_qemu_opts= bench_boot "$kr" "$out/initrd-smp-$impl.cpio" "$log" "$impl (2 vCPUs)"
				busy1=$(cpu_busy)
				kill "$watch"
				wait "$watch" 2>/dev/null || true
				watch=
				hz=$(getconf CLK_TCK)
				ours_cpu=$(cat "$log.ours" 2>/dev/null || echo 0)
				others=$(( (busy1 - busy0 - ${ours_cpu:-0}) / hz ))
				echo "   host CPU busy during the boot: $(( (busy1 - busy0) / hz )) CPU-seconds in $(( $(date +%s) - t0 ))s, $(( ${ours_cpu:-0} / hz )) of them this VM's QEMU, $others the rest"
				if [ -z "$(other_qemu)" ] && [ ! -s "$log.others" ]; then
					secs_b=$(( $(date +%s) - t0 ))
					if [ $try != 3 ] && awk -v o="$others" -v t="$secs_b" -v m="$smp_busy" 'BEGIN { exit !(o / t > m) }'; then
						echo "   other load averaged more than $smp_busy cores: boot retried"
						continue
					fi
					echo "$impl $b $others $secs_b" >>"$out/smp-others.txt"
					break
				fi
				echo "   another QEMU ran meanwhile: boot set aside ($log.tainted)"
				sort -u "$log.others" | sed 's/^/     /' | head -5
				mv "$log.txt" "$log.tainted"
				[ $try != 3 ] || smp_note="$smp_note scaling boot $b of $impl tainted three times by other QEMU processes;"
			done
		done
	done
fi

# What else used the host's CPUs during the kept scaling boots (not QEMU:
# such boots were set aside): stated with the results.
if [ -s "$out/smp-others.txt" ]; then
	smp_note="$smp_note$(awk -v cores="$(nproc)" '{ o += $3; t += $4 }
		END { printf " other processes kept %.2f of the host%s %d cores busy on average during these boots (%d CPU-seconds in %d s)%s;", o / t, "\x27s", cores, o, t, (o / t > m ? ": more than " m ", the scaling rows are not reliable" : "") }' m="$smp_busy" "$out/smp-others.txt")"
fi

# All BENCH lines: impl row value unit (the scaling boots' untainted logs).
for impl in ours inkernel; do
	cat "$out"/console-$impl-*.log.txt | awk -v impl=$impl '$1 == "BENCH" { print impl, $2, $3, $4 }'
	{ cat "$out"/console-smp-$impl-*.log.txt 2>/dev/null || true; } |
		awk -v impl=$impl '$1 == "BENCH" { print impl, $2, $3, $4 }'
done >"$out/results.txt"

host_cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
qemu_ver=$(qemu-system-x86_64 --version | head -1 | sed 's/.*version \([^ ]*\).*/\1/')
srcrel=$(cat "$k_ours/release")

# The table (Markdown) and the list of misses.
first_maps=$(sed -n 's/^#define FIRST_MAPS \(.*\)/\1/p' "$root/bench/ue_bench.c")
first_samples=$(sed -n 's/^#define FIRST_SAMPLES \(.*\)/\1/p' "$root/bench/ue_bench.c")
awk -v boots="$boots" -v rounds="$rounds" -v scale="$scale" -v smp_rounds="$smp_rounds" \
	-v first_maps="$first_maps" \
	-v smp_boots="$smp_boots" -v smp_note="$smp_note" '
function median(key,   n, i, j, t, a) {
	n = cnt[key]
	for (i = 1; i <= n; i++) a[i] = v[key, i]
	for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
	if (n % 2) return a[(n + 1) / 2]
	return (a[n / 2] + a[n / 2 + 1]) / 2
}
function fmt(x, unit) {
	if (unit == "ns/op") {
		if (x < 100) return sprintf("%.1f ns", x)
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
	if (key ~ /^write|^marker|^floor|^usdt|^check|^smp_w/) { s = s rate(k); t = t rate(o) }
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
	row("writec_ftrace", "enabled write, ftrace, one contiguous `write()` of [index][payload]", 1.00)
	row("writec_perf", "enabled write, perf, one contiguous `write()`", 1.00)
	row("writec_disabled", "disabled `write()` (`-EBADF`)", 1.00)
	row("marker_raw", "`trace_marker_raw` write, same size (the same kernel code in both: noise)", "")
	row("floor_writev", "the same `writev` to /dev/null (system call floor; noise)", "")
	row("floor_write", "the same-size `write` to /dev/null (system call floor; noise)", "")
	row("usdt_ftrace", "USDT probe, same 3 fields, enabled into ftrace via `uprobe_events` (noise)", "")
	row("usdt_perf", "USDT probe into perf (PERF_SAMPLE_RAW; noise)", "")
	row("check_bit", "the enable-bit check before a user event, event disabled (noise)", "")
	row("usdt_disabled", "the semaphore check before a USDT probe, probe not attached (noise)", "")
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
	row("scale_memfree", scale " events: `MemFree:` drop per event (per-CPU page lists left out: see below)", "")
	row("scale_mem", scale " events: all memory (drop of free pages, per-CPU lists included) per event", 1.00)
	row("scale_close", "`close()` of the file that registered the " scale " events", 1.00)
	row("fork_0", "fork + exit + wait, the process holding no enable bit", 1.00)
	row("fork_1", "fork + exit + wait, holding 1 enable bit", 1.00)
	row("fork_100", "fork + exit + wait, holding 100 enable bits", 1.00)
	row("reg_first_maps", "a process'"'"'s first DIAG_IOCSREG (existing event), with " first_maps " more mappings", 1.00)
	row("smp_w1", "2 vCPUs, real time: enabled `write()` into ftrace, 1 writer (time per write of the total)", 1.00)
	row("smp_w2", "2 vCPUs, real time: the same, 2 writers, one per CPU (time per write of the total)", 1.00)
	row("smp_loop1", "2 vCPUs, real time: a CPU loop of 1000 steps, 1 process (the rig; noise)", "")
	row("smp_loop2", "2 vCPUs, real time: the same loop, 2 processes, one per CPU (the rig; noise)", "")
	print ""
	for (impl = 0; impl < 2; impl++) {
		name = impl ? "inkernel" : "ours"
		r = med[name, "write_ftrace"] / med[name, "marker_raw"]
		printf "Enabled ftrace `writev` / `trace_marker_raw` write, %s: **%.2f**", impl ? "in-kernel" : "ours", r
		if (!impl)
			printf " (the 1.25 target is for one `write()`, below: see the `writev` floor)"
		print "."
	}
	printf "Of that, the system calls alone (to /dev/null), `writev` / `write`: %.2f (ours), %.2f (in-kernel); what is\n", med["ours", "floor_writev"] / med["ours", "floor_write"], med["inkernel", "floor_writev"] / med["inkernel", "floor_write"]
	printf "left after them, (enabled ftrace write - `writev` floor) / (`trace_marker_raw` - `write` floor): %.2f (ours), %.2f (in-kernel).\n", (med["ours", "write_ftrace"] - med["ours", "floor_writev"]) / (med["ours", "marker_raw"] - med["ours", "floor_write"]), (med["inkernel", "write_ftrace"] - med["inkernel", "floor_writev"]) / (med["inkernel", "marker_raw"] - med["inkernel", "floor_write"])
	lb = (med["ours", "floor_writev"] + med["ours", "marker_raw"] - med["ours", "floor_write"]) / med["ours", "marker_raw"]
	printf "The least any `writev` implementation can reach, the `writev` floor plus what `trace_marker_raw` spends on its\n"
	printf "record beyond the `write` floor, over `trace_marker_raw`: %.2f; ours is %.2f times that bound, in-kernel %.2f.\n", lb, med["ours", "write_ftrace"] / (lb * med["ours", "marker_raw"]), med["inkernel", "write_ftrace"] / (lb * med["ours", "marker_raw"])
	print ""
	for (impl = 0; impl < 2; impl++) {
		name = impl ? "inkernel" : "ours"
		r = med[name, "writec_ftrace"] / med[name, "marker_raw"]
		printf "Enabled ftrace `write()` / `trace_marker_raw` write, %s: **%.2f**", impl ? "in-kernel" : "ours", r
		if (!impl) {
			printf " (target ≤ 1.25%s)", (sprintf("%.2f", r) + 0 > 1.25 ? ", **MISS**" : "")
			if (sprintf("%.2f", r) + 0 > 1.25) miss = miss sprintf("\nenabled ftrace write() / trace_marker_raw (ours): %.2f > 1.25", r)
		}
		print "."
	}
	printf "What is left after the system call, (enabled ftrace `write()` - `write` floor) / (`trace_marker_raw` - `write` floor): %.2f (ours), %.2f (in-kernel).\n", (med["ours", "writec_ftrace"] - med["ours", "floor_write"]) / (med["ours", "marker_raw"] - med["ours", "floor_write"]), (med["inkernel", "writec_ftrace"] - med["inkernel", "floor_write"]) / (med["inkernel", "marker_raw"] - med["inkernel", "floor_write"])
	print ""
	for (impl = 0; impl < 2; impl++) {
		name = impl ? "inkernel" : "ours"
		printf "USDT / user event, %s: enabled into ftrace %.2f (against `write()`; %.2f against `writev`), into perf %.2f (against `write()`), disabled (semaphore check / enable-bit check) %.2f.\n", impl ? "in-kernel" : "ours", med[name, "usdt_ftrace"] / med[name, "writec_ftrace"], med[name, "usdt_ftrace"] / med[name, "write_ftrace"], med[name, "usdt_perf"] / med[name, "writec_perf"], med[name, "usdt_disabled"] / med[name, "check_bit"]
	}
	print ""
	if (smp_note != "") printf "Scaling rows: %s\n", smp_note
	if (cnt["ours" SUBSEP "smp_scale_w"] && cnt["inkernel" SUBSEP "smp_scale_w"]) {
		so = median("ours" SUBSEP "smp_scale_w"); sk = median("inkernel" SUBSEP "smp_scale_w")
		lo = median("ours" SUBSEP "smp_scale_loop"); lk = median("inkernel" SUBSEP "smp_scale_loop")
		ro = median("ours" SUBSEP "smp_scale_rel"); rk = median("inkernel" SUBSEP "smp_scale_rel")
		printf "Throughput of 2 writers / 1 writer (2 vCPUs, real time; median of the ratios of each round), ours: **%.2f** (target ≥ 1.80%s); in-kernel: %.2f.\n", so, (sprintf("%.2f", so) + 0 < 1.80 ? ", **MISS**" : ""), sk
		if (sprintf("%.2f", so) + 0 < 1.80) miss = miss sprintf("\n2 writers / 1 writer (ours): %.2f < 1.80", so)
		printf "The ceiling of the rig, a CPU loop in 2 processes / in 1: %.2f (in the boots of ours), %.2f (of in-kernel); the scaling of the writers relative to it, round by round: %.2f (ours), %.2f (in-kernel).\n", lo, lk, ro, rk
	} else {
		miss = miss "\nscaling rows: no untainted 2-vCPU boot of each kernel"
	}
	print ""
	printf "Medians of %d rounds in each of %d boots per kernel; the 2-vCPU rows: of %d rounds in each of %d boots per kernel, in real time, taken while no other QEMU ran on the host.\n", rounds, boots, smp_rounds, smp_boots
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
  event's count. \`trace_marker_raw\`: a 52-byte \`write\` (4-byte id + 48 bytes). The
  \`write()\` rows send the same 52 bytes, index and payload, from one contiguous buffer
  through one \`write\` (user_events.rst, Writing Data, allows both), the target's comparison with the marker.
* USDT: the same three values as a \`sys/sdt.h\` probe with a semaphore in \`ue_bench\`
  (\`STAP_PROBE3(ue_bench, w, a, b, c)\` behind \`if (semaphore)\`), attached through
  \`uprobe_events\` as \`$usdt_def\` (derived by \`bench/run.sh\` from the program's
  \`.note.stapsdt\`: file offsets of the probe and of its semaphore as the reference counter,
  one fetcharg per argument, the string through its pointer), enabled into ftrace (checked
  against the ring buffer and \`uprobe_profile\`'s hits) and into perf as above. Disabled: the
  semaphore check with nothing attached, against a user event's enable-bit check with the event
  disabled (each in the same loop: a load, a test, a branch not taken).
* 2 vCPUs: each kernel boots again $smp_boots times with 2 vCPUs in multi-threaded TCG, without
  \`-icount\` (which would run both vCPUs in turn in one host thread and count the instructions
  of both), timed in real time; $smp_rounds rounds of $smp_secs s, 1 and 2 processes alternating.
  Each writer is a process pinned to its CPU with its own \`user_events_data\` file and
  registration of the event (as separate programs have), writing the 52 bytes with \`write()\`
  into the ftrace-enabled event; checked against the ring buffers of both CPUs. The rows give the
  time per write of the total throughput (lower is better); the same with a pure CPU loop (1000
  multiply-adds per operation) shows what the rig itself allows. Taken only while no other QEMU
  ran on the host (\`bench/run.sh\` waits, watches, and sets a boot aside if one appeared).
* DIAG_IOCSREG / DIAG_IOCSUNREG: 500 calls per round (new: 500 distinct events; existing: one
  event, 500 enable words; then unregistering those 500).
* Enable fan-out: N processes each register the event with their own enable word in a shared
  page; the time of one \`write()\` of "1" or "0" to its \`enable\` file, averaged over a loop of
  about ${secs} s; after every write all N bits are checked.
* Scale: $scale distinct events registered by one process (once per boot); \`Slab:\` of
  /proc/meminfo and the free pages before and after (caches dropped, and \`Slab:\` read once
  it has settled: two readings 0.5 s apart within 64 kB). Free pages: \`MemFree:\` plus the
  page allocator's per-CPU lists, which \`MemFree:\` leaves out (/proc/zoneinfo, after
  \`vm.stat_refresh\`). Then the \`close()\` of the file that registered them all (the
  enablers stay: they hold the events until the process exits).
* Address spaces: each measured in a process of its own, started by \`exec\` so that it holds
  only the enable bits it makes itself. Fork: the process registers one event with 0, 1 or 100
  enable words, then forks a child that exits at once and waits for it, in a loop of about
  ${secs} s (the child inherits the bits; its exit retires them). First registration: the
  process maps $first_maps more separate VMAs (private maps of one file at offset 0, which cannot
  merge), then times its first \`DIAG_IOCSREG\` of an event that exists ($first_samples processes
  a round):
  the cost of starting to follow an address space. Both kernels run without address-space
  randomization (\`randomize_va_space\` 0): the instructions of a fork depend on where \`exec\`
  put the stack and the mappings, and with them random the fork rows' samples fell into two
  modes 2.5 % apart on one kernel.

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
