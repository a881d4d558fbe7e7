# The boot stage of make check (sourced by check.sh, bash): the initramfs of
# a kernel's row and its run in QEMU, read back into result lines. Uses
# check.sh's globals: root, rig, build, ubin, sbin, troot, kroot, klevel,
# kextra, kflags, vm_timeout, notes, record.

# The suites of a "short" row (kernels.list: a flavour sibling of a source
# another row runs in full): the UAPI, loading, refusal and unloading, the
# upstream selftests, the races between two CPUs (enable bits included),
# the seeded ABI fuzzer and the concurrent stress suite. A "config" row (a
# sibling that differs only in its configuration: a cloud flavour) runs
# what a configuration can change, not the races and stress, which its
# full sibling runs on the same source, compiler and preemption model.
ue_short_suites="00-uapi 10-module 35-race 45-fuzz 50-selftests 55-stress"
ue_config_suites="00-uapi 10-module 45-fuzz 50-selftests"

make_initramfs() { # kernel
	local k=$1 ir=$build/$k/initramfs t ko a=${karch[$1]:-amd64} extra=${kextra[$1]:--}
	# (its extra suites, kernels.list: comma-separated, or -)
	[ "$extra" != - ] || extra=
	extra=${extra//,/ }
	local ubin=$ubin sbin=$sbin troot=$troot
	# Another architecture's row (arm64): the programs built for it
	# (check.sh: userspace-ARCH, selftests-ARCH, tools-root-ARCH).
	[ "$a" = amd64 ] ||
		ubin=$build/userspace-$a sbin=$build/selftests-$a troot=$build/tools-root-$a
	ue_initramfs_skeleton "$ir" "$rig/guest/guest-init" "$(ue_kroot_busybox "${kroot[$k]}")"
	cp "$rig/guest/guest-suites.sh" "$ir/guest-suites.sh"
	mkdir -p "$ir/tests/bin"
	if [ -n "${UE_SUITES:-}" ]; then
		# (make soak: only these, with its times)
		cp "$root/tests/userspace/lib.sh" "$ir/tests/"
		for t in $UE_SUITES; do cp "$root/tests/userspace/$t.sh" "$ir/tests/"; done
	elif [ "${klevel[$k]:-full}" != full ]; then
		local suites=$ue_short_suites
		[ "${klevel[$k]}" != config ] || suites=$ue_config_suites
		cp "$root/tests/userspace/lib.sh" "$ir/tests/"
		for t in $suites; do cp "$root/tests/userspace/$t.sh" "$ir/tests/"; done
		for t in $extra; do cp "$root"/tests/userspace/[0-9][0-9]-"$t".sh "$ir/tests/"; done
	else
		cp "$root"/tests/userspace/*.sh "$ir/tests/"
	fi
	# The row's extra suites (kernels.list, column extra), which run where
	# /tests/extra names them and skip elsewhere; and the timed and counted
	# suites' budgets, long where the row's flags say long-budgets (lib.sh's
	# ue_budget).
	echo "$extra" >"$ir/tests/extra"
	if [[ ,${kflags[$k]:-}, == *,long-budgets,* ]]; then
		echo long >"$ir/tests/budget"
	else
		echo short >"$ir/tests/budget"
	fi
	[ -z "${UE_STRESS_SECS:-}" ] || echo "$UE_STRESS_SECS" >"$ir/tests/stress_secs"
	[ -z "${UE_SUITE_TIMEOUT:-}" ] || echo "$UE_SUITE_TIMEOUT" >"$ir/tests/suite_timeout"
	cp "$ubin"/* "$ir/tests/bin/"
	# (the package's diagnosis, run by suite module)
	cp "$root/tools/user-events-check" "$ir/tests/bin/"
	mkdir -p "$ir/tests/selftests"
	cp "$root/tests/selftests/expected" "$ir/tests/selftests/"
	for f in "$sbin"/*; do
		[ -f "$f" ] && [ -x "$f" ] && cp "$f" "$ir/tests/selftests/"
	done
	cp "$build/$k/mod/user_events.ko" "$build/$k/skew/user_events_skew.ko" \
		"$build/$k/race/user_events_race.ko" "$ir/modules/"
	# Without their debug information: the guest reads less, and loads
	# them faster (suite faults loads user_events.ko some 400 times).
	for ko in "$ir"/modules/*.ko; do "$(ue_cross_prefix "$a")objcopy" --strip-debug "$ko"; done
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
	ue_initramfs_pack "$ir" "$build/$k/initrd.cpio"
}

boot_and_run() { # kernel
	local k=$1 log=$build/$k/console.log rc t0=$SECONDS
	# slub_debug on the core's event files: a read of a freed one (of a
	# removed event, private/removed_event.h) reads poison, and a write
	# to one is found when it is allocated again, both reported.
	# Expedited RCU grace periods: under TCG a normal one takes 30 to 70
	# ms, and the core waits for one, holding event_mutex, on every perf
	# close of a trace event (tracepoint_synchronize_unregister) and on
	# an ftrace enable soon after a disable (tp_rcu_cond_sync); the race
	# suite's exit_wait and bits_shared spent most of their time there
	# (bpo: race 124 s, 65 s expedited). What a grace period guarantees
	# is the same. The rt rows keep normal ones: PREEMPT_RT turns
	# expedited grace periods off after boot (rcu_normal_after_boot).
	# The caller's UE_VM_CMDLINE comes after these (tsc_early_khz=, say,
	# to give a guest the clock fault that guest-init handles).
	UE_VM_CMDLINE="slub_debug=FP,trace_event_file rcupdate.rcu_expedited=1${UE_VM_CMDLINE:+ $UE_VM_CMDLINE}" \
		ue_boot_checked "${kroot[$k]}" "$build/$k/initrd.cpio" "$log" "$vm_timeout" >"$build/$k/int3.notes"
	rc=$?
	while read -r line; do say "$line"; done <"$build/$k/int3.notes"
	cat "$build/$k/int3.notes" >>"$notes"
	if [ $rc = 124 ]; then
		record "$k vm fail finished timed out after ${vm_timeout}s"
	elif [ $rc = 125 ]; then
		record "$k vm fail finished the guest did not reach user space, three times"
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
	# Each suite of its initramfs must have started and ended with status
	# 0 within its time limit; and its result lines (console-results.sh).
	local suites
	suites=$(cd "$build/$k/initramfs/tests" && ls [0-9][0-9]-*.sh | sed 's/^[0-9][0-9]-//; s/\.sh$//')
	# shellcheck disable=SC2086
	UE_VM_WALL=$((SECONDS - t0)) "$rig/report/console-results.sh" "$k" "$log.txt" $suites >>"$results"
	local splats
	splats=$(ue_splats "$log.txt")
	if [ -n "$splats" ]; then
		record "$k vm fail no_kernel_splat $(ue_splat_summary "$log.txt" | tr '\n' '|')"
	else
		record "$k vm pass no_kernel_splat"
	fi
}

