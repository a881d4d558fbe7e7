# make check's VM stage (sourced by rig/check/job.sh, bash): a row's VM
# (boot-lib.sh: its initramfs, QEMU, the console read back into results),
# and user-events-run's checks (tests/run/check.sh), each holding a VM slot.

# A VM's limit: its row's (kernels.list, column limit, which says why each
# is what it is), or UE_VM_TIMEOUT for every VM.
vm_limit() { echo "${UE_VM_TIMEOUT:-${klimit[$1]:-900}}"; }

# vm.ROW: its VM, once its modules, the test programs and tools of its
# architecture are ready (graph.sh); its product, the console's text.
job_vm() {
	local k=$1 t0
	ue_job "initramfs $k" make_initramfs "$k"
	say "$k: initramfs $(( $(stat -c %s "$build/$k/initrd.cpio") / 1048576 )) MB"
	vm_timeout=$(vm_limit "$k")
	say "$k: booting $(cat "${kroot[$k]}/release") (timeout ${vm_timeout}s)"
	t0=$(date +%s)
	ue_job "vm $k" boot_and_run "$k"
	say "$k: VM done in $(( $(date +%s) - t0 ))s"
	# Informational selftests are not counted: say how many there were;
	# and the seeds of the fuzzer and the stress suite.
	sed -n -e 's/^UE-INFO selftests summary: /selftests: /p' \
		-e 's/^UE-INFO \(fuzz seed .*\)/\1/p' \
		-e 's/^UE-INFO \(stress seed .*\)/\1/p' "$build/$k/console.log.txt" |
		while read -r line; do say "$k: $line"; done
	say "$k: console log at $build/$k/console.log.txt"
}

# run: scripts/user-events-run (tests/run/check.sh) on one kernel, its
# default (kernels.list: flag run) where this run has it (check.sh:
# run_kernel).
job_run() {
	local t0
	if [ -z "$run_kernel" ]; then
		record "host run fail kernel no amd64 Debian kernel in this run to run user-events-run on"
		return 0
	fi
	say "user-events-run on $run_kernel (tests/run/check.sh)"
	t0=$(date +%s)
	host_check "$root/tests/run/check.sh" "$run_kernel" "$build/run"
	say "user-events-run: checks done in $(( $(date +%s) - t0 ))s (logs: $build/run/)"
}
