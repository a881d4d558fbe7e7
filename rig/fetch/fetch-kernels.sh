#!/bin/bash
# Fetch and cache the Debian kernels of rig/kernels.list, as
# resolve.sh resolves them (or as UE_KERNELS_LOCK names them).
#
# For each kernel: the boot image (vmlinuz, config, System.map), the modules
# the suites load (fuse.ko for fuse_test, uncompressed, in mods/, unless
# built in), those of scripts/user-events-run's VM (9p and virtio, with
# what they depend on, in mods/vm/ with their load order; vm-lib.sh) and
# the headers tree (linux-headers-*-amd64 plus the -common and
# linux-kbuild packages it depends on) are unpacked under
#   $UE_CACHE/kernels/<release>_<version>/    (kernels/<name> links to it)
# and a file "kdir" there names the directory to pass as KDIR=.
#
# All downloads go through the private apt state of the row's Debian
# release (apt-lib.sh), on the mirror URIs of the machine's own apt
# configuration. No mirror host is named here.
#
# Usage: fetch-kernels.sh [name...]   (default: every row)
# Exit status is non-zero if any requested kernel could not be fetched.
. "$(dirname "$0")/../lib/prelude.sh"
set -e

ue_log_prefix='fetch-kernels: '

. "$here/../lib/apt-lib.sh"
. "$here/../lib/vm-lib.sh"

# header_closure RELEASE HEADERS VERSION: "package=version" of the headers
# package and the linux-headers-*/linux-kbuild-* packages it depends on. A
# dependency with "=" is taken at that version; one with ">=" (bullseye's
# linux-kbuild-5.10) at the newest the release has, as apt-get would.
header_closure() {
	local r=$1 todo=("$2=$3") seen=() p d ver
	while [ ${#todo[@]} -gt 0 ]; do
		p=${todo[0]}; todo=("${todo[@]:1}")
		case " ${seen[*]-} " in *" $p "*) continue ;; esac
		seen+=("$p")
		while read -r d ver; do
			[ -n "$ver" ] ||
				ver=$(ue_apt_cache "$r" policy "$d" | awk '$1 == "Candidate:" { print $2 }')
			todo+=("$d=$ver")
		done < <(ue_apt_cache "$r" show "$p" 2>/dev/null | awk '/^Depends:/ { sub(/^Depends: */, "");
				n = split($0, a, /, */); for (i = 1; i <= n; i++) {
				split(a[i], w, / *[(]/); v = ""
				if (a[i] ~ /[(]= /) { v = a[i]; sub(/.*[(]= /, "", v); sub(/[)].*/, "", v) }
				if (w[1] ~ /^linux-(headers|kbuild)-/) print w[1], v }; exit }')
	done
	printf '%s\n' "${seen[@]}"
}

# image_closure RELEASE IMAGE VERSION: the image package and, where it is a
# metapackage (7.x: linux-image-X depends on linux-binary-X, the vmlinuz,
# linux-modules-X and linux-base-X, config and System.map), those.
image_closure() {
	echo "$2=$3"
	ue_apt_cache "$1" show "$2=$3" 2>/dev/null | awk '/^Depends:/ {
		n = split(substr($0, 10), a, /, */)
		for (i = 1; i <= n; i++) if (a[i] ~ /^ *linux-(binary|modules|base)-/ && a[i] ~ /[(]= /) {
			split(a[i], w, / *[(]= /); sub(/^ */, "", w[1]); sub(/[)].*/, "", w[2]); print w[1] "=" w[2] }
		exit }'
}

# extract_mods ST DEB...: the module files of the image packages DEB... that
# the suites and user-events-run's VM load, with their paths, into ST.
extract_mods() {
	local st=$1 f; shift
	for f in "$@"; do
		dpkg-deb --fsys-tarfile "$f" | tar -x -C "$st" --wildcards --no-anchored \
			'*/fs/fuse/fuse.ko*' "${ue_vm_mod_globs[@]}" 2>/dev/null || true
	done
}

# vm_mods DIR REL ST: DIR/mods/vm from the modules in ST (ue_vm_modules);
# where they are missing, said, and the kernel still serves make check.
vm_mods() {
	# (user-events-run boots amd64 kernels only)
	[ "$(cat "$1/arch" 2>/dev/null || echo amd64)" = amd64 ] || return 0
	ue_vm_modules "$3" "$1/boot/config-$2" "$1/mods/vm" ||
		{ rm -rf "$1/mods/vm"; log "no 9p/virtio modules for $2: user-events-run cannot boot it"; }
}

# unpack_image DIR REL DEB...: boot/{vmlinuz,config,System.map}-REL from the
# image packages (in /boot, or in /usr/lib/modules/REL/ from 7.x on), and in
# DIR/mods each module the suites load, uncompressed (fuse.ko), unless the
# config has it built in, and the VM modules of user-events-run (vm_mods).
unpack_image() {
	local dir=$1 rel=$2 st=$1/.img f name sym m; shift 2
	mkdir -p "$st" "$dir/boot" "$dir/mods"
	for f in "$@"; do
		dpkg-deb --fsys-tarfile "$f" | tar -x -C "$st" --wildcards \
			--exclude='*.ko' --exclude='*.ko.*' || return 1
	done
	extract_mods "$st" "$@"
	for f in vmlinuz config System.map; do
		for m in "$st/boot/$f-$rel" "$st/usr/lib/modules/$rel/$f" "$st/lib/modules/$rel/$f"; do
			[ -f "$m" ] && { cp "$m" "$dir/boot/$f-$rel"; break; }
		done
		[ -f "$dir/boot/$f-$rel" ] || { log "no $f for $rel in the image packages"; return 1; }
	done
	for spec in fuse:FUSE_FS; do
		name=${spec%%:*} sym=${spec#*:}
		grep -qx "CONFIG_$sym=y" "$dir/boot/config-$rel" && continue
		m=$(find "$st" -name "$name.ko*" | head -1)
		[ -n "$m" ] || { log "no $name.ko for $rel"; return 1; }
		ue_ko_cat "$m" >"$dir/mods/$name.ko" || return 1
	done
	vm_mods "$dir" "$rel" "$st"
	rm -rf "$st"
}

# cross_busybox DIR DEB: DIR/busybox, the static busybox of the package DEB
# (busybox-static of the kernel's architecture), for the guest's initramfs.
cross_busybox() {
	local st=$1/.bb
	rm -rf "$st"; mkdir -p "$st"
	dpkg-deb -x "$2" "$st" || return 1
	for f in "$st/usr/bin/busybox" "$st/bin/busybox"; do
		[ -f "$f" ] && { cp "$f" "$1/busybox"; rm -rf "$st"; return 0; }
	done
	log "no busybox in $(basename "$2")"
	return 1
}

# cross_headers DIR REL: the headers tree of a kernel of another architecture,
# for a module build in its release's chroot on this machine (chroot-lib.sh,
# ue_chroot_cross). Debian's headers call the kernel's compiler with its
# target's prefix (.kernelvariables: CROSS_COMPILE=aarch64-linux-gnu-,
# CC=$(CROSS_COMPILE)gcc-14), which Debian's cross compiler package of the
# release provides on amd64 (gcc-14-aarch64-linux-gnu), named in DIR/cross;
# their scripts and tools link to /usr/lib/linux-kbuild-<abi>/, the host
# programs of kbuild, which the release's amd64 linux-kbuild package of the
# same version installs there (DIR/kbuild names it): the links are made to
# point there, in the chroot, not into the cache.
cross_headers() {
	local dir=$1 rel=$2 l t cc pfx
	while IFS= read -r -d '' l; do
		t=$(readlink "$l")
		case $t in */lib/linux-kbuild-*) ln -sfn "/usr/lib/linux-kbuild-${t##*/lib/linux-kbuild-}" "$l" ;; esac
	done < <(find "$dir/root/usr/src" -maxdepth 2 -type l -print0)
	cc=$(sed -n 's/^CONFIG_CC_VERSION_TEXT="\{0,1\}\([^ ]*\).*/\1/p' \
		"$dir/root/usr/src/linux-headers-$rel/include/config/auto.conf")
	# aarch64-linux-gnu-gcc-14 -> gcc-14-aarch64-linux-gnu. bookworm's 6.1
	# names the bare gcc-12 and sets CROSS_COMPILE only when dpkg's
	# DEB_BUILD_ARCH and DEB_HOST_ARCH differ: the build passes it
	# (DIR/cross-make, one make variable, check.sh's build_module).
	rm -f "$dir/cross-make"
	case $cc in
	*-linux-gnu-gcc-*) echo "gcc-${cc##*-gcc-}-${cc%-gcc-*}" >"$dir/cross" ;;
	gcc-[0-9]*)
		pfx=$(ue_cross_prefix "$(cat "$dir/arch")")
		[ -n "$pfx" ] || { log "$rel: no cross compiler known for $(cat "$dir/arch")"; return 1; }
		echo "$cc-${pfx%-}" >"$dir/cross"
		echo "CROSS_COMPILE=$pfx" >"$dir/cross-make" ;;
	*) log "$rel: its compiler $cc is no Debian cross compiler"; return 1 ;;
	esac
	[ -s "$dir/kbuild" ] || { log "$rel: its headers name no linux-kbuild package"; return 1; }
}

# add_vm_mods NAME RELEASE IMAGE VERSION DIR REL: mods/vm for a kernel cached
# before it was taken from the packages: the image packages alone are
# fetched again (the headers and the rest stay as they are).
add_vm_mods() {
	local n=$1 r=$2 dir=$5 rel=$6 dl ipkgs
	ue_apt_setup "$r" || return 1
	log "fetching $n ($r): the 9p/virtio modules of $3 $4"
	dl=$(ue_cache_scratch dl)
	mapfile -t ipkgs < <(image_closure "$r" "$3" "$4")
	if (cd "$dl" && ue_apt "$r" download "${ipkgs[@]}" >&2); then
		mkdir -p "$dl/st"
		extract_mods "$dl/st" "$dl"/*.deb
		vm_mods "$dir" "$rel" "$dl/st"
	else
		log "download failed for $n's image packages: no 9p/virtio modules for user-events-run"
	fi
	rm -rf "$dl"
}

# add_sysmap NAME RELEASE VERSION DIR REL: for a kernel without
# CONFIG_KALLSYMS_ALL, whose module takes the addresses of kernel data from
# its System.map (scripts/sysmap.sh), that file: Debian's image packages
# ship a placeholder as /boot/System.map-REL, and the real one is in
# linux-image-REL-dbg as /usr/lib/debug/boot/System.map-REL, cached as
# DIR/dbg/System.map-REL (the package is large: only that file is kept).
add_sysmap() {
	local n=$1 r=$2 ver=$3 dir=$4 rel=$5 dl f
	f=usr/lib/debug/boot/System.map-$rel
	ue_apt_setup "$r" || return 1
	log "fetching $n ($r): the System.map in linux-image-$rel-dbg $ver (no CONFIG_KALLSYMS_ALL)"
	dl=$(ue_cache_scratch dl)
	if (cd "$dl" && ue_apt "$r" download "linux-image-$rel-dbg=$ver" >&2) &&
	   mkdir -p "$dl/st" && {
		# (tar stops after the file: dpkg-deb's broken pipe is no error)
		{ dpkg-deb --fsys-tarfile "$dl"/*.deb 2>/dev/null || :; } |
			tar -x -C "$dl/st" --occurrence=1 "./$f"; } && [ -s "$dl/st/$f" ]; then
		mkdir -p "$dir/dbg"
		mv "$dl/st/$f" "$dir/dbg/"
	else
		log "could not take $f from linux-image-$rel-dbg $ver"
	fi
	rm -rf "$dl"
	[ -s "$dir/dbg/System.map-$rel" ]
}

# fetch_one NAME RELEASE IMAGE HEADERS VERSION: the kernel's directory,
# $UE_CACHE/kernels/<abi-flavour>_<version>, and the link kernels/NAME to it.
fetch_one() {
	local n=$1 r=$2 img=$3 hdr=$4 ver=$5
	local rel=${hdr#linux-headers-} dir want stamp dl pkgs ipkgs ar arch
	dir=$UE_CACHE/kernels/${rel}_$ver
	ar=$(ue_apt_release "$r" "$hdr")
	arch=$(ue_kernel_arch "$hdr")
	# The last word changes when what is taken from the packages does.
	want="$img=$ver $hdr=$ver mods:fuse"
	[ "$arch" = amd64 ] || want="$want cross:$arch"
	stamp=$dir/.complete
	if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
		ue_apt_setup "$ar" || return 1
		log "fetching $n ($ar): $img, $hdr $ver"
		rm -rf "$dir"
		dl=$(ue_cache_scratch dl)
		mapfile -t pkgs < <(header_closure "$ar" "$hdr" "$ver")
		[ ${#pkgs[@]} -ge 2 ] || { rm -rf "$dl"; log "cannot resolve $hdr=$ver in $ar"; return 1; }
		mapfile -t ipkgs < <(image_closure "$ar" "$img" "$ver")
		mkdir -p "$dir" "$dl/h" "$dl/i"
		echo "$arch" >"$dir/arch"
		if [ "$arch" != amd64 ]; then
			# Cross-built (cross_headers): the kbuild tools are this
			# machine's, installed in the chroot, and the guest's
			# busybox is the kernel's architecture's.
			printf '%s\n' "${pkgs[@]}" | grep '^linux-kbuild-' >"$dir/kbuild"
			mapfile -t pkgs < <(printf '%s\n' "${pkgs[@]}" | grep -v '^linux-kbuild-')
			ipkgs+=(busybox-static)
		fi
		if ! (cd "$dl/h" && ue_apt "$ar" download "${pkgs[@]}" >&2) ||
		   ! (cd "$dl/i" && ue_apt "$ar" download "${ipkgs[@]}" >&2); then
			rm -rf "$dl"; log "download failed for $n"; return 1
		fi
		mkdir -p "$dir/root"
		for deb in "$dl"/h/*.deb; do
			dpkg-deb -x "$deb" "$dir/root"
		done
		if [ "$arch" != amd64 ]; then
			cross_busybox "$dir" "$dl"/i/busybox-static_*.deb || { rm -rf "$dl"; return 1; }
			rm -f "$dl"/i/busybox-static_*.deb
		fi
		unpack_image "$dir" "$rel" "$dl"/i/*.deb || { rm -rf "$dl"; return 1; }
		rm -rf "$dl"
		relocate_links "$dir/root"
		# The arch Makefile includes the -common tree by absolute path
		# (and from 7.x on names itself as KBUILD_OUTPUT).
		# ('#': with '|' as the delimiter, '\|' is no alternation)
		sed -i "s#^\(include \|KBUILD_OUTPUT=\)/usr/src/#\1$dir/root/usr/src/#" \
			"$dir/root/usr/src/linux-headers-$rel/Makefile"
		[ -f "$dir/boot/vmlinuz-$rel" ] || { log "no vmlinuz-$rel in $img"; return 1; }
		[ -f "$dir/root/usr/src/linux-headers-$rel/Makefile" ] ||
			{ log "no headers tree for $rel"; return 1; }
		[ "$arch" = amd64 ] || cross_headers "$dir" "$rel" || return 1
		echo "$rel" >"$dir/release"
		echo "$dir/root/usr/src/linux-headers-$rel" >"$dir/kdir"
		echo "$want" >"$stamp"
		log "cached $n: $rel ($ver)"
	fi
	# (user-events-run boots amd64 kernels only)
	ue_vm_modules_current "$dir/mods/vm" || [ "$arch" != amd64 ] ||
		add_vm_mods "$n" "$r" "$img" "$ver" "$dir" "$rel"
	# (the module's build needs it, scripts/check-kernel.sh)
	grep -qx 'CONFIG_KALLSYMS_ALL=y' "$dir/boot/config-$rel" ||
		[ -s "$dir/dbg/System.map-$rel" ] ||
		add_sysmap "$n" "$ar" "$ver" "$dir" "$rel" || return 1
	# (a directory of that name is an older cache's layout)
	[ -L "$UE_CACHE/kernels/$n" ] || rm -rf "${UE_CACHE:?}/kernels/$n"
	ln -sfn "$(basename "$dir")" "$UE_CACHE/kernels/$n"
}

mkdir -p "$UE_CACHE/kernels"
lock=$(mktemp)
trap 'rm -f "$lock"' EXIT
rc=0
"$here/resolve.sh" "$@" >"$lock" || rc=1
{ grep '^#' "$lock" || true; } | sed 's/^# */fetch-kernels: /' >&2
while read -r n r _ img hdr ver _; do
	fetch_one "$n" "$r" "$img" "$hdr" "$ver" || { log "FAILED to fetch kernel $n"; rc=1; }
done < <(grep -v '^#' "$lock")
exit $rc
