# make check's install test (sourced by rig/check/job.sh, bash; the test is
# tests/install/run.sh): the .debs, its steps in each release's chroot
# (the .deb with that release's dkms, kernel and package upgrades,
# autopkgtest) once the release's modules are built, the .deb with DKMS in an arm64 root for the
# release's arm64 rows, and the boots of what DKMS built.

# debs: the .debs of this tree and of the previous release, which the
# install test's steps and the booted systems install.
job_debs() {
	ue_job debs "$root/tests/install/run.sh" debs "$build/install/debs" "$notes" >>"$results"
}

# install-steps.RELEASE, install-steps.RELEASE-arm64
job_install_steps() {
	local r=${1%-arm64} rows t0 example=$ubin/example
	if [ "$1" = "$r" ]; then
		rows=${amd64_install[$r]}
		say "install test on $r: the .deb with $r's dkms for" $rows", kernel and package upgrades, autopkgtest"
		t0=$(date +%s)
		# shellcheck disable=SC2086
		ue_job "install-steps $r" "$root/tests/install/run.sh" steps "$build/install/$r" "$example" "$notes" "$r" $rows >>"$results"
		say "install test on $r: steps done in $(( $(date +%s) - t0 ))s (logs: $build/install/$r/)"
		return 0
	fi
	# The arm64 rows: the .deb with DKMS in an arm64 root of their release,
	# for one of its arm64 rows (check.sh: arm64_install).
	example=$build/userspace-arm64/example
	rows=${arm64_install[$r]}
	say "install test on $r arm64: the .deb with DKMS in an arm64 root (qemu-user) for" $rows
	t0=$(date +%s)
	# shellcheck disable=SC2086
	ue_job "install-steps $r-arm64" "$root/tests/install/run.sh" arm64 "$build/install/$r-arm64" "$example" \
		"$notes" "$r" $rows >>"$results"
	say "install test on $r arm64: done in $(( $(date +%s) - t0 ))s (logs: $build/install/$r-arm64/)"
}

# install-boot.RELEASE, install-boot.RELEASE-arm64: each kernel booted with
# the module DKMS built for it in the steps' root.
job_install_boot() {
	local r=${1%-arm64} rows t0 example=$ubin/example
	if [ "$1" = "$r" ]; then
		rows=${amd64_install[$r]}
	else
		rows=${arm64_install[$r]}
		example=$build/userspace-arm64/example
	fi
	t0=$(date +%s)
	# shellcheck disable=SC2086
	ue_job "install-boot $1" "$root/tests/install/run.sh" boot "$build/install/$1" "$example" "$notes" "$r" $rows >>"$results"
	say "install test on $1: boots done in $(( $(date +%s) - t0 ))s"
}
