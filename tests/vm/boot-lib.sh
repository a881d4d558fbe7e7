# The boot stage of make check (sourced by check.sh, bash): the initramfs of
# a kernel's row and its run in QEMU, read back into result lines. Uses
# check.sh's globals: root, vmdir, build, ubin, sbin, troot, kroot, klevel,
# vm_timeout, record.

# The suites of a "short" row (kernels.list: a flavour sibling of a source
# another row runs in full): the UAPI, loading, refusal and unloading, the
# upstream selftests, and the races between two CPUs (enable bits included).
ue_short_suites="00-uapi 10-module 35-race 50-selftests"

make_initramfs() { # kernel
	local k=$1 ir=$build/$k/initramfs t
	ue_initramfs_skeleton "$ir" "$vmdir/guest-init"
	mkdir -p "$ir/tests/bin"
	if [ "${klevel[$k]:-full}" = short ]; then
		cp "$root/tests/userspace/lib.sh" "$ir/tests/"
		for t in $ue_short_suites; do cp "$root/tests/userspace/$t.sh" "$ir/tests/"; done
	else
		cp "$root"/tests/userspace/*.sh "$ir/tests/"
	fi
	cp "$ubin"/* "$ir/tests/bin/"
	mkdir -p "$ir/tests/selftests"
	cp "$root/tests/selftests/expected" "$ir/tests/selftests/"
	for f in "$sbin"/*; do
		[ -f "$f" ] && [ -x "$f" ] && cp "$f" "$ir/tests/selftests/"
	done
	cp "$build/$k/mod/user_events.ko" "$build/$k/twin/user_events_twin.ko" \
		"$build/$k/skew/user_events_skew.ko" "$build/$k/race/user_events_race.ko" \
		"$ir/modules/"
	cp "$root/VERSION" "$ir/modules/VERSION"
	# Kernel modules the suites load (fuse.ko, where FUSE is not built in).
	if [ -d "${kroot[$k]}/mods" ]; then
		find "${kroot[$k]}/mods" -name fuse.ko -exec cp {} "$ir/modules/" \;
	fi
	# KUnit: the framework from the debug kernel, and our test module.
	if [ -f "$build/$k/kunit/tests/kunit/user_events_kunit.ko" ]; then
		find "${kroot[$k]}/mods" -name kunit.ko -exec cp {} "$ir/modules/" \;
		cp "$build/$k/kunit/tests/kunit/user_events_kunit.ko" "$ir/modules/"
	fi
	[ -d "$troot" ] && cp -a "$troot"/. "$ir/"
	ue_initramfs_pack "$ir" "$build/$k/initrd.gz"
}

# qemu_int3 CONSOLE-TEXT: the VM's first splat is QEMU 7.2's stale int3 of
# multi-threaded TCG in the kernel's own text (docs/testing.md, "Two CPUs"):
# "Oops: int3" at a RIP outside every module. Prints that RIP.
qemu_int3() {
	local first rip
	first=$(ue_splats "$1" | head -1)
	rip=$(grep -A8 -m1 'Oops: int3' "$1" | grep -m1 'RIP:' | sed 's/.*RIP: //')
	[[ $first == *'Oops: int3'* && -n $rip && $rip != *'['* ]] && echo "$rip"
}

boot_and_run() { # kernel
	local k=$1 log=$build/$k/console.log kdir rc rip
	kdir=${kroot[$k]}
	boot() {
		ue_boot "$kdir" "$build/$k/initrd.gz" "$log" "$vm_timeout"
		rc=$?
		tr -d '\r' <"$log" >"$log.txt" 2>/dev/null || : >"$log.txt"
	}
	boot
	# That QEMU defect is not the module's: the run is repeated once, said
	# aloud; a second one, or any other splat, fails as usual.
	if rip=$(qemu_int3 "$log.txt"); then
		mv "$log.txt" "$log.int3.txt"
		say "$k: NOTE: QEMU's stale int3 under multi-threaded TCG ($rip), see docs/testing.md; booting once more (first log: $log.int3.txt)"
		boot
	fi
	if [ $rc = 124 ]; then
		record "$k vm fail finished timed out after ${vm_timeout}s"
	elif grep -q '^UE-DONE' "$log.txt"; then
		record "$k vm pass finished"
	else
		record "$k vm fail finished VM ended without finishing (qemu rc $rc)"
	fi
	if grep -q '^UE-BOOTED' "$log.txt"; then
		record "$k vm pass booted"
	else
		record "$k vm fail booted"
	fi
	# Every suite that started must have ended.
	grep '^UE-SUITE-START ' "$log.txt" | while read -r _ s; do
		if grep -q "^UE-SUITE-END $s " "$log.txt"; then
			record "$k $s pass suite_completed"
		else
			record "$k $s fail suite_completed suite did not finish"
		fi
	done
	grep '^UE-RESULT ' "$log.txt" | while read -r _ suite verdict rest; do
		record "$k $suite $verdict $rest"
	done
	local splats
	splats=$(ue_splats "$log.txt")
	if [ -n "$splats" ]; then
		record "$k vm fail no_kernel_splat $(echo "$splats" | head -3 | tr '\n' '|')"
	else
		record "$k vm pass no_kernel_splat"
	fi
}

