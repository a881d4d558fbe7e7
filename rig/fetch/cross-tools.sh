#!/bin/bash
# Another architecture's perf and trace-cmd for make check's VMs (the arm64
# rows' suite tools, tests/userspace/40-tools.sh), without running any of its
# programs to get them (under qemu-user that is slow): Debian's linux-perf and
# trace-cmd of RELEASE for ARCH, unpacked on this machine with their
# dependencies, then staged into OUT as check.sh's stage_elf does for amd64.
#
# 1. Resolve: apt-get, in the release's apt state for ARCH (apt-lib.sh,
#    $UE_CACHE/apt-<release>-<arch>, APT::Architecture=ARCH), simulates
#    "install --no-install-recommends linux-perf trace-cmd" against an empty
#    dpkg status: the packages and versions of the whole closure.
# 2. Unpack (once per closure, cached): those exact versions, apt-get
#    download'ed and dpkg-deb -x'ed into
#      $UE_CACHE/cross-tools/<release>-<arch>/<key>/root
#    (<key>: a hash of the "package=version" list, kept in packages beside
#    it; a new closure replaces the old). A package's /bin, /sbin or /lib
#    goes under /usr and the merged-/usr links (lib -> usr/lib) are made, as
#    base-files has them on a Debian system; absolute links are made to point
#    inside the root (relocate_links).
# 3. Stage into OUT: the real perf (Debian's /usr/bin/perf may be a script
#    that execs perf_<version>; then the newest perf_<version> is the guest's
#    /usr/bin/perf) and trace-cmd, and every shared library they need,
#    followed through the NEEDED entries of each ELF (readelf -d of ARCH's
#    binutils) and looked up where the release's dynamic loader looks without
#    a cache (its RPATH/RUNPATH, the release's ld.so.conf.d directories,
#    then /lib and /usr/lib), copied to the first such path; the loader at the
#    path of the program's PT_INTERP. Plain files and directories only: the
#    initramfs has its own /bin (vm-lib.sh).
# 4. Check: every staged ELF's NEEDED resolves inside OUT, and both tools run
#    from OUT alone under qemu-user (qemu-<cpu>-static -L OUT: a few seconds;
#    trace-cmd exits 255 after its version text, so the text is checked).
#
# Usage: cross-tools.sh RELEASE ARCH OUT   (ARCH: arm64)
# Host programs: apt-get, dpkg-deb, sha256sum, <triplet>-readelf and
# qemu-<cpu>-static (tests/deps.sh, make check). Times of each step go to
# stderr as "== cross-tools: <step>: <n>s".
. "$(dirname "$0")/../lib/prelude.sh"

. "$here/../lib/vm-lib.sh"
. "$here/../lib/apt-lib.sh"

ue_log_prefix='== cross-tools: '

[ $# = 3 ] || die "usage: $0 RELEASE ARCH OUT"
rel=$1 arch=$2 out=$3
ar=$rel/$arch
prefix=$(ue_cross_prefix "$arch")
[ -n "$prefix" ] || die "no cross tools for $arch (vm-lib.sh ue_cross_prefix)"
readelf=${prefix}readelf
qemu_user=qemu-${prefix%%-*}-static
pkgs_wanted=(linux-perf trace-cmd)

# timed WHAT COMMAND...: COMMAND, and how long it took logged.
timed() {
	local what=$1 t0 rc
	shift
	t0=$(date +%s)
	"$@"
	rc=$?
	log "$what: $(( $(date +%s) - t0 ))s$([ $rc = 0 ] || echo " (status $rc)")"
	return $rc
}

# resolve: "package=version" of the closure, sorted, in $closure.
resolve() {
	local st sim rc
	ue_apt_setup "$ar" || return 1
	st=$(mktemp -d) || return 1
	: >"$st/status"
	sim=$(ue_apt "$ar" -s -o Dir::State::status="$st/status" \
		install --no-install-recommends "${pkgs_wanted[@]}" 2>&1)
	rc=$?
	rm -rf "$st"
	[ $rc = 0 ] || { log "apt-get cannot resolve ${pkgs_wanted[*]} for $ar: $(grep '^E:' <<<"$sim" | head -2 | tr '\n' ' ')"; return 1; }
	closure=$(awk '$1 == "Inst" { v = $3; sub(/^\(/, "", v); print $2 "=" v }' <<<"$sim" | LC_ALL=C sort)
	[ -n "$closure" ] || { log "apt-get resolved nothing for ${pkgs_wanted[*]} ($ar)"; return 1; }
}

# unpack DIR: the closure downloaded and unpacked into DIR/root (merged /usr).
unpack() {
	local dir=$1 r=$1/root f d
	rm -rf "$dir"
	mkdir -p "$dir/dl" "$r" || return 1
	# shellcheck disable=SC2086
	(cd "$dir/dl" && ue_apt "$ar" download $closure >&2) ||
		{ log "download of the closure of ${pkgs_wanted[*]} ($ar) failed"; return 1; }
	for f in "$dir"/dl/*.deb; do
		dpkg-deb -x "$f" "$r" || { log "dpkg-deb -x $f failed"; return 1; }
	done
	rm -rf "$dir/dl"
	# Merged /usr: what a package put in /bin, /sbin, /lib or /lib64 (a
	# release before the /usr move) goes under /usr, and the top-level
	# names become base-files' links.
	for d in bin sbin lib lib64; do
		if [ -d "$r/$d" ] && [ ! -L "$r/$d" ]; then
			mkdir -p "$r/usr/$d" && cp -a "$r/$d/." "$r/usr/$d/" && rm -rf "${r:?}/$d" || return 1
		fi
		[ -e "$r/usr/$d" ] && [ ! -e "$r/$d" ] && ln -s "usr/$d" "$r/$d"
	done
	relocate_links "$r"
	echo "$closure" >"$dir/packages"
	touch "$dir/.complete"
}

# The dynamic loader's search without a cache, for the ELFs of root $src:
# the release's ld.so.conf.d directories (Debian's multiarch ones, which
# its loader also has built in), then /lib and /usr/lib.
search_dirs() {
	cat "$src"/etc/ld.so.conf.d/*.conf 2>/dev/null | sed -n 's/^[[:space:]]*\(\/[^[:space:]#]*\).*/\1/p'
	printf '%s\n' /lib /usr/lib
}

is_elf() { [ "$(head -c 4 "$1" 2>/dev/null | tail -c 3)" = ELF ]; }

# needed ELF: its NEEDED sonames.
needed() { "$readelf" -dW "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p'; }

# rpath ELF GUEST-DIR: its RPATH and RUNPATH directories, $ORIGIN expanded.
rpath() {
	"$readelf" -dW "$1" | sed -n 's/.*(R\(UN\)\{0,1\}PATH).*\[\(.*\)\]$/\2/p' | tr ':' '\n' |
		sed -e "s|\\\$ORIGIN|$2|g" -e "s|\\\${ORIGIN}|$2|g"
}

# find_lib ROOT SONAME DIR...: the guest path of SONAME, the first DIR of
# ROOT that has it.
find_lib() {
	local r=$1 so=$2 d
	shift 2
	for d in "$@"; do
		[ -e "$r$d/$so" ] && { echo "$d/$so"; return 0; }
	done
	return 1
}

# copy_in GUEST-PATH: the file at GUEST-PATH of $src (links followed,
# inside $src) to the same path in $out, with its mode (the loader must stay
# executable).
copy_in() {
	local g=$1 real
	[ -e "$out$g" ] && return 0
	real=$(readlink -f "$src$g") || return 1
	case $real in "$src"/*) ;; *) log "$g leads out of the root: $real"; return 1 ;; esac
	install -D -m "$(stat -c %a "$real")" "$real" "$out$g"
}

# stage_elf ROOT-PATH GUEST-PATH: the program and its libraries, NEEDED
# entries followed breadth-first.
stage_elf() {
	local f=$1 dest=$2 interp so g l queue=() dirs
	install -D -m 755 "$src$f" "$out$dest" || return 1
	interp=$("$readelf" -lW "$src$f" | sed -n 's/.*Requesting program interpreter: \(.*\)\]$/\1/p')
	if [ -n "$interp" ]; then
		copy_in "$interp" || { log "$f: no loader $interp in the root"; return 1; }
		# (its own soname needs no file: the loader is already there)
		staged[$(needed_soname "$out$interp")]=$interp
	fi
	queue=("$dest")
	while [ ${#queue[@]} -gt 0 ]; do
		g=${queue[0]}
		queue=("${queue[@]:1}")
		mapfile -t dirs < <(rpath "$out$g" "$(dirname "$g")"; search_dirs)
		for so in $(needed "$out$g"); do
			[ -n "${staged[$so]:-}" ] && continue
			l=$(find_lib "$src" "$so" "${dirs[@]}") ||
				{ log "$g: $so not found in the root (${dirs[*]})"; return 1; }
			copy_in "$l" || return 1
			staged[$so]=$l
			queue+=("$l")
		done
	done
}
needed_soname() { "$readelf" -dW "$1" | sed -n 's/.*(SONAME).*\[\(.*\)\]$/\1/p'; }

# stage: perf and trace-cmd of the root $src into $out.
stage() {
	local perf=/usr/bin/perf
	declare -A staged=()
	rm -rf "$out" && mkdir -p "$out" || return 1
	if ! is_elf "$src$perf"; then
		perf=$(cd "$src" && ls -v usr/bin/perf_[0-9]* 2>/dev/null | tail -1)
		[ -n "$perf" ] || { log "/usr/bin/perf is a wrapper and no /usr/bin/perf_<version> exists"; return 1; }
		perf=/$perf
		is_elf "$src$perf" || { log "$perf is no ELF"; return 1; }
	fi
	stage_elf "$perf" /usr/bin/perf && stage_elf /usr/bin/trace-cmd /usr/bin/trace-cmd
}

# check: every ELF in $out has its NEEDED inside $out (or is the loader's).
check() {
	local f so dirs g bad=0 interp
	interp=$("$readelf" -lW "$out/usr/bin/perf" | sed -n 's/.*Requesting program interpreter: \(.*\)\]$/\1/p')
	while IFS= read -r -d '' f; do
		is_elf "$f" || continue
		g=${f#"$out"}
		mapfile -t dirs < <(rpath "$f" "$(dirname "$g")"; search_dirs)
		for so in $(needed "$f"); do
			[ -n "$interp" ] && [ "$so" = "$(basename "$interp")" ] && continue
			find_lib "$out" "$so" "${dirs[@]}" >/dev/null ||
				{ log "$g: $so is not in $out"; bad=1; }
		done
	done < <(find "$out" -type f -print0)
	[ $bad = 0 ] || return 1
	local pv tv
	pv=$("$qemu_user" -L "$out" "$out/usr/bin/perf" --version 2>&1)
	grep -q '^perf version' <<<"$pv" || { log "the staged perf does not run: $pv"; return 1; }
	tv=$("$qemu_user" -L "$out" "$out/usr/bin/trace-cmd" version 2>&1)
	grep -q '^trace-cmd version' <<<"$tv" ||
		{ log "the staged trace-cmd does not run: $tv"; return 1; }
	log "staged into $out: $pv, $(grep -m1 '^trace-cmd version' <<<"$tv"); $(find "$out" -type f | wc -l) files, $(du -sm "$out" | cut -f1) MB"
}

t0=$(date +%s)
timed "resolving ${pkgs_wanted[*]} for $ar" resolve || exit 1
key=$(sha256sum <<<"$closure" | cut -c1-16)
base=$UE_CACHE/cross-tools/$rel-$arch
dir=$base/$key
if [ ! -f "$dir/.complete" ]; then
	log "unpacking $(wc -l <<<"$closure") packages of $ar into $dir (once; cached)"
	timed "download and unpack" unpack "$dir" || exit 1
	# (the closures before it: the cache would only grow)
	for d in "$base"/*/; do
		[ "${d%/}" = "$dir" ] || rm -rf "$d"
	done
fi
src=$dir/root
mkdir -p "$(dirname "$out")" || exit 1
out=$(cd "$(dirname "$out")" && pwd)/$(basename "$out")
timed "staging perf and trace-cmd" stage || exit 1
timed "checking the staged tools" check || exit 1
log "perf and trace-cmd of $ar ($(grep -E '^(linux-perf|trace-cmd)=' "$dir/packages" | tr '\n' ' ')): $(( $(date +%s) - t0 ))s"
