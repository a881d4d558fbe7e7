# Shared by check.sh, demo.sh and bench/run.sh (sourced, bash): the
# dependencies (tests/deps.sh), the initramfs skeleton and the QEMU command
# line.

# The packages and programs of each entry point, and the PATH they run with.
. "$(dirname "${BASH_SOURCE[0]}")/../../tests/deps.sh"

# ue_initramfs_skeleton DIR INIT [BUSYBOX]: busybox (this machine's, or
# BUSYBOX: an arm64 kernel's, fetch-kernels.sh), the mount points, and INIT
# as /init.
ue_initramfs_skeleton() {
	local ir=$1
	rm -rf "$ir"
	mkdir -p "$ir"/{bin,modules,proc,sys,dev,tmp}
	cp "${3:-/bin/busybox}" "$ir/bin/busybox"
	ln -s busybox "$ir/bin/sh"
	cp "$2" "$ir/init"
	chmod +x "$ir/init"
}

# ue_initramfs_pack DIR OUT: newc cpio of DIR, uncompressed: under TCG a
# guest's gunzip of it (25 MB) is a second or more of every boot, more
# than QEMU's load of the 60 MB.
ue_initramfs_pack() {
	(cd "$1" && find . | cpio -o -H newc --quiet) >"$2"
}

# ue_qemu_argv [ARCH]: the array ue_qemu, the command that runs QEMU
# (UE_QEMU_ROOT's or the machine's) for a guest of ARCH (amd64, arm64).
ue_qemu_argv() {
	local q=${UE_QEMU_ROOT:-} bin=qemu-system-x86_64
	[ "${1:-amd64}" = amd64 ] || bin=qemu-system-aarch64
	ue_qemu=("$bin")
	[ -z "$q" ] || ue_qemu=(env QEMU_MODULE_DIR="$q/usr/lib/x86_64-linux-gnu/qemu"
		"$q/usr/bin/$bin" -nodefaults -L "$q/usr/share/qemu"
		-L "$q/usr/share/seabios")
}

# ue_cross_prefix ARCH: the prefix of this machine's cross tools for ARCH
# (Debian 12's gcc-aarch64-linux-gnu and its binutils, tests/deps.sh), which
# build the static test programs of ARCH's VMs and strip its modules;
# nothing for amd64.
ue_cross_prefix() {
	case $1 in
	arm64) echo aarch64-linux-gnu- ;;
	*) echo ;;
	esac
}

# ue_kroot_arch KROOT: the architecture of a kernel directory (its file arch,
# fetch-kernels.sh; amd64 without one: ours, and older caches).
ue_kroot_arch() {
	cat "$1/arch" 2>/dev/null || echo amd64
}

# ue_kroot_busybox KROOT: the static busybox for the guest of a kernel
# directory: this machine's, or for another architecture its own
# (fetch-kernels.sh's cross_busybox).
ue_kroot_busybox() {
	if [ "$(ue_kroot_arch "$1")" = amd64 ]; then echo /bin/busybox; else echo "$1/busybox"; fi
}

# ue_machine_argv ARCH: the array ue_machine, the QEMU machine and the
# kernel's console for a guest of ARCH. arm64: QEMU's virt board (PL011
# console) and its newest CPU; its pointer authentication with QEMU's own
# cheap algorithm (pauth-impdef), as the guest cannot tell which one
# signs, and the architected QARMA is costly under TCG.
ue_machine_argv() {
	case $1 in
	arm64) ue_machine=(-M virt -cpu max,pauth-impdef=on) ue_console=ttyAMA0 ;;
	*) ue_machine=(-cpu max) ue_console=ttyS0 ;;
	esac
}

# ue_boot KROOT INITRD CONSOLE-LOG TIMEOUT: boot the kernel of KROOT (a
# directory with release and boot/, as fetch-kernels.sh leaves it) under
# TCG; the guest's serial console goes to CONSOLE-LOG, QEMU's own output to
# CONSOLE-LOG.qemu. Returns QEMU's (or timeout's, 124) status. A kernel
# directory may hold a file "cmdline" with extra kernel parameters;
# ue_qemu_opts adds QEMU options (make bench: -icount).
#
# Users run SMP machines: every VM has UE_VM_CPUS vCPUs (default 2), each a
# host thread of its own (multi-threaded TCG), so that two CPUs really run
# the module's code at once. -icount (make bench) needs one TCG thread,
# which then runs the vCPUs in turn.
#
# UE_QEMU_ROOT: a QEMU unpacked there (rig/fetch/fetch-qemu.sh, make check's)
# instead of the machine's; -nodefaults, so that it loads none of the
# machine's QEMU modules (another build's, which it refuses).
#
# For scripts/user-events-run: ue_vm_accel replaces the accelerator (kvm),
# UE_VM_MEMORY the 1024 MB, UE_VM_CMDLINE adds kernel parameters, the array
# ue_qemu_args adds QEMU arguments (paths with spaces), and ue_vm_pidfile
# receives the pid of the timeout process that runs QEMU (a TERM to it ends
# QEMU), so that a caller that is itself stopped can stop its VM.
ue_boot() {
	local kr=$1 extra= tcg=multi qemu pid arch ue_machine ue_console
	[ -f "$kr/cmdline" ] && extra=" $(cat "$kr/cmdline")"
	case " ${ue_qemu_opts:-} " in *" -icount "*) tcg=single ;; esac
	arch=$(ue_kroot_arch "$kr")
	# An amd64 guest under multi-threaded TCG reads the host's TSC: given
	# its rate (UE_VM_TSC_KHZ, rig/check/host-tsc.c), it never times it
	# against the PIT, which a vCPU starved at boot does wrongly (a guest
	# clock 16 % to 3.6 times too fast). -icount makes a TSC of its own.
	[ "$arch" != amd64 ] || [ "$tcg" != multi ] || [ -n "${ue_vm_accel:-}" ] ||
		extra="$extra${UE_VM_TSC_KHZ:+ tsc_early_khz=$UE_VM_TSC_KHZ}"
	extra="$extra${UE_VM_CMDLINE:+ $UE_VM_CMDLINE}"
	ue_qemu_argv "$arch"
	ue_machine_argv "$arch"
	qemu=("${ue_qemu[@]}")
	rm -f "$3"
	# shellcheck disable=SC2086
	timeout "$4" "${qemu[@]}" -accel "${ue_vm_accel:-tcg,thread=$tcg}" "${ue_machine[@]}" \
		-m "${UE_VM_MEMORY:-1024}" -smp "${UE_VM_CPUS:-2}" ${ue_qemu_opts:-} \
		${ue_qemu_args[@]+"${ue_qemu_args[@]}"} \
		-display none -monitor none -no-reboot \
		-serial file:"$3" \
		-kernel "$kr/boot/vmlinuz-$(cat "$kr/release")" \
		-initrd "$2" \
		-append "console=$ue_console panic=-1 loglevel=7$extra" </dev/null >"$3.qemu" 2>&1 &
	pid=$!
	[ -z "${ue_vm_pidfile:-}" ] || echo "$pid" >"$ue_vm_pidfile"
	ue_wait_booted "$pid" "$3"
}

# ue_wait_booted PID CONSOLE: PID's status. With ue_boot_limit set, a
# guest that has not printed "UE-BOOTED" in CONSOLE after that many
# seconds, or, with ue_boot_silent set (ue_boot_checked: 30), whose
# console stayed silent that long before it, is stopped (PID killed),
# status 125. QEMU's early hang under multi-threaded TCG leaves the
# console silent (docs/testing.md, Two CPUs); in make check a boot's
# longest quiet before user space, a debug kernel's under KASAN beside
# the other VMs, is about 4 s.
ue_wait_booted() {
	local pid=$1 con=$2 waited=0 quiet=0 size last=
	while [ -n "${ue_boot_limit:-}" ] && kill -0 "$pid" 2>/dev/null &&
	      ! grep -q 'UE-BOOTED' "$con" 2>/dev/null; do
		size=$(stat -c %s "$con" 2>/dev/null || echo 0)
		[ "$size" = "$last" ] || { last=$size; quiet=0; }
		if [ "$waited" -ge "$ue_boot_limit" ] || [ "$quiet" -ge "${ue_boot_silent:-$ue_boot_limit}" ]; then
			kill "$pid"
			wait "$pid"
			return 125
		fi
		sleep 1
		waited=$((waited + 1)) quiet=$((quiet + 1))
	done
	wait "$pid"
}

# ue_splat_re: the kernel-splat patterns of rig/check/splat.re as one ERE.
ue_splat_re() {
	grep -v '^#' "$(dirname "${BASH_SOURCE[0]}")/../check/splat.re" | paste -sd'|'
}

# ue_splats CONSOLE-TEXT: the kernel splats in a console log (our own lines,
# UE-*, and the KTAP result and diagnostic lines, whose details may quote a
# "WARNING:", are not kernel output); nothing if there are none. The stack that
# the kernel prints with an allocation failure (warn_alloc(), percpu) is
# not a splat: suite faults fails allocations on purpose, and the module
# loader's vmalloc reports each one it meets; any report that follows such
# a stack is still caught.
ue_splats() {
	grep -vE '^UE-|^ *(not )?ok [0-9]+( |$)|^ *# ' "$1" | ue_drop_alloc_failure_stacks | grep -E "$(ue_splat_re)"
}

# ue_splat_summary CONSOLE-TEXT: one line on the first splat, for the
# failure list (CI may show only the end of the output): the suite that was
# running, the splat's first line, its RIP and the first frames of its
# trace; then the first lines of the other splats.
ue_splat_summary() {
	local splats first
	splats=$(ue_splats "$1")
	first=${splats%%$'\n'*}
	[ -n "$first" ] || return 0
	awk -v first="$first" '
		/^    # Subtest: / && !found { suite = $3 }
		!found && $0 == first { found = 1; left = 40; n = 0
			out = "in suite " (suite == "" ? "(none)" : suite) ": " $0; next }
		found != 1 { next }
		--left <= 0 || n >= 8 { found = 2; next }
		{ line = $0; sub(/^\[ *[0-9.]+\] */, "", line); sub(/^ +/, "", line) }
		line ~ /^RIP: / && !rip { rip = 1; out = out "|" line; next }
		line ~ /^(\? )?[A-Za-z0-9_.]+\+0x[0-9a-f]+\/0x/ { out = out "|" line; n++ }
		END { print out }' "$1"
	sed -n '2,3p' <<<"$splats"
}

# The "Call Trace" line of each allocation failure report, from standard
# input: the first such line within 8 lines of the report's first line.
ue_drop_alloc_failure_stacks() {
	awk '/vmalloc error: |page allocation failure: |percpu: allocation failed/ { left = 8 }
	     left > 0 && /Call Trace/ { left = 0; next }
	     { if (left > 0) left--; print }'
}

# ue_qemu_int3 CONSOLE-TEXT: the VM's first splat is QEMU's stale int3 of
# multi-threaded TCG in the kernel's own text (docs/testing.md, "Two
# CPUs"): "Oops: int3" at a RIP outside every module. Prints that RIP.
ue_qemu_int3() {
	local first rip
	first=$(ue_splats "$1" | head -1)
	rip=$(grep -A8 -m1 'Oops: int3' "$1" | grep -m1 'RIP:' | sed 's/.*RIP: //')
	[[ $first == *'Oops: int3'* && -n $rip && $rip != *'['* ]] && echo "$rip"
}

# ue_console_text: a serial console's text, from standard input: without
# carriage returns, and with each kernel message that began in the middle
# of a line (the kernel and /init share the console, and a printk can land
# inside a line /init is writing: "    ok 12 exit_w[ 81.47] ...\nait")
# moved whole before that line, so that both read as they were written.
ue_console_text() {
	tr -d '\r' | perl -0pe '1 while s/^([^\n]*?[^\n])(\[ *\d+\.\d+\] [^\n]*\n)/$2$1/m'
}

# ue_qemu_died_early STATUS CONSOLE: whether ue_boot's STATUS says QEMU was
# killed by a signal (128+N), as by one of its own assertions, before the
# guest printed UE-BOOTED in CONSOLE, so before anything of the module ran.
# Seen once under multi-threaded TCG: "iotlb_to_section: Assertion
# 'section_index < d->map.sections_nb' failed" while the guest probed its
# PCI devices (docs/testing.md). Such a boot is tried again.
ue_qemu_died_early() {
	[ "$1" -gt 128 ] && ! grep -q 'UE-BOOTED' "$2" 2>/dev/null
}

# ue_boot_checked KROOT INITRD CONSOLE-LOG TIMEOUT: ue_boot, and its console
# in CONSOLE-LOG.txt (ue_console_text). QEMU's defects are not the
# module's: a VM that QEMU's stale int3 ended, or whose guest did not reach
# user space ("UE-BOOTED", before anything of the module runs) within
# UE_VM_BOOT_TIMEOUT seconds (default 120; boots take about 5) or with its
# console silent for 30 s before it (ue_wait_booted), or whose
# QEMU died by a signal before that (ue_qemu_died_early), is booted again,
# up to twice, each time said in a "NOTE: ..." line on standard
# output (the log it left kept as CONSOLE-LOG.int3-N.txt or .hung-N.txt);
# any other splat is left for the caller to fail on. Returns the status of
# the last ue_boot (125: the guest never reached user space).
ue_boot_checked() {
	local log=$3 rc n rip name silent=30
	name=$(basename "$(dirname "$log")")
	for n in 1 2 3; do
		ue_boot_silent=$silent ue_boot_limit=${UE_VM_BOOT_TIMEOUT:-120} ue_boot "$@"
		rc=$?
		ue_console_text <"$log" >"$log.txt" 2>/dev/null || : >"$log.txt"
		[ $n -lt 3 ] || break
		if [ $rc = 125 ]; then
			mv "$log.txt" "$log.hung-$n.txt"
			echo "NOTE: $name: the guest did not reach user space (its console silent for ${silent}s, or ${UE_VM_BOOT_TIMEOUT:-120}s in all; QEMU under multi-threaded TCG; nothing of the module had run), see docs/testing.md; booted once more (that log: $log.hung-$n.txt)"
		elif ue_qemu_died_early $rc "$log.txt"; then
			mv "$log.txt" "$log.died-$n.txt"
			cp "$log.qemu" "$log.died-$n.qemu" 2>/dev/null
			echo "NOTE: $name: QEMU died before the guest's user space (status $rc: $(grep -v '^$' "$log.qemu" 2>/dev/null | tail -1 | cut -c1-160)), see docs/testing.md; booted once more (that log: $log.died-$n.txt)"
		elif rip=$(ue_qemu_int3 "$log.txt"); then
			mv "$log.txt" "$log.int3-$n.txt"
			echo "NOTE: $name: QEMU's stale int3 under multi-threaded TCG ($rip), see docs/testing.md; booted once more (that log: $log.int3-$n.txt)"
		else
			break
		fi
	done
	return $rc
}

# ue_build_module ROOT OUT KDIR [make vars...]: build user_events.ko from the
# checkout ROOT in a copy under OUT (log in OUT.log).
ue_build_module() {
	local root=$1 out=$2 kdir=$3
	shift 3
	rm -rf "$out"; mkdir -p "$out"
	make -s -C "$root" copy-sources DEST="$out"
	ue_seed_probes "$out"
	make -C "$out" KDIR="$kdir" "$@" >"$out.log" 2>&1
}

# ue_seed_probes OUT: with ue_probes_from=DIR, a build of the same kernel
# in DIR, OUT starts with DIR's API probes' header (src/compat/probes.mk)
# and kbuild's record of their command, its paths made OUT's. The probes'
# command has none of a variant's flags, so kbuild's if_changed finds it
# unchanged and keeps the header, as it would in DIR: make check's race
# and skew builds of a row skip the probes (about 1.7 CPU s each). A
# command that differs in anything (another kernel, compiler or flags, a
# path the rewrite missed) runs the probes again.
ue_seed_probes() {
	local out=$1 from=${ue_probes_from:-} h=src/compat/ue_probes.h c=src/compat/.ue_probes.h.cmd
	[ -n "$from" ] && [ -s "$from/$h" ] && [ -s "$from/$c" ] || return 0
	cp "$from/$h" "$out/$h" &&
		sed "s#/$(basename "$from")/#/$(basename "$out")/#g" "$from/$c" >"$out/$c"
}

# ue_ko_cat FILE: a kernel module file, uncompressed (Debian ships .ko, .ko.xz
# from 6.x on, .ko.zst in newer kernels).
ue_ko_cat() {
	case $1 in
	*.xz) xz -dc "$1" ;;
	*.zst) zstd -qdc "$1" ;;
	*.gz) gzip -dc "$1" ;;
	*) cat "$1" ;;
	esac
}

# The modules of scripts/user-events-run's VM, as "module:CONFIG symbol": the
# host's filesystem over virtio 9p, its /tmp and /run writable in the guest
# alone through overlayfs, and COMMAND's standard output and error on
# virtio serial ports. Debian builds 9p and overlayfs as modules, virtio too
# up to 6.1 (built in from 6.12 on); 6.1-cloud has no 9p at all.
# One marked ":optional" may be missing (a kernel of the user's own without
# overlayfs): the guest's /tmp and /run are then empty, and it says so.
ue_vm_mod_list="9p:9P_FS 9pnet_virtio:NET_9P_VIRTIO virtio_pci:VIRTIO_PCI virtio_console:VIRTIO_CONSOLE overlay:OVERLAY_FS:optional"
# Where they and what they depend on live in a kernel's module tree.
ue_vm_mod_globs=('*/fs/9p/*.ko*' '*/net/9p/*.ko*' '*/fs/netfs/*.ko*' '*/fs/fscache/*.ko*'
		 '*/drivers/virtio/*.ko*' '*/drivers/char/virtio_console.ko*'
		 '*/fs/overlayfs/*.ko*')

# ue_vm_modules TREE CONFIG OUT: the modules of ue_vm_mod_list that CONFIG
# (a kernel's .config) does not build in, with the modules they depend on
# (modinfo's depends, which the kernel's own package has: no depmod), found
# anywhere below TREE and uncompressed into OUT; OUT/load.order names them
# in the order insmod must load them, and OUT/list the ue_vm_mod_list it
# was made for (ue_vm_modules_current). Fails naming a module it cannot find.
ue_vm_modules() {
	local tree=$1 config=$2 out=$3 f n spec m sym opt
	local -A path=() done=()
	rm -rf "$out"; mkdir -p "$out"
	while IFS= read -r f; do
		n=${f##*/}; n=${n%%.ko*}
		path[${n//-/_}]=$f
	done < <(find -L "$tree" -name '*.ko*')
	_ue_vm_mod() { # name: its dependencies first, then itself
		local m=$1 d
		[ -z "${done[$m]:-}" ] || return 0
		[ -n "${path[$m]:-}" ] || { echo "no module $m for this kernel below $tree" >&2; return 1; }
		done[$m]=1
		ue_ko_cat "${path[$m]}" >"$out/$m.ko" || return 1
		for d in $(modinfo -F depends "$out/$m.ko" | tr ',' ' '); do
			_ue_vm_mod "${d//-/_}" || return 1
		done
		echo "$m" >>"$out/load.order"
	}
	: >"$out/load.order"
	for spec in $ue_vm_mod_list; do
		IFS=: read -r m sym opt <<<"$spec"
		grep -qx "CONFIG_$sym=y" "$config" && continue
		[ -z "$opt" ] || [ -n "${path[$m]:-}" ] || continue
		_ue_vm_mod "$m" || return 1
	done
	echo "$ue_vm_mod_list" >"$out/list"
}

# ue_vm_modules_current DIR: DIR (a kernel's mods/vm) was made for today's
# ue_vm_mod_list, so that a cache made before a module joined the list is
# made again.
ue_vm_modules_current() {
	[ -f "$1/load.order" ] && [ "$(cat "$1/list" 2>/dev/null)" = "$ue_vm_mod_list" ]
}
