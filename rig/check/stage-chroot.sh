# make check's chroot stage (sourced by rig/check/job.sh, bash): a chroot per
# Debian release (chroot-lib.sh), then the headers of the release's amd64
# rows in it as apt-get installs them there, and ccache for our own module
# builds (stage-build.sh; DKMS's builds in the install test never use it).
# The chroot's product is a link to it; the headers', the list of headers
# packages the chroot then has (graph.sh, product).

job_chroot() {
	local r=$1
	if ! ue_job "chroot $r" ue_chroot_make "$r" >"$build/chroot-$r.log" 2>&1; then
		record "host chroot fail $r $(tail -1 "$build/chroot-$r.log")"
		return 1
	fi
	# This machine's release: gcc and ccache at once, for our kernels'
	# modules (stage-build.sh), which wait for this job and not for the
	# release's headers.
	if [ "$r" = "$own_release" ] &&
	   ! ue_job "gcc $r" own_cc_setup "$r" >>"$build/chroot-$r.log" 2>&1; then
		record "host chroot fail $r.ccache $(tail -1 "$build/chroot-$r.log")"
		return 1
	fi
	link_product "$(ue_chroot_dir "$r")"
}

# own_cc_setup RELEASE: gcc (the name our kernels' configuration gives their
# compiler) and ccache in the chroot, and ccache's link for gcc, which
# ccache's trigger does not make when only gcc's own link comes.
own_cc_setup() {
	ue_chroot_pkgs "$1" ccache gcc &&
		ue_chroot_run "$1" --exclusive update-ccache-symlinks
}

job_headers() {
	local r=$1 k hdrs=() keep=()
	for k in $stock; do
		[ "${krel[$k]}" = "$r" ] && [ "${karch[$k]}" = amd64 ] || continue
		hdrs+=("$(awk -v k="$k" '$1 == k && NF == 7 { print $5 "=" $6 }' "$lock")")
	done
	# A run of some rows (UE_KERNELS) keeps the other rows' headers: the
	# next whole run needs them (a whole run purges those of no row, so
	# that the chroot does not grow from one kernel update to the next).
	[ -z "${UE_KERNELS:-}" ] || keep=(--keep)
	if [ ${#hdrs[@]} -gt 0 ] &&
	   ! ue_job "headers $r" ue_chroot_headers "${keep[@]}" "$r" "${hdrs[@]}" >>"$build/chroot-$r.log" 2>&1; then
		record "host chroot fail $r.headers $(tail -1 "$build/chroot-$r.log")"
		return 1
	fi
	if ! ue_job "ccache $r" ue_chroot_pkgs "$r" ccache >>"$build/chroot-$r.log" 2>&1; then
		record "host chroot fail $r.ccache $(tail -1 "$build/chroot-$r.log")"
		return 1
	fi
	ue_chroot_have_headers "$r" >"$product"
}
