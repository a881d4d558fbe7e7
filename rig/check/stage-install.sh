# make check's install test (sourced by rig/check/job.sh, bash; the test is
# tests/install/run.sh): the .debs, its steps in each release's chroot
# (the .deb with that release's dkms, kernel and package upgrades,
# autopkgtest) once the release's modules are built, the .deb with DKMS in an arm64 root for the
# release's arm64 rows, and the boots of what DKMS built.

# The install test's rows of release $1 and architecture $2 (default
# amd64): its kernels whose module built.
install_rows() {
	local k
	for k in $stock; do
		[ "${krel[$k]}" = "$1" ] && [ "${karch[$k]}" = "${2:-amd64}" ] &&
			grep -qx "$k build pass module" "$results" && echo "$k"
	done
}

# arm64_install_row RELEASE: the arm64 row of RELEASE whose .deb the install
# test installs with DKMS in an arm64 root (the first whose module built);
# under qemu-user that takes minutes, and a kernel's headers stay in the
# root (rig/fetch/arm64-root.sh), so one kernel a release, the first in
# kernels.list's order. Not one without KALLSYMS_ALL (bookworm's 6.1, whose
# fetch took its System.map: kroot/dbg): DKMS would need the System.map of
# its 800 MB -dbg package there. The rows left out are said in notes.
arm64_install_row() {
	local k one=
	for k in $(install_rows "$1" arm64); do
		if [ -d "${kroot[$k]}/dbg" ]; then
			echo "NOTE: $k: no install test (the .deb with DKMS in an arm64 root): its kernel has no KALLSYMS_ALL, and DKMS there would need the System.map of its -dbg package" >>"$notes"
		elif [ -z "$one" ]; then
			one=$k
		else
			echo "NOTE: $k: no install test (the .deb with DKMS in an arm64 root): $one's stands for $1's arm64 kernels" >>"$notes"
		fi
	done
	echo "$one"
}

# debs: the .debs of this tree and of the previous release, which the
# install test's steps and the booted systems install.
job_debs() {
	ue_job debs "$root/tests/install/run.sh" debs "$build/install/debs" "$notes" >>"$results"
}

# install-steps.RELEASE, install-steps.RELEASE-arm64
job_install_steps() {
	local r=${1%-arm64} rows t0 example=$ubin/example
	if [ "$1" = "$r" ]; then
		[ -x "$example" ] || { record "host install fail example samples/example.c did not build"; return 0; }
		rows=$(install_rows "$r")
		[ -n "$rows" ] || return 0
		say "install test on $r: the .deb with $r's dkms for" $rows", kernel and package upgrades, autopkgtest"
		t0=$(date +%s)
		# shellcheck disable=SC2086
		ue_job "install-steps $r" "$root/tests/install/run.sh" steps "$build/install/$r" "$example" "$notes" "$r" $rows >>"$results"
		say "install test on $r: steps done in $(( $(date +%s) - t0 ))s (logs: $build/install/$r/)"
		return 0
	fi
	# The arm64 rows: the .deb with DKMS in an arm64 root of their release,
	# for its first arm64 row (arm64_install_row); the others, said in a
	# note.
	example=$build/userspace-arm64/example
	[ -x "$example" ] || return 0
	rows=$(arm64_install_row "$r")
	[ -n "$rows" ] || return 0
	mkdir -p "$build/install"
	echo "$rows" >"$build/install/$r-arm64.rows"
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
	[ -d "$build/install/$1" ] || return 0
	if [ "$1" = "$r" ]; then
		rows=$(install_rows "$r")
	else
		rows=$(cat "$build/install/$1.rows")
		example=$build/userspace-arm64/example
	fi
	t0=$(date +%s)
	# shellcheck disable=SC2086
	ue_job "install-boot $1" "$root/tests/install/run.sh" boot "$build/install/$1" "$example" "$notes" "$r" $rows >>"$results"
	say "install test on $1: boots done in $(( $(date +%s) - t0 ))s"
}
