#!/bin/bash
# Fetch and cache the target kernels named in tests/vm/kernels.list.
#
# For each kernel: the boot image (vmlinuz, config, System.map) and the
# headers tree (linux-headers-*-amd64 plus the -common and linux-kbuild
# packages it depends on) are unpacked under
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
apt_root=$UE_CACHE/apt

log() { printf 'fetch-kernels: %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }

# The Debian mirror URI serving bookworm/main in the machine's apt config.
machine_mirror() {
	apt-cache policy 2>/dev/null |
		awk '$3 == "bookworm/main" && $4 == "amd64" { print $2; exit }'
}

private_apt() {
	apt-get -q \
		-o Dir::Etc::SourceList=/dev/null \
		-o Dir::Etc::SourceParts="$apt_root/sources.list.d" \
		-o Dir::State="$apt_root/state" \
		-o Dir::Cache="$apt_root/cache" \
		-o Debug::NoLocking=1 \
		-o APT::Sandbox::User=root \
		"$@"
}

private_apt_cache() {
	apt-cache \
		-o Dir::Etc::SourceList=/dev/null \
		-o Dir::Etc::SourceParts="$apt_root/sources.list.d" \
		-o Dir::State="$apt_root/state" \
		-o Dir::Cache="$apt_root/cache" \
		"$@"
}

apt_ready=
setup_private_apt() {
	[ -n "$apt_ready" ] && return 0
	local mirror suites f
	mirror=$(machine_mirror)
	if [ -z "$mirror" ]; then
		log "no bookworm/main source in apt-cache policy; running apt-get update"
		apt-get update -qq >&2 || true
		mirror=$(machine_mirror)
	fi
	[ -n "$mirror" ] || die "cannot find the Debian mirror URI in this machine's apt configuration"

	rm -rf "$apt_root/sources.list.d"
	mkdir -p "$apt_root/sources.list.d" "$apt_root/state/lists/partial" \
		"$apt_root/cache/archives/partial"
	# The machine's own sources, as they are.
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
		 /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		cp "$f" "$apt_root/sources.list.d/machine-$(basename "$f" | tr / _)"
	done
	[ -f /etc/apt/sources.list ] &&
		mv "$apt_root/sources.list.d/machine-sources.list" \
		   "$apt_root/sources.list.d/machine-main.list"
	# Extra suites the kernel list needs, on the same mirror.
	suites=$(awk '!/^#/ && NF >= 4 && $2 != "bookworm" { print $2 }' "$list" | sort -u)
	for s in $suites; do
		cat >"$apt_root/sources.list.d/extra-$s.sources" <<EOF
Types: deb
URIs: $mirror
Suites: $s
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
	done
	log "updating private apt lists (mirror from machine config, extra suites: ${suites:-none})"
	private_apt update >&2 || die "apt-get update of the private apt state failed"
	apt_ready=1
}

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

fetch_one() {
	local short=$1 suite=$2 img=$3 hdr=$4
	local dir=$UE_CACHE/kernels/$short want stamp dl pkgs rel
	want="$img $hdr"
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
