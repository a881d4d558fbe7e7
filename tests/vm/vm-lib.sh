# Shared by check.sh, demo.sh and bench/run.sh (sourced, bash): the
# dependencies (tests/deps.sh), the initramfs skeleton and the QEMU command
# line.

# The packages and programs of each entry point, and the PATH they run with.
. "$(dirname "${BASH_SOURCE[0]}")/../deps.sh"

# ue_initramfs_skeleton DIR INIT: busybox, the mount points, and INIT as /init.
ue_initramfs_skeleton() {
	local ir=$1
	rm -rf "$ir"
	mkdir -p "$ir"/{bin,modules,proc,sys,dev,tmp}
	cp /bin/busybox "$ir/bin/busybox"
	ln -s busybox "$ir/bin/sh"
	cp "$2" "$ir/init"
	chmod +x "$ir/init"
}

# ue_initramfs_pack DIR OUT: gzip'ed newc cpio of DIR.
ue_initramfs_pack() {
	(cd "$1" && find . | cpio -o -H newc --quiet | gzip -1) >"$2"
}

# ue_boot KROOT INITRD CONSOLE-LOG TIMEOUT: boot the kernel of KROOT (a
# directory with release and boot/, as fetch-kernels.sh leaves it) under
# TCG; the guest's serial console goes to CONSOLE-LOG, QEMU's own output to
# CONSOLE-LOG.qemu. Returns QEMU's (or timeout's, 124) status. A kernel
# directory may hold a file "cmdline" with extra kernel parameters;
# UE_QEMU_OPTS adds QEMU options (make bench: -icount).
#
# Users run SMP machines: every VM has UE_VM_CPUS vCPUs (default 2), each a
# host thread of its own (multi-threaded TCG), so that two CPUs really run
# the module's code at once. -icount (make bench) needs one TCG thread,
# which then runs the vCPUs in turn.
ue_boot() {
	local kr=$1 extra= tcg=multi
	[ -f "$kr/cmdline" ] && extra=" $(cat "$kr/cmdline")"
	case " ${UE_QEMU_OPTS:-} " in *" -icount "*) tcg=single ;; esac
	# shellcheck disable=SC2086
	timeout "$4" qemu-system-x86_64 -accel tcg,thread=$tcg -cpu max -m 1024 \
		-smp "${UE_VM_CPUS:-2}" ${UE_QEMU_OPTS:-} \
		-display none -monitor none -no-reboot \
		-serial file:"$3" \
		-kernel "$kr/boot/vmlinuz-$(cat "$kr/release")" \
		-initrd "$2" \
		-append "console=ttyS0 panic=-1 loglevel=7$extra" </dev/null >"$3.qemu" 2>&1
}

# ue_splat_re: the kernel-splat patterns of tests/vm/splat.re as one ERE.
ue_splat_re() {
	grep -v '^#' "$(dirname "${BASH_SOURCE[0]}")/splat.re" | paste -sd'|'
}

# ue_splats CONSOLE-TEXT: the kernel splats in a console log (our own lines,
# UE-*, are not kernel output); nothing if there are none.
ue_splats() {
	grep -v '^UE-' "$1" | grep -E "$(ue_splat_re)"
}

# ue_build_module ROOT OUT KDIR [make vars...]: build user_events.ko from the
# checkout ROOT in a copy under OUT (log in OUT.log).
ue_build_module() {
	local root=$1 out=$2 kdir=$3
	shift 3
	rm -rf "$out"; mkdir -p "$out"
	rsync -a --exclude build --exclude .git --exclude '*.o' --exclude '*.ko' \
		"$root/Kbuild" "$root/Makefile" "$root/VERSION" "$root/src" \
		"$root/include" "$root/scripts" "$out/"
	make -C "$out" KDIR="$kdir" "$@" >"$out.log" 2>&1
}
