#!/bin/bash
# An arm64 Debian root of one release on this amd64 machine, run through
# qemu-user: the Debian package installed there as on an arm64 machine, with
# DKMS building the module natively for Debian's arm64 kernel. (The arm64 VMs'
# perf and trace-cmd come from their .debs unpacked on the host,
# rig/fetch/cross-tools.sh, not from this root.)
#
#   $UE_CACHE/chroots/<release>-arm64/   mmdebstrap --architectures=arm64, cached
#
# mmdebstrap downloads and unpacks the root on the host, then runs the
# root's own arm64 programs (dpkg's maintainer scripts, apt): the kernel
# hands every aarch64 ELF to qemu-aarch64-static (binfmt_misc). The F flag
# makes the kernel open the interpreter when it is registered, so that it
# also runs inside a chroot that has no qemu in it. The root is an
# ordinary chroot of chroot-lib.sh (ue_chroot_run "<release>-arm64"), with
# the release's suites on this machine's mirrors (apt-lib.sh), so no
# mirror is named here.
#
# Host packages: mmdebstrap, qemu-user-static and util-linux (programs:
# mmdebstrap, dpkg-divert, qemu-aarch64-static, unshare, chroot, mount,
# mountpoint, flock); "dkms" takes the .deb of make deb (ue_pkgs_deb).
#
# Usage: arm64-root.sh root RELEASE [HEADERS]
#            the root, made once (cached; with the headers package
#            HEADERS when made) and its apt lists fresh
#        arm64-root.sh dkms RELEASE DEB WORK [HEADERS]
#            in an overlay over the root (thrown away): the headers package
#            HEADERS (default: that of the release's newest 6.12 arm64
#            kernel) and dkms, then DEB (the
#            Architecture: all .deb of make deb); prints what DKMS built.
#            Logs in WORK.
# Times of each step go to stderr.
. "$(dirname "$0")/../lib/prelude.sh"

. "$here/../lib/apt-lib.sh"
. "$here/../lib/chroot-lib.sh"

ue_log_prefix='== arm64-root: '

# What the root has besides minbase: as the other chroots (make, kmod,
# ca-certificates), and dkms.
ue_arm64_base_pkgs=$ue_chroot_base_pkgs,dkms
ue_arm64_binfmt_conf=/usr/lib/binfmt.d/qemu-aarch64.conf

# timed WHAT LOG COMMAND...: COMMAND with its output appended to LOG (-:
# where it goes), and how long it took logged.
timed() {
	local what=$1 out=$2 t0 rc
	shift 2
	t0=$(date +%s)
	if [ "$out" = - ]; then "$@"; else "$@" >>"$out" 2>&1; fi
	rc=$?
	log "$what: $(( $(date +%s) - t0 ))s$([ $rc = 0 ] || echo " (status $rc)")"
	return $rc
}

# qemu-aarch64 registered with binfmt_misc, with the F flag. Debian's
# qemu-user-static ships the registration (binfmt.d, flags OPF) but leaves it
# to systemd-binfmt or binfmt-support, which a container may not run: it is
# registered here from the same file. Registration is machine-wide and stays
# (as the package's own would).
ue_arm64_binfmt() {
	local b=/proc/sys/fs/binfmt_misc
	mountpoint -q "$b" || mount -t binfmt_misc binfmt_misc "$b" ||
		{ log "cannot mount binfmt_misc on $b"; return 1; }
	if [ ! -e "$b/qemu-aarch64" ]; then
		[ -f "$ue_arm64_binfmt_conf" ] ||
			{ log "no $ue_arm64_binfmt_conf: apt-get install qemu-user-static"; return 1; }
		grep -v '^#' "$ue_arm64_binfmt_conf" >"$b/register" ||
			{ log "registering $ue_arm64_binfmt_conf with binfmt_misc failed"; return 1; }
	fi
	grep -qx enabled "$b/qemu-aarch64" ||
		{ log "qemu-aarch64 is registered but disabled in $b (echo 1 >$b/qemu-aarch64)"; return 1; }
	# Without F the kernel looks the interpreter up inside the chroot.
	grep -q '^flags:.*F' "$b/qemu-aarch64" ||
		{ log "qemu-aarch64 is registered without the F flag: echo -1 >$b/qemu-aarch64 and run again"; return 1; }
}

# ue_arm64_root RELEASE [HEADERS]: the root (once), its apt sources and
# lists fresh. One mmdebstrap pass makes it: the download and the unpacking
# run on the host, the maintainer scripts and apt under qemu-user; the root
# gets the base packages, dkms and, when given, the headers package HEADERS
# (that of the kernel its DKMS step will build for, so that the step finds
# them installed: ue_arm64_headers), without the kernel's modules and
# initramfs, as every chroot (chroot-lib.sh, ue_chroot_lean): the
# path-exclude given to dpkg, update-initramfs diverted to true before any
# package that calls it is installed.
# (--skip=check/qemu: mmdebstrap's own test of the emulation needs
# arch-test; ue_arm64_binfmt has checked the registration. In a mount
# namespace of its own, as ue_chroot_run's commands: the proc, sysfs and
# device mounts of its root mode go with it, even when it is killed.)
ue_arm64_root() {
	local r=$1 hdr=${2:-} n=$1-arm64 c stamp want kr uri s srcs=()
	c=$(ue_chroot_dir "$n")
	ue_arm64_binfmt || return 1
	stamp=$c/.ue-complete
	want="mmdebstrap $ue_arm64_base_pkgs"
	if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
		kr=$(ue_keyring) || return 1
		while read -r uri s; do
			srcs+=("deb $uri $s main")
		done < <(ue_release_suites "$r")
		[ ${#srcs[@]} -gt 0 ] || return 1
		rm -rf "$c"
		mkdir -p "$(dirname "$c")"
		log "mmdebstrap --architectures=arm64 $r into $c (once; cached)${hdr:+, with $hdr}"
		timed "mmdebstrap (qemu-user)" "$c.mmdebstrap.log" unshare -m --propagation private \
			mmdebstrap --mode=root --architectures=arm64 --variant=minbase \
			--include="${want#mmdebstrap }${hdr:+,$hdr}" --keyring="$kr" \
			--aptopt='Acquire::Check-Valid-Until "false"' --skip=check/qemu \
			--dpkgopt="$ue_chroot_module_exclude" --essential-hook="$ue_chroot_divert_hook" \
			"$r" "$c" "${srcs[@]}" </dev/null ||
			{ log "mmdebstrap $r arm64 failed: $(tail -3 "$c.mmdebstrap.log" | tr '\n' ' ')"; return 1; }
		rm -f "$c"/etc/apt/sources.list
		echo "$want" >"$stamp"
	fi
	ue_chroot_lean "$c" || { log "the $n root could not leave out its kernel's modules"; return 1; }
	# The release's suites, as in the release's amd64 chroot: the root's
	# apt asks them for arm64, its dpkg architecture.
	ue_chroot_apt "$n" "$r"
}

# The root's downloaded packages, kept beside it (the overlays' too).
ue_arm64_archives() { # RELEASE
	local a
	a=$(ue_chroot_dir "$1-arm64").archives
	mkdir -p "$a/partial"
	echo "$a"
}

# ue_arm64_headers RELEASE HEADERS WORK: the headers package HEADERS and
# dkms installed in the cached root (once), and no other linux-headers or
# linux-image package. The root's mmdebstrap pass installed them when it
# was given HEADERS (ue_arm64_root); this installs them when it was not,
# or when the release's newest kernel has changed since (update-initramfs
# stays diverted, the modules left out: ue_chroot_lean). Log in WORK/steps.log.
ue_arm64_headers() {
	local r=$1 hdr=$2 work=$3 n=$1-arm64 a t0 old
	a=$(ue_arm64_archives "$r")
	if ue_chroot_run "$n" dpkg-query -W -f='${Status}\n' "$hdr" dkms 2>/dev/null |
	   grep -c 'ok installed' | grep -qx 2; then
		return 0
	fi
	old=$(ue_chroot_run "$n" dpkg-query -W -f='${Package} ${Status}\n' 'linux-headers-*' 'linux-image-*' 2>/dev/null |
		awk -v rel="${hdr#linux-headers-}" '/ok installed/ && index($1, rel) == 0 { print $1 }')
	t0=$(date +%s)
	# shellcheck disable=SC2086
	ue_chroot_run "$n" --bind "$a:/var/cache/apt/archives" bash -c '
		[ -z "$2" ] || apt-get -y -q purge --autoremove $2 || exit 1
		apt-get -y -q install --no-install-recommends "$1" dkms
	' ue-arm64-headers "$hdr" "$old" </dev/null >>"$work/steps.log" 2>&1 ||
		{ log "apt-get install $hdr dkms in the $n root failed: see $work/steps.log"; return 1; }
	log "apt-get install $hdr dkms (arm64 root, kept): $(( $(date +%s) - t0 ))s"
}

# ue_arm64_cross RELEASE KRELEASE OVERLAY: the release's cross compiler for
# arm64, an amd64 program, put in the upper layer of OVERLAY (an overlay dir
# of ue_chroot_run, before it is first mounted) over the root's own arm64 gcc,
# so that DKMS's compiles run natively instead of under qemu-user (half an
# hour a build beside the VMs). The compiler is the one CC of the headers'
# .kernelvariables names ("$(CROSS_COMPILE)gcc-N", CROSS_COMPILE
# aarch64-linux-gnu-: the same name as Debian's cross compiler), taken from
# the release's amd64 chroot, where make check's own arm64 builds installed it
# (ue_chroot_cross): the files of its package and of its dependencies, at
# their paths with the links of merged /usr resolved, and the amd64 loader's
# /lib64. Its version text must be the kernel's CONFIG_CC_VERSION_TEXT, as the
# root's own gcc's is. dkms, make, kbuild's programs and the rest of the root
# stay arm64, under qemu-user.
ue_arm64_cross() {
	local r=$1 krel=$2 ovl=$3 upper=$3/upper c hd kv n pkg want got
	c=$(ue_chroot_dir "$r-arm64")
	hd=$c/usr/src/linux-headers-$krel
	kv=$hd/.kernelvariables
	n=$(sed -n 's/^CC = .*\$(CROSS_COMPILE)gcc-\([0-9][0-9]*\)$/\1/p' "$kv")
	[ -n "$n" ] || { log "no gcc-N in the CC of $kv"; return 1; }
	pkg=gcc-$n-aarch64-linux-gnu
	want=$(sed -n 's/^CONFIG_CC_VERSION_TEXT=//p' "$hd/include/config/auto.conf" | tr -d '"')
	mkdir -p "$upper" || return 1
	# shellcheck disable=SC2016
	ue_chroot_run "$r" --bind "$upper:/ue-upper" bash -c '
		set -o pipefail
		pkg=$1
		dpkg-query -W -f="\${Status}\n" "$pkg" 2>/dev/null | grep -q "ok installed" ||
			{ echo "$pkg is not installed in the amd64 chroot"; exit 1; }
		apt-cache depends --recurse --installed --no-recommends --no-suggests --no-conflicts \
			--no-breaks --no-replaces --no-enhances "$pkg" | grep "^[a-z]" | sort -u |
		xargs dpkg -L | grep -v "^/usr/share/" | while read -r f; do
			[ -d "$f" ] || { d=$(readlink -f "$(dirname "$f")"); echo "${d#/}/${f##*/}"; }
		done | sort -u | tar -C / --no-recursion -cf - -T - | tar -C /ue-upper -xf -
	' ue-arm64-cross "$pkg" || { log "$pkg from the $r chroot: failed"; return 1; }
	# (the loader that amd64 programs name, /lib64/ld-linux-x86-64.so.2;
	# an arm64 root has no /lib64)
	[ -e "$c/lib64" ] || [ -e "$upper/lib64" ] || ln -s usr/lib64 "$upper/lib64"
	got=$(ue_chroot_run "$r-arm64" --overlay "$ovl" "aarch64-linux-gnu-gcc-$n" --version 2>&1 | head -1)
	[ "$got" = "$want" ] ||
		{ log "$pkg from the $r chroot says '$got', the kernel was built by '$want'"; return 1; }
	log "$pkg (amd64) from the $r chroot in the overlay: $got"
}

# ue_arm64_dkms RELEASE DEB WORK [HEADERS]: DEB installed in an overlay over the root
# with the headers package HEADERS (default: that of the release's newest
# 6.12 arm64 kernel), as a user of
# an arm64 machine installs it; DKMS builds the module there with the
# release's arm64 gcc (under qemu-user). The built .ko is copied to WORK.
ue_arm64_dkms() {
	local r=$1 deb=$2 work=$3 abi=${4:-} n=$1-arm64 c a krel rc=0 t what s st
	c=$(ue_chroot_dir "$n")
	ue_arm64_root "$r" || return 1
	[ -f "$deb" ] || { log "no $deb"; return 1; }
	a=$(ue_arm64_archives "$r")
	rm -rf "$work" && mkdir -p "$work" || return 1
	work=$(cd "$work" && pwd)
	cp "$deb" "$work/" || return 1
	# The release's newest 6.12 kernel, its plain arm64 flavour (not
	# -cloud-arm64, -rt-arm64 or -16k-arm64: no "-" inside the ABI,
	# 6.12.118+deb13). make check names its row's headers instead.
	[ -n "$abi" ] || abi=$(ue_chroot_run "$n" apt-cache search --names-only '^linux-headers-6\.12\.[0-9]+\+[a-z0-9.~]+-arm64$' |
		awk '{ print $1 }' | sort -V | tail -1)
	[ -n "$abi" ] || { log "no linux-headers-6.12.*-arm64 in $r"; return 1; }
	krel=${abi#linux-headers-}
	# The headers and dkms stay in the cached root, as make check's amd64
	# chroots keep their rows' headers (ue_chroot_headers): under
	# qemu-user their install takes minutes (20 cold), once per kernel.
	# Other kernels' headers go, so that the root does not grow.
	ue_arm64_headers "$r" "$abi" "$work" || return 1
	ue_arm64_cross "$r" "$krel" "$work/overlay" || return 1
	log "in an overlay over the $n root (with $abi and dkms): $(basename "$deb")"
	# shellcheck disable=SC2016
	ue_chroot_run "$n" --overlay "$work/overlay" --bind "$work" \
		--bind "$a:/var/cache/apt/archives" bash -c '
		work=$1 hdr=$2 krel=$3 deb=$4
		t0=$(date +%s)
		apt-get -y -q install --no-install-recommends "$work/$deb" </dev/null >>"$work/steps.log" 2>&1
		rc=$?
		echo "T deb $(( $(date +%s) - t0 )) $rc"
		echo "S $(dkms status -m user-events 2>&1 | tr "\n" " ")"
		# (DKMS 3 keeps the build log under <version>/<kernel>/<arch>/log,
		# or in build/ after a failure)
		cp "$(ls -t /var/lib/dkms/user-events/*/*/*/log/make.log \
			/var/lib/dkms/user-events/*/build/make.log 2>/dev/null | head -1)" "$work/" 2>/dev/null
		ko=$(ls /lib/modules/$krel/updates/dkms/user_events.ko* 2>/dev/null | head -1)
		[ -n "$ko" ] || { echo "K none"; exit 1; }
		cp "$ko" "$work/"
		echo "K $ko"
		echo "V $(modinfo -F vermagic "$ko")"
	' ue-arm64-dkms "$work" "$abi" "$krel" "$(basename "$deb")" >"$work/results" 2>&1 || rc=1
	rm -rf "$work/overlay"
	while read -r t what s st; do
		[ "$t" = T ] && log "apt-get install $what (arm64 overlay): ${s}s (status $st)"
	done <"$work/results"
	grep -v '^T ' "$work/results"
	[ $rc = 0 ] || log "DKMS built no module for $krel: see $work/steps.log and $work/make.log"
	return $rc
}

# ue_arm64_lock RELEASE: hold the root's lock until this script exits. Each
# command changes the cached root (its mmdebstrap pass, apt lists, headers):
# make check's graph runs its "dkms" after its "root", but two runs that
# share the cache would meet on dpkg's lock in it. The second waits here
# instead, for 5400 s at most (the slowest cold root seen took 3834 s), so
# that a process that kept the lock's descriptor cannot hang a run.
ue_arm64_lock() {
	local l
	l=$(ue_chroot_dir "$1-arm64").lock
	mkdir -p "$(dirname "$l")" || return 1
	exec {ue_arm64_lock_fd}>"$l" || return 1
	flock -n "$ue_arm64_lock_fd" && return 0
	log "waiting for the $1-arm64 root: another arm64-root.sh uses it"
	timed "waiting for the $1-arm64 root" - \
		flock -w 5400 "$ue_arm64_lock_fd"
}

[ $# -ge 2 ] && { ue_arm64_lock "$2" || die "cannot lock the $2-arm64 root"; }
case ${1:-} in
root)	[ $# = 2 ] || [ $# = 3 ] || die "usage: $0 root RELEASE [HEADERS]"
	timed "root $2-arm64" - ue_arm64_root "$2" "${3:-}" ;;
dkms)	[ $# = 4 ] || [ $# = 5 ] || die "usage: $0 dkms RELEASE DEB WORK [HEADERS]"
	timed "dkms $2-arm64" - ue_arm64_dkms "$2" "$3" "$4" "${5:-}" ;;
*)	die "usage: $0 root RELEASE [HEADERS] | dkms RELEASE DEB WORK [HEADERS]" ;;
esac
