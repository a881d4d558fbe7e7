# make check's tools stage (sourced by rig/check/job.sh, bash): perf and
# trace-cmd for the tools suite of every VM, and the arm64 root of the
# install test's DKMS step.
#
# Debian 12's binaries run inside every amd64 VM with the shared libraries ldd lists
# (and the dynamic loader), copied at the same paths into a tree that
# make_initramfs adds to each initramfs. Debian's linux-perf has shipped both
# the real binary as /usr/bin/perf (bookworm) and a wrapper script there that
# execs perf_<version>; the guest's /usr/bin/perf is always the real binary.
stage_elf() { # host-file guest-path
	local f=$1 dest=$2 libs lib real
	libs=$(ldd "$f") || { echo "check: ldd $f failed"; return 1; }
	if grep -q 'not found' <<<"$libs"; then
		echo "check: $f: missing libraries: $(grep 'not found' <<<"$libs" | tr -d '\t' | tr '\n' ' ')"
		return 1
	fi
	install -D -m 755 "$f" "$troot$dest" || return 1
	for lib in $(awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' <<<"$libs"); do
		[ -e "$troot$lib" ] && continue
		real=$(readlink -f "$lib")
		# Keep the mode: the loader must stay executable.
		install -D -m "$(stat -c %a "$real")" "$real" "$troot$lib" || return 1
	done
}
stage_tools() {
	local perf=/usr/bin/perf
	rm -rf "$troot"
	if [ "$(head -c 4 "$perf" 2>/dev/null | tail -c 3)" != ELF ]; then
		perf=$(ls -v /usr/bin/perf_[0-9]* 2>/dev/null | tail -1)
		[ -n "$perf" ] || { echo "check: /usr/bin/perf is a wrapper and no /usr/bin/perf_<version> exists"; return 1; }
	fi
	stage_elf "$perf" /usr/bin/perf && stage_elf /usr/bin/trace-cmd /usr/bin/trace-cmd
}
# tools.ARCH: build/check/tools-root (amd64) or tools-root-ARCH, recorded.
# The arm64 rows': Debian's arm64 perf and trace-cmd, of the first arm64 row's
# release (kernels.list puts trixie's first), unpacked on this machine from
# their .debs and those of their dependencies, and staged with the libraries
# their NEEDED entries name (rig/fetch/cross-tools.sh: about a minute cold, no
# arm64 root).
job_tools() {
	local a=$1 k r=
	if [ "$a" = amd64 ]; then
		say "staging perf and trace-cmd for the VMs"
		if ue_job "tools amd64" stage_tools >"$build/tools-stage.log" 2>&1; then
			record "host tools pass staged"
			say "tools: $(find "$troot" -type f | wc -l) files, $(du -sm "$troot" | cut -f1) MB uncompressed"
			return 0
		fi
		record "host tools fail staged $(head -c 200 "$build/tools-stage.log" | tr '\n' ' ')"
		return 1
	fi
	for k in $stock; do [ "${karch[$k]}" = "$a" ] && { r=${krel[$k]}; break; }; done
	if ue_job "tools $a" "$rig/fetch/cross-tools.sh" "$r" "$a" "$product" >"$build/tools-stage-$a.log" 2>&1; then
		record "host tools pass staged.$a"
	else
		record "host tools fail staged.$a $(grep -v '^== cross-tools: .*: [0-9]*s$' "$build/tools-stage-$a.log" | tail -2 | tr '\n' ' ')"
		return 1
	fi
}

# arm64-root.RELEASE: the arm64 root of the install test's DKMS step
# (rig/fetch/arm64-root.sh: one mmdebstrap pass, its maintainer scripts and
# apt under qemu-user, about 5 min cold), begun as soon as the row that
# step takes is fetched (check.sh: arm64_install), so that it is ready
# when that step comes; no VM waits for it. The root gets that row's
# headers. Its product, a link to the root.
job_arm64_root() {
	local r=$1 k=${arm64_install[$1]}
	ue_job "arm64-root $r" "$rig/fetch/arm64-root.sh" root "$r" \
		"linux-headers-$(cat "${kroot[$k]}/release")" >"$build/arm64-root-$r.log" 2>&1 ||
		{ record "host install fail $r.arm64_root $(tail -1 "$build/arm64-root-$r.log")"; return 1; }
	link_product "$(ue_chroot_dir "$r-arm64")"
}
