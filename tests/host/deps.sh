#!/bin/bash
# Host checks of the declared dependencies (tests/deps.sh): for each entry
# point, the packages a new Debian 12 machine has once the entry point has
# installed its list (the closure of the base system, git, make and the
# list, resolved by apt-get against an empty dpkg status) must provide every
# program the entry point runs. A program is provided when the package that
# owns it on this machine is in that closure. The module build (entry
# "make") is checked against the headers packages of the bookworm kernels.
# One check drops a package from make check's list and asserts that its
# program is then missing: the check can fail.
# Prints one line per check: "host deps pass|fail <case> [detail]".
# Usage: deps.sh KERNELS-LOCK   (make check's build/check/kernels.lock)
. "$(dirname "$0")/../../rig/lib/prelude.sh"

root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/deps.sh"
kernel_lock=$1
# Programs are looked up where a new machine has them, whatever PATH the
# caller runs with.
std_path=/usr/sbin:/usr/bin:/sbin:/bin

result() { echo "host deps $1 $2${3:+ $3}"; }

# owners PROGRAM: the installed packages that have PROGRAM's file (more
# than one where a package diverts another's).
owners_table=$(ue_bin_owners)
owners() {
	local f real
	f=$(PATH=$std_path command -v "$1") || return 1
	real=$(readlink -m "$f")
	awk -F '\t' -v r="$real" '$1 == r { print $2 }' <<<"$owners_table"
}

# check_entry CASE-PREFIX "PROGRAMS" PKG...: each program provided by the
# closure of PKG....
check_entry() {
	local name=$1 progs=$2 closure p o
	shift 2
	if ! closure=$(ue_deps_closure "$@" 2>&1); then
		result fail "$name.closure" "$(echo "$closure" | head -2 | tr '\n' ' ')"
		return
	fi
	result pass "$name.closure"
	for p in $(printf '%s\n' $progs | awk '!seen[$0]++'); do
		if ! o=$(owners "$p") || [ -z "$o" ]; then
			result fail "$name.$p" "not installed on this machine: declare its package in tests/deps.sh"
		elif grep -qxF "$o" <<<"$closure"; then
			result pass "$name.$p"
		else
			result fail "$name.$p" "its package ($(echo $o)) is not in the closure of the list (tests/deps.sh)"
		fi
	done
}

for entry in demo demo_arm64 bench check deb fresh soak run; do
	# shellcheck disable=SC2046
	check_entry "$entry" "$(ue_deps_list progs "$entry")" $(ue_deps_list pkgs "$entry")
done

# make: the headers packages of the kernels Debian 12 itself ships, resolved
# with the private apt state their versions came from (resolve.sh): the
# machine's own lists may not know a kernel published since they were
# updated (linux-headers-6.1.0-57-amd64 on 2026-11-28, lists 6 hours old).
. "$root/rig/lib/apt-lib.sh"
mapfile -t ue_deps_apt_opts < <(ue_apt_opts bookworm)
ue_deps_lists=$UE_CACHE/apt-bookworm/state/lists
ue_required_pkgs=""
while read -r short release _ _ hdr ver _; do
	case $short in ''|'#'*) continue ;; esac
	[ "$release" = bookworm ] || continue
	# (an arm64 kernel's headers are no package of this machine: its module
	# is cross-built in the release's chroot, rig/lib/chroot-lib.sh)
	[[ $hdr != *-arm64 ]] || continue
	check_entry "make_$short" "$(ue_deps_list progs make)" "$hdr=$ver"
done <"$kernel_lock"
ue_deps_apt_opts=() ue_deps_lists="" ue_required_pkgs=""

# The check can fail: without flex (the kernel build's), flex is missing.
mapfile -t without < <(ue_deps_list pkgs check | grep -vx flex)
if ! closure=$(ue_deps_closure "${without[@]}" 2>&1); then
	result fail undeclared_is_caught "closure: $(echo "$closure" | head -1)"
elif grep -qxF "$(owners flex)" <<<"$closure"; then
	result fail undeclared_is_caught "flex is in the closure without being declared"
else
	result pass undeclared_is_caught
fi
# ... and the PATH an entry point runs with has no flex then.
farm=$(mktemp -d)
# shellcheck disable=SC2046
if ue_path_farm "$farm/path" $closure && [ -x "$farm/path/gcc" ] &&
   ! PATH=$farm/path command -v flex >/dev/null; then
	result pass undeclared_not_on_path
else
	result fail undeclared_not_on_path "flex (or no gcc) on the PATH built without flex"
fi
rm -rf "$farm"
