# The Debian packages and programs of each entry point (sourced, bash).
#
# A new Debian 12 machine has its minimal base (what debootstrap
# --variant=minbase installs: the Priority: required packages and apt) and
# what the README says a user starts with, git and make. Everything else an
# entry point runs is declared here, installed by the entry point itself
# (ue_deps_install) and checked by make check (tests/host/deps.sh):
#   ue_pkgs_<entry>   the packages apt-get installs for it
#   ue_progs_<entry>  the programs it runs, itself or through what it starts
#                     (the kernel build runs flex, bison, bc and pahole)
# Entry points run with PATH limited to the programs of the base system and
# of their packages (ue_deps_path), so a program used without being declared
# fails on every machine, as it would on a new one, not only on CI's next.
#
# make itself (the module build, which is also what DKMS runs) installs
# nothing: it needs only linux-headers-<release>, whose dependencies bring
# the compiler and pahole, and names that package when it is missing.

ue_base_pkgs=(git make)

# Booting a kernel in QEMU with a busybox initramfs.
ue_pkgs_vm=(qemu-system-x86 busybox-static cpio gzip xz-utils zstd rsync kmod)
# Building our module against Debian's headers (unpacked by the rig, so the
# headers' own dependencies are declared: gcc-12 and pahole for 6.1/6.12).
ue_pkgs_module=(build-essential gcc-12 libelf1 pahole)
# Building our test kernels from linux-source (tests/kernel/build.sh).
ue_pkgs_kernel=(build-essential flex bison bc libelf-dev libssl-dev pahole cpio)
# make deb.
ue_pkgs_deb=(build-essential debhelper dh-dkms)

# The arm64 rows: the static test programs of their VMs (Debian 12's cross
# compiler, with arm64's libc), and QEMU for arm64 where the cached QEMU 10
# cannot be had (rig/fetch/fetch-qemu.sh). Their modules are cross-built in
# the release's chroot, with that release's cross compiler.
ue_pkgs_arm64=(gcc-aarch64-linux-gnu qemu-system-arm)

# (curl: fetch-kernels.sh's resolve.sh asks the mirror whether it serves a
# kernel's packages, also for make demo)
ue_pkgs_demo=("${ue_pkgs_vm[@]}" "${ue_pkgs_module[@]}" curl)
# make demo ARCH=arm64: the module built in a chroot of Debian 13.
ue_pkgs_demo_arm64=("${ue_pkgs_demo[@]}" "${ue_pkgs_arm64[@]}" debootstrap)
# make bench: sys/sdt.h for ue_bench's USDT probe, readelf for its note,
# pgrep to see other QEMU processes during the scaling rows.
ue_pkgs_bench=("${ue_pkgs_vm[@]}" "${ue_pkgs_module[@]}" "${ue_pkgs_kernel[@]}"
	       systemtap-sdt-dev binutils procps)
ue_pkgs_check=("${ue_pkgs_vm[@]}" "${ue_pkgs_module[@]}" "${ue_pkgs_kernel[@]}" ninja-build
	       "${ue_pkgs_deb[@]}" g++ dkms lintian openssl linux-perf trace-cmd
	       debootstrap curl "${ue_pkgs_arm64[@]}" qemu-user-static mmdebstrap pkgconf
	       ovmf mtools dosfstools fdisk e2fsprogs expect python3-junitparser)
# (make check runs its job graph with ninja, rig/check/graph.sh; it has
# debootstrap too: it makes a chroot of each Debian release
# to build the module in, and mmdebstrap and qemu-user-static for the arm64
# root of the install test (rig/fetch/arm64-root.sh: the .deb with DKMS
# there; one mmdebstrap pass, with the hook that diverts update-initramfs
# by the host's dpkg-divert), qemu-user-static also to run
# the arm64 perf and trace-cmd once they are staged (rig/fetch/cross-tools.sh,
# which reads their NEEDED entries with aarch64-linux-gnu-readelf, of
# gcc-aarch64-linux-gnu's binutils); the booted-system test's disks are made
# without loop devices (tests/system/run.sh: mkfs.ext4 -d of e2fsprogs,
# dosfstools' mkfs.fat, mtools, fdisk's sfdisk) and booted by ovmf's Secure
# Boot firmware, MokManager's screens driven by expect; its host checks look at what every entry
# point runs, make check-fresh's included; curl asks the mirror whether it
# serves a kernel's packages, rig/fetch/resolve.sh; pkgconf's pkg-config
# reads user-events-dev's .pc file, tests/host/package.sh; python3 with
# python3-junitparser, a JUnit library of CI tools, reads back the JUnit XML
# of the results, rig/selfcheck/junit.sh: writing it takes only bash and awk,
# rig/report/junit.sh; tests/host/readme.sh runs the README's cc lines with
# pkg-config as written.)
ue_pkgs_fresh=(debootstrap)
# make soak is make check restricted to one VM (rig/check/soak.sh).
ue_pkgs_soak=("${ue_pkgs_check[@]}")
# scripts/user-events-run: make check's VMs and module builds (a chroot of
# the kernel's release), and resolve.sh's curl.
ue_pkgs_run=("${ue_pkgs_vm[@]}" "${ue_pkgs_module[@]}" debootstrap curl)

ue_progs_vm=(qemu-system-x86_64 busybox cpio gzip xz zstd rsync timeout find tar)
ue_progs_module=(make gcc gcc-12 ld as objcopy nm pahole sed awk cmp)
ue_progs_kernel=(make gcc ld flex bison bc pahole perl cpio sha256sum)
ue_progs_deb=(dpkg-buildpackage dh dh_dkms dpkg-deb)

ue_progs_demo=("${ue_progs_vm[@]}" "${ue_progs_module[@]}" apt-get dpkg-deb curl)
ue_progs_demo_arm64=("${ue_progs_demo[@]}" apt-cache debootstrap unshare chroot mount
		     aarch64-linux-gnu-gcc qemu-system-aarch64 md5sum)
ue_progs_bench=("${ue_progs_vm[@]}" "${ue_progs_module[@]}" "${ue_progs_kernel[@]}"
		apt-get dpkg-deb git readelf pgrep getconf)
ue_progs_check=("${ue_progs_vm[@]}" "${ue_progs_module[@]}" "${ue_progs_kernel[@]}"
		"${ue_progs_deb[@]}" apt-get apt-cache dpkg-query g++ ldd dkms lintian
		openssl modinfo depmod perf trace-cmd git debootstrap unshare chroot mount
		curl xargs renice aarch64-linux-gnu-gcc aarch64-linux-gnu-objcopy
		qemu-system-aarch64 qemu-aarch64-static mountpoint flock pkg-config
		aarch64-linux-gnu-readelf sha256sum ninja mmdebstrap dpkg-divert
		mkfs.ext4 mkfs.fat mmd mcopy sfdisk truncate dd expect python3 cc)
ue_progs_fresh=(debootstrap chroot mount umount findmnt mountpoint git apt-cache)
ue_progs_soak=("${ue_progs_check[@]}" awk)
ue_progs_run=("${ue_progs_vm[@]}" "${ue_progs_module[@]}" apt-get apt-cache dpkg-deb
	      dpkg-query debootstrap unshare chroot mount curl modinfo perl tail sha256sum
	      renice mktemp readlink flock)
# make: the module build, with nothing but the kernel's headers package
# (pahole comes with it where the kernel's BTF step wants it: 6.12's
# linux-kbuild depends on it, 6.1's does not; cmp, of diffutils, which
# every Debian system has, writes the kernel API probes' header only where
# it changed, scripts/probes.sh).
ue_progs_make=(make gcc-12 ld sed cmp)

# ue_deps_list KIND ENTRY: the names declared for ENTRY (KIND pkgs or progs).
ue_deps_list() {
	local -n _l=ue_${1}_$2
	printf '%s\n' "${_l[@]}"
}

# ue_deps_install ENTRY: apt-get installs what ENTRY needs and is missing
# (as root; otherwise it names the packages and fails).
ue_deps_install() {
	local entry=$1 p missing=() have
	# (one dpkg-query for all: user-events-run's start-up time)
	have=$(dpkg-query -W -f='${Package} ${Status}\n' $(ue_deps_list pkgs "$entry") 2>/dev/null |
		awk '/ install ok installed$/ { print $1 }')
	for p in $(ue_deps_list pkgs "$entry"); do
		grep -qxF "$p" <<<"$have" || missing+=("$p")
	done
	[ ${#missing[@]} -gt 0 ] || return 0
	# Another distribution (an Ubuntu CI runner: README) names some of these
	# otherwise (libelf1t64; pahole is in dwarves): there the programs are
	# what must be there, installed by the job.
	if [ -r /etc/os-release ] && ! grep -qx 'ID=debian' /etc/os-release; then
		local prog lacking=()
		for prog in $(ue_deps_list progs "$entry"); do
			command -v "$prog" >/dev/null || lacking+=("$prog")
		done
		[ ${#lacking[@]} -gt 0 ] || return 0
		echo "$entry: missing programs on this $(sed -n 's/^ID=//p' /etc/os-release) host: ${lacking[*]} (Debian's packages: ${missing[*]})" >&2
		return 1
	fi
	printf '== installing: %s\n' "${missing[*]}"
	if [ "$(id -u)" != 0 ]; then
		echo "$entry: missing packages (${missing[*]}) and not root; install them first:" \
			"apt-get install ${missing[*]}" >&2
		return 1
	fi
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null ||
		{ echo "$entry: apt-get install ${missing[*]} failed" >&2; return 1; }
}

# ue_deps_closure PKG...: the packages a new machine has once PKG... are
# installed: the base system, the starting packages and PKG..., with their
# dependencies and recommendations (as apt-get installs them), resolved by
# apt-get against an empty dpkg status. One name a line.
# Each answer is kept in the cache, under a hash of everything it is made
# from: PKG..., the starting packages, apt's package lists (names, sizes and
# times), the architectures and apt's pinning; a run whose lists did not
# change reads it back instead of resolving again (~10 CPU s each, a dozen
# a make check).
# With ue_deps_apt_opts (an array) set, they are resolved with those apt
# options and the lists in ue_deps_lists instead of the machine's: a private
# apt state's (rig/lib/apt-lib.sh), for a package whose version was taken
# from that state's lists, which may be newer than the machine's.
ue_deps_closure() {
	local st sim rc key dir lists=${ue_deps_lists:-/var/lib/apt/lists}
	local opts=("${ue_deps_apt_opts[@]}")
	dir=${UE_CACHE:?set by rig/lib/prelude.sh}/deps-closures
	key=$( { printf '%s\n' "$@" -- "${ue_base_pkgs[@]}" -- "${opts[@]}" --
		 find "$lists" -maxdepth 1 -type f \( -name '*Packages*' -o -name '*Release' \) \
			-printf '%f %s %T@\n' | LC_ALL=C sort
		 dpkg --print-architecture; dpkg --print-foreign-architectures
		 cat /etc/apt/preferences /etc/apt/preferences.d/* 2>/dev/null; } | sha256sum)
	key=${key%% *}
	if [ -s "$dir/$key" ]; then
		cat "$dir/$key"
		return 0
	fi
	[ -n "${ue_required_pkgs:-}" ] ||
		ue_required_pkgs=$(apt-cache "${opts[@]}" dumpavail |
			awk '/^Package:/ { p = $2 } /^Priority: required/ { print p }' | sort -u)
	st=$(mktemp -d)
	: >"$st/status"
	# shellcheck disable=SC2086
	sim=$(apt-get "${opts[@]}" -s -o Dir::State::status="$st/status" -o APT::Install-Recommends=true \
		install $ue_required_pkgs apt "${ue_base_pkgs[@]}" "$@" 2>&1)
	rc=$?
	rm -rf "$st"
	[ $rc = 0 ] || { echo "$sim" | grep '^E:' >&2; return 1; }
	sim=$(awk '$1 == "Inst" { print $2 }' <<<"$sim")
	echo "$sim"
	# (kept where the cache can be written; written whole or not at all)
	mkdir -p "$dir" 2>/dev/null && echo "$sim" >"$dir/$key.$$" 2>/dev/null &&
		mv -f "$dir/$key.$$" "$dir/$key" 2>/dev/null
	rm -f "$dir/$key.$$" 2>/dev/null
	return 0
}

# ue_bin_owners: "real path<TAB>package" for every file that an installed
# package has in a bin directory (links followed, so that merged /usr's
# /bin/x and /usr/bin/x agree), sorted.
ue_bin_owners() {
	local t
	t=$(mktemp -d)
	awk 'FNR == 1 { p = FILENAME; sub(/.*\//, "", p); sub(/\.list$/, "", p); sub(/:.*/, "", p) }
	     /^(\/usr)?\/s?bin\/[^\/]+$/ { print p > "/dev/stderr"; print }' \
		/var/lib/dpkg/info/*.list 2>"$t/pkgs" >"$t/paths"
	tr '\n' '\0' <"$t/paths" | xargs -0r readlink -m -- >"$t/reals"
	paste "$t/reals" "$t/pkgs" | LC_ALL=C sort -u
	rm -rf "$t"
}

# ue_path_farm DIR PKG...: fill DIR with a link to every program of the
# standard PATH directories whose file (links followed) belongs to one of
# the installed packages PKG....
ue_path_farm() {
	local dir=$1 tab
	shift
	tab=$(printf '\t')
	rm -rf "$dir"
	mkdir -p "$dir"
	ue_bin_owners | awk -F '\t' 'NR == FNR { want[$1] = 1; next } $2 in want { print $1 }' \
		<(printf '%s\n' "$@") - | LC_ALL=C sort -u >"$dir/.owned"
	[ -s "$dir/.owned" ] || return 1
	# Every program in those directories: "real path<TAB>path", joined
	# with the owned real paths (the /usr ones first).
	find /usr/sbin /usr/bin /sbin/ /bin/ -maxdepth 1 \( -type f -o -type l \) \
		2>/dev/null >"$dir/.paths"
	tr '\n' '\0' <"$dir/.paths" | xargs -0r readlink -m -- >"$dir/.reals"
	paste "$dir/.reals" "$dir/.paths" | LC_ALL=C sort -s -t "$tab" -k1,1 |
		LC_ALL=C join -t "$tab" -o 1.2 - "$dir/.owned" |
		while IFS= read -r f; do
			[ -x "$f" ] && [ ! -e "$dir/${f##*/}" ] && ln -s "$f" "$dir/${f##*/}"
		done
	rm -f "$dir/.owned" "$dir/.paths" "$dir/.reals"
}

# ue_deps_path ENTRY DIR: installs ENTRY's packages, then builds in DIR the
# PATH of a new machine with them (ue_path_farm of their closure) and
# exports it. UE_DEPS_PATH=0 keeps the caller's PATH (the programs are
# still installed).
ue_deps_path() {
	local entry=$1 dir=$2 closure
	ue_deps_install "$entry" || return 1
	[ "${UE_DEPS_PATH:-1}" = 1 ] || return 0
	# (apt's lists may be gone while every package is installed: update once)
	# shellcheck disable=SC2046
	closure=$(ue_deps_closure $(ue_deps_list pkgs "$entry") 2>/dev/null) ||
	closure=$( { [ "$(id -u)" != 0 ] || apt-get update -qq >&2; } &&
		   ue_deps_closure $(ue_deps_list pkgs "$entry")) ||
		{ echo "$entry: cannot resolve its packages with apt-get" >&2; return 1; }
	# shellcheck disable=SC2086
	ue_path_farm "$dir" $closure ||
		{ echo "$entry: no installed package of its closure" >&2; return 1; }
	export PATH=$dir
}
