#!/bin/bash
# The install test of make check: the Debian package as a user of one Debian
# release installs it, with that release's apt and dkms (2.8 on bullseye, 3.0
# on bookworm, 3.2 on trixie, unstable's), in an overlay over the release's
# cached chroot (rig/lib/chroot-lib.sh) that already has the headers of the
# release's kernels (those of the kernels given kept, the others purged):
#   - the steps of in-chroot.sh: install, what DKMS built and skipped, a
#     kernel upgrade, remove and purge, a package upgrade, autopkgtest; and
#     user-events-dev: samples/example.c built there with the installed
#     header only (cc $(pkg-config --cflags user-events) -static);
#   - then each kernel booted in QEMU with the .ko DKMS built for it, and a
#     smoke test (tests/install/smoke-init) that runs that example.
# make check runs the phases apart: the .debs once per run (PHASE "debs",
# into WORKDIR/../debs of the other phases), the steps beside the other VMs
# ("steps"), the boots after them ("boot", in the WORKDIR the steps left).
# The .debs: this tree's, and the previous release's (the newest tag's
# tree; without a tag, this tree as VERSION~prev1, which a NOTE line says).
#
# Usage: run.sh debs DEBSDIR NOTES
#        run.sh steps|arm64|boot WORKDIR EXAMPLE-BINARY NOTES RELEASE KERNEL...
#   (KERNEL: short names of kernels.list rows of RELEASE; arm64: the
#   release's arm64 rows, DKMS in an arm64 root instead of the steps, with
#   EXAMPLE-BINARY built for arm64)
#   The VMs run WORKDIR/example: on amd64 the steps' build with
#   user-events-dev; on arm64 EXAMPLE-BINARY (built on this machine with
#   the checkout's include/uapi), which the arm64 phase copies there.
#   ue_keyhold comes from EXAMPLE-BINARY's directory.
# Prints "<kernel> install pass|fail <case> [detail]" lines ("host" with
# "<release>." before the case for the package-level checks); progress goes
# to stderr, logs to WORKDIR.
. "$(dirname "$0")/../../rig/lib/prelude.sh"

root=$(cd "$here/../.." && pwd)
rig=$root/rig
. "$rig/lib/vm-lib.sh"
. "$rig/lib/apt-lib.sh"
. "$rig/lib/chroot-lib.sh"
phase=$1 work=$2
if [ "$phase" = debs ]; then
	notes=$3 release=
	shift 3
else
	example=$3 notes=$4 release=$5
	shift 5
fi
version=$(cat "$root/VERSION")
vm_timeout=${UE_VM_TIMEOUT:-600}
debs=$(dirname "$work")/debs

ue_log_prefix="== install${release:+ $release}: "
result() { echo "$1 install $2 $3${4:+ $4}"; }
hres() { result host "$1" "${release:+$release.}$2" "${3:-}"; }

if [ "$(id -u)" != 0 ]; then
	hres fail root "the install test installs packages in chroots: run make check as root"
	exit 0
fi
declare -A row	# kernel release -> row
rels=()
for k in "$@"; do
	r=$(cat "$UE_CACHE/kernels/$k/release") || { result "$k" fail release "no $UE_CACHE/kernels/$k/release"; exit 0; }
	row[$r]=$k
	rels+=("$r")
done

# --- the .debs: this tree's and the previous release's ---------------------------
# debs: make deb in copies of this tree and of the previous release's, into
# WORK (the run's build/check/install/debs, its own job: the install steps
# and the booted systems install them).
debs() {
	local tag prev
	# make_deb TREE: make deb in a copy of TREE (its debian/changelog names the version).
	make_deb() {
		make -C "$1" deb >"$1.deb.log" 2>&1 && cp "$1"/build/deb/*.deb "$work/"
	}
	rm -rf "$work" && mkdir -p "$work/prev"
	make -s -C "$root" copy-package-tree DEST="$work/src"
	tag=$(git -C "$root" describe --tags --abbrev=0 2>/dev/null)
	if [ -n "$tag" ]; then
		git -C "$root" archive "$tag" | tar -x -C "$work/prev"
		prev=$(cat "$work/prev/VERSION")
		echo "NOTE install: the package upgrade starts from $tag ($prev)" >>"$notes"
	else
		cp -a "$work/src/." "$work/prev/"
		prev=$version~prev1
		echo "$prev" >"$work/prev/VERSION"
		sed -i "1s/([^)]*)/($prev)/" "$work/prev/debian/changelog"
		echo "NOTE install: no release tag: the package upgrade starts from this tree built as $prev" >>"$notes"
	fi
	log "building the .debs of $version and $prev"
	if ! make_deb "$work/src" || ! make_deb "$work/prev"; then
		hres fail debs_built "see $work/src.deb.log and $work/prev.deb.log"
		return
	fi
	# autopkgtest reads the source tree: without what a build left in it.
	rm -rf "$work/src/build" "$work/prev"
	hres pass debs_built
}

# debs_built: the .debs are in $debs (the debs job made them), and $prev
# names the previous release's version; 1 (said) if they are not.
debs_built() {
	local d
	for d in "$debs/user-events-dkms_"*_all.deb; do
		d=${d##*/user-events-dkms_} d=${d%_all.deb}
		[ "$d" = "$version" ] || prev=$d
	done
	if [ ! -f "$debs/user-events-dkms_${version}_all.deb" ] || [ -z "${prev:-}" ]; then
		hres fail debs_built "no .debs in $debs (the debs job)"
		return 1
	fi
}

steps() {
	debs_built || exit 0

	# --- the further kernel of the kernel upgrade --------------------------------
	# The cloud flavour of the first kernel given whose cloud flavour is not
	# given too (its headers are not in the chroot once in-chroot.sh has
	# purged those of the kernels not given).
	further=
	for r in "${rels[@]}"; do
		b=${r%-amd64}; b=${b%-rt}; b=${b%-cloud}
		case " ${rels[*]} " in *" $b-cloud-amd64 "*) continue ;; esac
		further=linux-headers-$b-cloud-amd64
		break
	done
	[ -n "$further" ] || { hres fail further_kernel "every kernel of $release has its cloud flavour tested"; exit 0; }

	# --- the steps in the chroot: in an overlay, thrown away afterwards --------------
	ue_chroot_pkgs "$release" autopkgtest autodep8 2>"$work.tools.log" ||
		{ hres fail tools "$(tail -1 "$work.tools.log")"; exit 0; }
	rm -rf "$work" && mkdir -p "$work/debs" "$work/src"
	cp "$debs"/*.deb "$work/debs/"
	cp -a "$debs/src/." "$work/src/"
	cp "$here/in-chroot.sh" "$work/"
	# (the program user-events-dev's build step compiles, in the chroot)
	cp "$root/samples/example.c" "$work/"
	arch=$UE_CACHE/chroots/$release.archives
	mkdir -p "$arch/partial"
	log "in an overlay over the $release chroot: install, kernel upgrade ($further), purge, upgrade from $prev, autopkgtest, user-events-dev"
	t0=$(date +%s)
	# DKMS compiles through the chroot's ccache, by the switch Debian's
	# kernel headers have for it (with DEBIAN_KERNEL_USE_CCACHE set, CC in
	# their .kernelvariables is "ccache <triplet>-gcc-N"), in the cache of
	# the rig's own builds for this release (stage-build.sh): the release's
	# compiler all the same, and dkms, make and kbuild run as on a user's
	# machine, but a run whose tree did not change reuses its objects
	# (the ~20 builds of the steps were ~200 CPU s a release, niced).
	mkdir -p "$UE_CACHE/ccache/$release"
	ue_chroot_run "$release" --overlay "$work/overlay" --bind "$work" \
		--bind "$arch:/var/cache/apt/archives" \
		env DEBIAN_KERNEL_USE_CCACHE=1 CCACHE_DIR="$UE_CACHE/ccache/$release" \
		bash "$work/in-chroot.sh" "$work" "$version" "$prev" "$further" "${rels[@]}" \
		>"$work/results" 2>"$work/in-chroot.log"
	rc=$?
	log "chroot steps done in $(( $(date +%s) - t0 ))s (status $rc; logs: $work/)"
	rm -rf "$work/overlay"
	[ $rc = 0 ] || hres fail chroot_steps "in-chroot.sh status $rc, see $work/in-chroot.log"
	while read -r what a b c d; do
		case $what in
		P) result host "$a" "$release.$b" "$c${d:+ $d}" ;;
		K)	# (the further kernel is no row: its checks are the release's)
			if [ -n "${row[$a]:-}" ]; then result "${row[$a]}" "$b" "$c" "${d:-}"
			else result host "$b" "$release.$c" "($a)${d:+ $d}"; fi ;;
		esac
	done <"$work/results"
}

# --- arm64: the .deb in an arm64 root of the release, DKMS there ------------------
# The Architecture: all package installed as on an arm64 machine of the
# release: in an overlay over an arm64 root (rig/fetch/arm64-root.sh, run
# through qemu-user), with the kernel's headers package, dkms and the .deb
# by apt-get; DKMS builds the module there with the release's own arm64 gcc.
# The .ko then boots with its kernel (boot, below). One kernel per call
# (the rows of an arm64 release share the root).
arm64_steps() {
	local r k deb out ko t0 rc
	debs_built || exit 0
	deb=$debs/user-events-dkms_${version}_all.deb
	mkdir -p "$work/ko"
	# (no user-events-dev build in the arm64 root: the VMs run the example
	# cross-built on this machine)
	cp "$example" "$work/example"
	for r in "${rels[@]}"; do
		k=${row[$r]}
		out=$work/dkms-$k
		log "$k: $(basename "$deb") with DKMS in an arm64 root of $release (qemu-user)"
		t0=$(date +%s)
		"$rig/fetch/arm64-root.sh" dkms "$release" "$deb" "$out" "linux-headers-$r" \
			>"$out.out" 2>"$out.log"
		rc=$?
		log "$k: done in $(( $(date +%s) - t0 ))s (status $rc; logs: $out.log, $out/)"
		if [ $rc != 0 ] || ! ls "$out"/user_events.ko* >/dev/null 2>&1; then
			result "$k" fail arm64_dkms_built "$(grep -v '^==' "$out.log" | tail -2 | tr '\n' ' ')$(tail -1 "$out.log")"
			continue
		fi
		result "$k" pass arm64_dkms_built
		if grep -q "^S .*user-events/$version, $r, aarch64: installed" "$out.out"; then
			result "$k" pass arm64_dkms_status
		else
			result "$k" fail arm64_dkms_status "$(grep '^S ' "$out.out")"
		fi
		if grep -qE "^V $(printf '%s' "$r" | sed 's/[.+]/\\&/g') SMP .*aarch64" "$out.out"; then
			result "$k" pass arm64_vermagic
		else
			result "$k" fail arm64_vermagic "$(grep '^V ' "$out.out")"
		fi
		ko=$(ls "$out"/user_events.ko* | head -1)
		cp "$ko" "$work/ko/$r.${ko##*/user_events.}"
	done
}

# --- each kernel booted with the module DKMS built for it -------------------------
boot() {
	for r in "${rels[@]}"; do
		k=${row[$r]}
		ko=$(ls "$work/ko/$r".* 2>/dev/null | head -1)
		[ -n "$ko" ] || { result "$k" fail vm_module "DKMS built no module for $r"; continue; }
		[ -x "$work/example" ] ||
			{ result "$k" fail vm_example "no $work/example (user-events-dev's build in the chroot: see $work/dev-cc.log)"; continue; }
		ir=$work/$k/initramfs
		mkdir -p "$work/$k"
		# (an arm64 kernel's busybox, with the example built for arm64)
		ue_initramfs_skeleton "$ir" "$here/smoke-init" "$(ue_kroot_busybox "$UE_CACHE/kernels/$k")"
		mkdir -p "$ir/tests"
		cp "$root/tests/userspace/lib.sh" "$ir/tests/"
		cp "$here/smoke.sh" "$ir/tests/10-install.sh"
		cp "$rig/guest/guest-suites.sh" "$ir/guest-suites.sh"
		cp "$work/example" "$ir/example"
		cp "$(dirname "$example")/ue_keyhold" "$ir/ue_keyhold"
		cp "$root/VERSION" "$ir/modules/VERSION"
		# busybox insmod takes the plain ELF file (Debian compresses modules
		# from 6.x kernels configured so; DKMS then does the same).
		ue_ko_cat "$ko" >"$ir/modules/user_events.ko"
		ue_initramfs_pack "$ir" "$work/$k/initrd.cpio"
		log "$k: booting $r with the module DKMS built"
		console=$work/$k/console.log
		ue_boot_checked "$UE_CACHE/kernels/$k" "$work/$k/initrd.cpio" "$console" "$vm_timeout" >>"$notes"
		rc=$?
		if grep -q '^UE-DONE' "$console.txt"; then
			result "$k" pass vm_finished
		else
			result "$k" fail vm_finished "qemu status $rc, see $console.txt"
		fi
		"$rig/report/console-results.sh" "$k" "$console.txt" install
		splats=$(ue_splats "$console.txt")
		if [ -n "$splats" ]; then
			result "$k" fail vm_no_kernel_splat "$(ue_splat_summary "$console.txt" | tr '\n' '|')"
		else
			result "$k" pass vm_no_kernel_splat
		fi
	done
}

case $phase in
debs) debs ;;
steps) steps ;;
arm64) arm64_steps ;;
boot) boot ;;
*) hres fail usage "phase '$phase', want debs, steps, arm64 or boot" ;;
esac
exit 0
