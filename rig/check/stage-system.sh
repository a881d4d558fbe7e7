# make check's booted-system test (sourced by rig/check/job.sh, bash; the
# test is tests/system/run.sh): each system of tests/system/systems.list,
# its image made or refreshed, then booted under Secure Boot with the
# .debs the install test built.

# system-image.NAME: its product, a link to the system's root in the cache.
job_system_image() {
	local t0=$(date +%s)
	ue_job "system-image $1" "$root/tests/system/run.sh" image "$1" "$build/system/$1" "$notes" \
		>>"$results" || return 1
	say "booted system $1: image ready in $(( $(date +%s) - t0 ))s (logs: $build/system/$1/)"
	link_product "$UE_CACHE/system/$1/root"
}

# system-disk.NAME: the .debs installed, and the disk (the product).
job_system_disk() {
	local t0=$(date +%s)
	ue_job "system-disk $1" "$root/tests/system/run.sh" prepare "$1" "$build/system/$1" \
		"$build/install/debs" >>"$results" || return 1
	say "booted system $1: disk ready in $(( $(date +%s) - t0 ))s"
}

# system.NAME: its boots.
job_system() {
	local t0=$(date +%s)
	ue_job "system $1" "$root/tests/system/run.sh" boot "$1" "$build/system/$1" "$notes" >>"$results"
	say "booted system $1: boots done in $(( $(date +%s) - t0 ))s (consoles: $build/system/$1/)"
}
