# make check's host checks (sourced by rig/check/job.sh, bash): the scripts
# of tests/host/ (the product's) and of rig/selfcheck/ (the rig's own),
# each a job (graph.sh), with a kernel's headers to take a configuration
# from where they need one (check.sh: sample).

# host_check SCRIPT ARGS...: its result lines; a script that fails or says
# nothing is a failed check, never a silent skip. Its line in the timeline
# is named as the other jobs' are: the job's kind and argument ("host
# deps", "run"), from job.sh's id. It runs with a TMPDIR of its own, which
# it must leave empty (suite temp_files, a case per job named by its id,
# host.package or run; what it left stays there): what a check's programs
# leave there, every run of make check would leave in the machine's /tmp.
host_check() {
	local out rc left tmp=$build/tmp/$id
	rm -rf "$tmp" && mkdir -p "$tmp" || return 1
	out=$(TMPDIR=$tmp ue_job "${id/./ }" "$@")
	rc=$?
	[ -n "$out" ] && echo "$out" >>"$results"
	if [ $rc != 0 ] || [ -z "$out" ]; then
		record "host $(basename "$1" .sh) fail ran exit status $rc, $(echo "$out" | grep -c .) result lines"
	fi
	left=$(ls -A "$tmp")
	if [ -z "$left" ]; then
		record "host temp_files pass $id"
	else
		record "host temp_files fail $id left in $tmp: ${left//$'\n'/ }"
	fi
	rmdir "$tmp" 2>/dev/null || :
}

# host.NAME: tests/host/NAME.sh or rig/selfcheck/NAME.sh, with what it
# takes: deps the lock file (what every entry point installs), run
# linux-source's tree and the sample kernel's headers (style, kbuild),
# package those headers and their release (make deb, lintian, dkms),
# probes every row whose module was built: its headers and the probes'
# header of that build.
job_host() {
	local name=$1 kd= rel= src k kr specs=()
	if [ -n "${kroot[$sample]:-}" ] && [ -f "${kroot[$sample]}/kdir" ]; then
		kd=$(cat "${kroot[$sample]}/kdir") rel=$(cat "${kroot[$sample]}/release")
	fi
	case $name in
	deps)
		say "host checks: dependencies (tests/deps.sh)"
		host_check "$root/tests/host/deps.sh" "$lock" ;;
	console)
		say "host checks: the verdicts of a VM's suites (rig/selfcheck/console.sh)"
		host_check "$root/rig/selfcheck/console.sh" ;;
	probes)
		# NAME:RELEASE:KDIR:MAKEVAR:HEADER, KDIR as the release's chroot
		# sees it (ours: this machine's path, no chroot)
		for k in $debug_kernels $stock; do
			kr=${kroot[$k]:-}
			[ -n "$kr" ] && [ -d "$build/$k/mod" ] || continue
			if [ -z "${krel[$k]:-}" ]; then
				specs+=("$k::$(cat "$kr/kdir")::$build/$k/mod/src/compat/ue_probes.h")
			elif [ "${karch[$k]}" = amd64 ]; then
				specs+=("$k:${krel[$k]}:/usr/src/linux-headers-$(cat "$kr/release")::$build/$k/mod/src/compat/ue_probes.h")
			else
				specs+=("$k:${krel[$k]}:$(cat "$kr/kdir"):$(cat "$kr/cross-make" 2>/dev/null):$build/$k/mod/src/compat/ue_probes.h")
			fi
		done
		# (without rows the script would probe every kernel in the cache)
		if [ ${#specs[@]} = 0 ]; then
			record "host probes fail kernels no row's module was built"
			return 0
		fi
		say "host checks: the kernel API probes against the greps they replace (tests/host/probes.sh)"
		host_check "$root/tests/host/probes.sh" "${specs[@]}" ;;
	run | package)
		if [ -z "$kd" ]; then
			record "host $name fail no_kernel no kernel ($sample) to take a configuration from"
			return 0
		fi
		if [ "$name" = package ]; then
			say "host checks: packaging (make deb, lintian, dkms for $rel)"
			host_check "$root/tests/host/package.sh" "$kd" "$rel"
			return 0
		fi
		src=$(srctree)
		say "host checks: style, kbuild (tests/host/run.sh)"
		host_check "$root/tests/host/run.sh" "$src" "$kd" ;;
	readme)
		host_check "$root/tests/host/readme.sh" ;;
	*)
		host_check "$root/rig/selfcheck/$name.sh" ;;
	esac
}
