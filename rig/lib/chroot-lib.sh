# One chroot per Debian release, to build the module as DKMS builds it there
# (sourced, bash; callers define log()). A kernel's headers are installed in
# its release's chroot with that release's apt, which brings the compiler
# the headers name (gcc-10 on bullseye, gcc-12 on bookworm, gcc-14 on
# trixie, unstable's on sid), and the module is built against
# /usr/src/linux-headers-<release>, with the release's make and kbuild.
#
#   $UE_CACHE/chroots/<release>/   debootstrap --variant=minbase, cached
#
# Its apt sources are those of the private apt state (apt-lib.sh), so the
# mirror URIs are the machine's own. Commands run in a private mount
# namespace (unshare -m): /proc, /dev, the cache and the checkout's build
# directory are bind-mounted at their own paths and vanish with it.

ue_chroot_dir() { echo "$UE_CACHE/chroots/$1"; }

# What every chroot has: the module build, and DKMS for the install test.
ue_chroot_base_pkgs=make,kmod,ca-certificates

# A chroot's kernels are never booted. DKMS builds against their headers,
# which on trixie (and for bookworm's 6.12) depend on the kernel's image,
# and reads nothing of the image but its modules.dep. So dpkg leaves out
# the image's own modules (the path-exclude below), and update-initramfs
# is diverted to true (ue_chroot_divert_hook). depmod, which DKMS runs at
# each install and remove for every kernel it built for, read all of them:
# for trixie's 6.12 (4230 modules) 5.6 CPU s each time, about ten times
# in the release's install steps, and 40 CPU s under qemu-user in the
# arm64 root (4351); and update-initramfs made each image's initramfs at
# its install, twice (by the image, then by the trigger): minutes under
# qemu-user.
ue_chroot_module_exclude='path-exclude=/*lib/modules/*/kernel/*'
# (a hook of mmdebstrap's, $1 the root, run before the packages that call
# update-initramfs; and ue_chroot_lean's)
# shellcheck disable=SC2016
ue_chroot_divert_hook='dpkg-divert --root "$1" --local --rename --add /usr/sbin/update-initramfs >/dev/null &&
	ln -sfn /bin/true "$1/usr/sbin/update-initramfs"'

# ue_chroot_lean DIR: the chroot DIR without its kernels' modules and
# initramfs, once: the path-exclude for what dpkg unpacks from now on,
# update-initramfs diverted, and what an unpack put there before removed
# (dpkg passes over a missing file when it removes or upgrades its
# package). A chroot made before the exclusion loses them here, at its
# first use since, instead of being made again.
ue_chroot_lean() {
	local c=$1 lk
	grep -qsxF "$ue_chroot_module_exclude" "$c"/etc/dpkg/dpkg.cfg.d/* && return 0
	ue_chroot_lock -x "$c" lk || return 1
	sh -c "$ue_chroot_divert_hook" _ "$c" &&
		rm -rf "$c"/lib/modules/*/kernel/* "$c"/usr/lib/modules/*/kernel/* "$c"/boot/initrd.img-* &&
		echo "$ue_chroot_module_exclude" >"$c/etc/dpkg/dpkg.cfg.d/ue-no-kernel-modules"
	local rc=$?
	exec {lk}>&-
	return $rc
}

# ue_chroot_run RELEASE [--exclusive] [--overlay DIR] [--bind DIR[:AT]]...
# CMD...: CMD in the chroot. --overlay: in an overlay over it, its changes
# in DIR/upper (thrown away with DIR); --bind DIR:AT mounts DIR at AT in the
# chroot.
# The chroot is shared by every tool that uses the cache (make check, and
# user-events-run beside it, which adds a kernel's headers): CMD holds the
# chroot's command lock (ue_chroot_lock) shared, or, with --exclusive,
# alone, which every command that changes the chroot itself (apt-get, dpkg)
# takes: two apt-gets at once would fail on dpkg's lock, and a purge of
# headers would pull them from under a build.
ue_chroot_run() {
	local c ovl='' binds=() mode=-s lk rc
	c=$(ue_chroot_dir "$1"); shift
	while :; do
		case ${1:-} in
		--exclusive) mode=-x; shift; continue ;;
		--overlay) ovl=$2 ;;
		--bind) binds+=("$2") ;;
		*) break ;;
		esac
		shift 2
	done
	ue_chroot_lock "$mode" "$c" lk || return 125
	# (the lock's descriptor closed for CMD: nothing CMD leaves running holds it)
	# shellcheck disable=SC2016
	unshare -m --propagation private bash -c '
		c=$1 ovl=$2; shift 2
		if [ -n "$ovl" ]; then
			mkdir -p "$ovl/upper" "$ovl/work" "$ovl/root" &&
			mount -t overlay overlay -o "lowerdir=$c,upperdir=$ovl/upper,workdir=$ovl/work" \
				"$ovl/root" || exit 125
			c=$ovl/root
		fi
		mount -t proc proc "$c/proc" && mount --bind /dev "$c/dev" || exit 125
		while [ "$1" != -- ]; do
			src=${1%%:*} at=${1#*:}
			mkdir -p "$c$at" && mount --bind "$src" "$c$at" || exit 125
			shift
		done
		shift
		# chroot looks its command up with our PATH (make check'"'"'s farm,
		# which the chroot does not have): env by its path, and env finds
		# the rest with the PATH it sets.
		exec chroot "$c" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
			LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"
	' ue-chroot "$c" "$ovl" "$UE_CACHE:$UE_CACHE" "${binds[@]}" -- "$@" {lk}>&-
	rc=$?
	exec {lk}>&-
	return $rc
}

# ue_chroot_lock -s|-x CHROOT-DIR VAR: the chroot's command lock,
# CHROOT-DIR.run.lock, taken shared or alone, on a descriptor whose number
# goes in VAR (for "exec {VAR}>&-"). Waits for as long as the other holder
# takes. (A file of its own: arm64-root.sh holds CHROOT-DIR.lock around its
# whole use of an arm64 root, and runs its commands through ue_chroot_run.)
ue_chroot_lock() {
	local -n _fd=$3
	mkdir -p "$(dirname "$2")" && exec {_fd}>>"$2.run.lock" || return 1
	flock "$1" "$_fd" || { exec {_fd}>&-; return 1; }
}

# ue_chroot_make RELEASE: create the chroot (once), its apt lists fresh.
ue_chroot_make() {
	local r=$1 c mirror stamp want kr lk
	c=$(ue_chroot_dir "$r")
	stamp=$c/.ue-complete
	want="$ue_chroot_base_pkgs"
	if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
		mirror=$(machine_mirror)
		[ -n "$mirror" ] || { log "no Debian mirror in this machine's apt configuration: set UE_MIRROR=URI"; return 1; }
		kr=$(ue_keyring) || return 1
		ue_chroot_lock -x "$c" lk || return 1
		# (made meanwhile by the holder we waited for)
		if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
			rm -rf "$c"
			log "debootstrap $r into $c (once; cached)"
			# (in a mount namespace of its own, as every command in a
			# chroot runs: the /proc and /sys its second stage mounts
			# in the chroot go with it, also when it is killed; left
			# mounted, they stayed under the cache until a reboot)
			unshare -m --propagation private debootstrap --variant=minbase \
				--keyring="$kr" --include="$want" "$r" "$c" "$mirror" \
				>"$c.debootstrap.log" 2>&1 ||
				{ log "debootstrap $r failed: $(tail -3 "$c.debootstrap.log" | tr '\n' ' ')"
				  exec {lk}>&-; return 1; }
			rm -f "$c"/etc/apt/sources.list
			echo "$want" >"$stamp"
		fi
		exec {lk}>&-
	fi
	ue_chroot_lean "$c" || { log "the $r chroot could not leave out its kernels' modules"; return 1; }
	ue_chroot_apt "$r" "$r"
}

# ue_chroot_apt NAME RELEASE: the chroot NAME's apt sources are RELEASE's
# suites on this machine's mirrors (apt-lib.sh), its lists fresh. Also for
# the arm64 roots (rig/fetch/arm64-root.sh), whose apt asks the same suites
# for arm64.
ue_chroot_apt() {
	local n=$1 r=$2 c stamp want t0 suites kr
	c=$(ue_chroot_dir "$n")
	suites=$(ue_release_suites "$r") || return 1
	kr=$(ue_keyring) || return 1
	while read -r uri s; do
		printf 'Types: deb\nURIs: %s\nSuites: %s\nComponents: main\nSigned-By: %s\n\n' \
			"$uri" "$s" /usr/share/keyrings/debian-archive-keyring.gpg
	done <<<"$suites" >"$c/etc/apt/sources.list.d/ue.sources"
	cp /etc/resolv.conf "$c/etc/resolv.conf" 2>/dev/null || true
	# As in the private apt states (apt-lib.sh): a snapshot mirror serves
	# sid's Release past its Valid-Until; the signatures are still checked.
	echo 'Acquire::Check-Valid-Until "false";' >"$c/etc/apt/apt.conf.d/90ue-valid-until"
	# The release's keyring may predate the suites' keys: the host's (or
	# the one fetched into the cache, apt-lib.sh's ue_keyring) is newer.
	cp "$kr" "$c/usr/share/keyrings/debian-archive-keyring.gpg"
	# apt-get update when the sources changed, the lists are 6 hours old, or
	# older than the lists of the release's private apt states (apt-lib.sh),
	# from which the rows' versions are resolved: a chroot never lags them by
	# more than a run (and ue_chroot_install updates it when an install
	# meets such a lag in the run that made it).
	stamp=$c/.ue-apt-updated
	want=$(md5sum <"$c/etc/apt/sources.list.d/ue.sources")
	if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ] ||
	   [ -n "$(find "$stamp" -mmin +360)" ] ||
	   [ -n "$(find "$UE_CACHE/apt-$r" "$UE_CACHE"/apt-"$r"-* -maxdepth 2 -path '*/state/.updated' \
			-newer "$stamp" 2>/dev/null)" ]; then
		t0=$(date +%s)
		ue_chroot_run "$n" --exclusive apt-get -q update >"$c.apt.log" 2>&1 ||
			{ log "apt-get update in the $n chroot failed: $(tail -3 "$c.apt.log" | tr '\n' ' ')"; return 1; }
		echo "$want" >"$stamp"
		log "apt-get update in the $n chroot: $(( $(date +%s) - t0 ))s"
	fi
}

# ue_chroot_install RELEASE PKG[=VERSION]...: apt-get install in the chroot,
# and once more after an apt-get update when that fails. The versions come
# from the rows' own apt lists (resolve.sh, fetch-kernels.sh: apt-lib.sh's
# private states, each updated when 6 hours old), which may be newer than
# the chroot's: a warm run on 2026-11-28 resolved bookworm's arm64 6.1 at
# 6.1.192-3 from bookworm's arm64 lists updated at its start, while the
# chroot's had been updated 7 minutes before (by a run of two other rows),
# when the mirror still served 6.1.192-2, and apt-get install
# linux-kbuild-6.1=6.1.192-3 there failed ("Version '6.1.192-3' for
# 'linux-kbuild-6.1' was not found"). Before the second try, dpkg ends
# what a run killed during an install left unconfigured in the cached
# chroot: apt refuses every install until then ("dpkg was interrupted").
ue_chroot_install() {
	local r=$1 c
	shift
	c=$(ue_chroot_dir "$r")
	ue_chroot_run "$r" --exclusive apt-get -y -q install --no-install-recommends "$@" >>"$c.apt.log" 2>&1 &&
		return 0
	log "apt-get install $* in the $r chroot failed: finishing dpkg's interrupted work, updating its lists and trying again"
	ue_chroot_run "$r" --exclusive dpkg --configure -a >>"$c.apt.log" 2>&1
	ue_chroot_run "$r" --exclusive apt-get -q update >>"$c.apt.log" 2>&1 &&
		ue_chroot_run "$r" --exclusive apt-get -y -q install --no-install-recommends "$@" >>"$c.apt.log" 2>&1 &&
		return 0
	log "apt-get install $* in the $r chroot failed: $(tail -3 "$c.apt.log" | tr '\n' ' ')"
	return 1
}

# The headers packages installed in the chroot, as PACKAGE=VERSION lines.
ue_chroot_have_headers() {
	ue_chroot_run "$1" dpkg-query -W -f='${Package} ${Version} ${Status}\n' 'linux-headers-*' 2>/dev/null |
		awk '/install ok installed/ { print $1 "=" $2 }'
}

# ue_chroot_headers [--keep] RELEASE HEADERS=VERSION...: exactly these
# headers packages installed in the chroot (with what they depend on, as
# apt-get install of a headers package brings on that release); headers of
# other versions are purged, so that the chroot does not grow from run to
# run. --keep purges nothing (user-events-run adds one kernel's headers to
# those make check installed).
ue_chroot_headers() {
	local keep= r c have p want=() purge=()
	[ "$1" != --keep ] || { keep=1; shift; }
	r=$1; shift
	c=$(ue_chroot_dir "$r")
	for p in "$@"; do want+=("${p%%=*}"); done
	have=$(ue_chroot_have_headers "$r")
	# (the common packages go with --autoremove: purging one, say
	# linux-headers-5.10.0-43-common-rt, would take its flavour along)
	for p in $have; do
		[ -z "$keep" ] || break
		case ${p%%=*} in *-common|*-common-*) continue ;; esac
		case " ${want[*]} " in *" ${p%%=*} "*) ;; *) purge+=("${p%%=*}") ;; esac
	done
	if [ ${#purge[@]} -gt 0 ]; then
		# (a failed purge leaves them: the chroot only grows)
		ue_chroot_run "$r" --exclusive apt-get -y -q purge --autoremove "${purge[@]}" >>"$c.apt.log" 2>&1 ||
			log "apt-get purge ${purge[*]} in the $r chroot failed (kept): $(tail -1 "$c.apt.log")"
		have=$(ue_chroot_have_headers "$r")
	fi
	for p in "$@"; do
		grep -qx "$p" <<<"$have" || {
			log "installing $* in the $r chroot"
			ue_chroot_install "$r" "$@"
			return
		}
	done
}

# ue_chroot_pkgs RELEASE PKG...: these packages installed in the cached
# chroot (the tools of the install test: autopkgtest, autodep8).
ue_chroot_pkgs() {
	local r=$1 missing
	shift
	missing=$(ue_chroot_run "$r" dpkg-query -W -f='${Package} ${Status}\n' "$@" 2>/dev/null |
		awk '!/ok installed/ { print $1 }')
	# (dpkg-query names nothing it never heard of)
	[ "$(ue_chroot_run "$r" dpkg-query -W "$@" 2>/dev/null | wc -l)" = $# ] || missing="$*"
	[ -n "$missing" ] || return 0
	log "installing $missing in the $r chroot"
	# shellcheck disable=SC2086
	ue_chroot_install "$r" $missing
}

# ue_chroot_cross RELEASE KROOT: what the chroot needs to build a module for
# the kernel of KROOT (fetch-kernels.sh), of another architecture, against
# its headers in the cache: the release's cross compiler (KROOT/cross) and
# its amd64 linux-kbuild package of the kernel's version (KROOT/kbuild), as
# a Debian user cross-building a module installs them.
ue_chroot_cross() {
	local r=$1 kr=$2 cc kb
	cc=$(cat "$kr/cross") && kb=$(cat "$kr/kbuild") || return 1
	ue_chroot_pkgs "$r" "$cc" "${kb%%=*}" || return 1
	# (the kbuild package of exactly that version)
	[ "$(ue_chroot_run "$r" dpkg-query -W -f='${Version}' "${kb%%=*}")" = "${kb#*=}" ] ||
		ue_chroot_install "$r" "$kb"
}

# ue_chroot_build_module RELEASE ROOT OUT KRELEASE|KDIR [make vars...]: build
# user_events.ko from the checkout ROOT in a copy in OUT (log in OUT.log), in
# RELEASE's chroot against /usr/src/linux-headers-KRELEASE (installed there
# by apt-get as on a user's machine, ue_chroot_headers, with the compiler
# the headers depend on), as DKMS builds it there; or against KDIR, an
# absolute path (a cross build's headers in the cache, ue_chroot_cross).
# OUT's parent is bound at its own path (the cache always is).
# With ue_chroot_ccache=DIR (make check's own builds, stage-build.sh): the
# compiler runs through the chroot's ccache, its cache in DIR/RELEASE, and
# OUT's parent is bound at /ue-build instead, so that the sources' paths,
# which ccache's hash includes, are the same from any checkout.
ue_chroot_build_module() {
	local r=$1 root=$2 out=$3 kdir=$4 at
	shift 4
	[[ $kdir == /* ]] || kdir=/usr/src/linux-headers-$kdir
	rm -rf "$out"; mkdir -p "$out"
	make -s -C "$root" copy-sources DEST="$out"
	ue_seed_probes "$out"
	at=$(dirname "$out")
	[ -z "${ue_chroot_ccache:-}" ] || at=/ue-build
	ue_chroot_ccache_env "$r"
	ue_chroot_run "$r" --bind "$(dirname "$out"):$at" "${ue_ccache_env[@]}" make -j"$(nproc)" \
		-C "$at/$(basename "$out")" KDIR="$kdir" "$@" >"$out.log" 2>&1
}

# ue_chroot_ccache_env RELEASE: sets ue_ccache_env to the command prefix
# that runs a build in RELEASE's chroot through its ccache, its cache in
# ue_chroot_ccache/RELEASE; to nothing without ue_chroot_ccache. (ccache's
# links come first in PATH: the chroot's own trigger makes them.)
ue_chroot_ccache_env() {
	ue_ccache_env=()
	[ -n "${ue_chroot_ccache:-}" ] || return 0
	mkdir -p "$ue_chroot_ccache/$1"
	ue_ccache_env=(env PATH=/usr/lib/ccache:/usr/sbin:/usr/bin:/sbin:/bin
		       CCACHE_DIR="$ue_chroot_ccache/$1")
}
