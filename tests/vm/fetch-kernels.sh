#!/bin/bash
# Fetch and cache the target kernels named in tests/vm/kernels.list.
#
# For each kernel: the boot image (vmlinuz, config, System.map), the modules
# the suites load (fuse.ko for fuse_test, uncompressed, in mods/, unless
# built in) and the headers tree (linux-headers-*-amd64 plus the -common and
# linux-kbuild packages it depends on) are unpacked under
#   $UE_CACHE/kernels/<short-name>/
# and a file "kdir" there names the directory to pass as KDIR=.
#
# All downloads go through a private apt state directory under the cache.
# Its sources are the machine's own apt sources plus, for kernels from
# another suite (bullseye), that suite on the same Debian mirror URI the
# machine already uses. No mirror host is named here.
#
# Usage: fetch-kernels.sh [short-name...]   (default: every kernel)
# Exit status is non-zero if any requested kernel could not be fetched.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
UE_CACHE=${UE_CACHE:-$HOME/.cache/user-events-dkms}
list=$here/kernels.list

log() { printf 'fetch-kernels: %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }

. "$here/apt-lib.sh"

# linux-headers-*/linux-kbuild-* packages a headers package needs (itself included).
header_closure() {
	local todo=("$1") seen=() p d
	while [ ${#todo[@]} -gt 0 ]; do
		p=${todo[0]}; todo=("${todo[@]:1}")
		case " ${seen[*]-} " in *" $p "*) continue ;; esac
		seen+=("$p")
		for d in $(private_apt_cache depends --no-recommends --no-suggests \
				--no-conflicts --no-breaks --no-replaces --no-enhances "$p" 2>/dev/null |
			   awk '$1 == "Depends:" { print $2 }' |
			   grep -E '^linux-(headers|kbuild)-' || true); do
			todo+=("$d")
		done
	done
	printf '%s\n' "${seen[@]}"
}

# Turn absolute symlinks inside an unpacked root into links within it.
relocate_links() {
	local root=$1 l t
	while IFS= read -r -d '' l; do
		t=$(readlink "$l")
		case $t in /*) ln -sfn "$root$t" "$l" ;; esac
	done < <(find "$root" -type l -print0)
}

# extract_modules DEB OUTDIR NAME:CONFIG...: each NAME.ko of the image
# package, uncompressed, flat in OUTDIR (Debian compresses modules on some
# releases); nothing where the image's config has CONFIG=y (built in).
extract_modules() {
	local deb=$1 out=$2 spec name sym f config; shift 2
	mkdir -p "$out"
	config=$(dpkg-deb --fsys-tarfile "$deb" | tar -xO --wildcards './boot/config-*')
	for spec in "$@"; do
		name=${spec%%:*} sym=${spec#*:}
		grep -qx "CONFIG_$sym=y" <<<"$config" && continue
		f=$(dpkg-deb -c "$deb" | awk '{ print $NF }' |
			grep -E "/$name\.ko(\.xz|\.zst|\.gz)?$" | head -1)
		[ -n "$f" ] || return 1
		dpkg-deb --fsys-tarfile "$deb" | tar -xO "$f" >"$out/$name.ko.in" ||
			return 1
		case $f in
		*.xz) xz -dc "$out/$name.ko.in" >"$out/$name.ko" ;;
		*.zst) zstd -qdc "$out/$name.ko.in" >"$out/$name.ko" ;;
		*.gz) gzip -dc "$out/$name.ko.in" >"$out/$name.ko" ;;
		*) mv "$out/$name.ko.in" "$out/$name.ko" ;;
		esac || return 1
		rm -f "$out/$name.ko.in"
	done
}

fetch_one() {
	local short=$1 suite=$2 img=$3 hdr=$4
	local dir=$UE_CACHE/kernels/$short want stamp dl pkgs rel
	# The last word changes when what is taken from the packages does.
	want="$img $hdr mods:fuse"
	stamp=$dir/.complete
	if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
		return 0
	fi
	setup_private_apt
	log "fetching $short ($suite): $img, $hdr"
	rm -rf "$dir"
	dl=$(mktemp -d "$UE_CACHE/dl.XXXXXX")
	mapfile -t pkgs < <(header_closure "$hdr")
	[ ${#pkgs[@]} -ge 2 ] || { rm -rf "$dl"; log "cannot resolve $hdr in $suite"; return 1; }
	if ! (cd "$dl" && private_apt download "$img" "${pkgs[@]}" >&2); then
		rm -rf "$dl"; log "download failed for $short"; return 1
	fi
	mkdir -p "$dir/root" "$dir/boot"
	for deb in "$dl"/linux-headers-*.deb "$dl"/linux-kbuild-*.deb; do
		dpkg-deb -x "$deb" "$dir/root"
	done
	dpkg-deb --fsys-tarfile "$dl"/linux-image-*.deb |
		tar -x -C "$dir" ./boot
	extract_modules "$dl"/linux-image-*.deb "$dir/mods" fuse:FUSE_FS ||
		{ rm -rf "$dl"; log "no fuse module in $img"; return 1; }
	rm -rf "$dl"
	relocate_links "$dir/root"
	rel=${hdr#linux-headers-}
	# The arch Makefile includes the -common tree by absolute path.
	sed -i "s|^include /usr/src/|include $dir/root/usr/src/|" \
		"$dir/root/usr/src/linux-headers-$rel/Makefile"
	[ -f "$dir/boot/vmlinuz-$rel" ] || { log "no vmlinuz-$rel in $img"; return 1; }
	[ -f "$dir/root/usr/src/linux-headers-$rel/Makefile" ] ||
		{ log "no headers tree for $rel"; return 1; }
	echo "$rel" >"$dir/release"
	echo "$dir/root/usr/src/linux-headers-$rel" >"$dir/kdir"
	echo "$want" >"$stamp"
	log "cached $short: $rel"
}

mkdir -p "$UE_CACHE"
rc=0
while read -r short suite img hdr; do
	case $short in ''|'#'*) continue ;; esac
	if [ $# -gt 0 ]; then
		case " $* " in *" $short "*) ;; *) continue ;; esac
	fi
	fetch_one "$short" "$suite" "$img" "$hdr" || { log "FAILED to fetch kernel $short"; rc=1; }
done <"$list"
exit $rc
