#!/bin/bash
# make check-fresh: the README's commands on a new Debian 12 machine.
#
# For each way a Debian 12 machine names its mirror, it makes a pristine root
# (debootstrap --variant=minbase, plus only what the README says a user
# starts with: git and make), puts a clean clone of the current commit in
# it and runs the README's commands there, as root, with an empty cache:
#   list    /etc/apt/sources.list, one-line entries (what the installer
#           writes): make demo, make check, make bench
#   deb822  /etc/apt/sources.list.d/debian.sources (container and cloud
#           images): make demo, then make check of the stock kernels
#           (UE_KERNELS="5.10 6.1 6.12"): every step that uses apt, the
#           private apt state with bullseye and the install test's
#           apt-get among them, without building our own kernels again,
#           which no apt configuration touches
# After each command the clone must be unchanged (git status --porcelain).
# The mirror URIs are this machine's own (apt-cache policy); none is named
# here. Prints each command's time and result, ends with "N passed,
# N failed" and exits non-zero on any failure. Logs: build/fresh/.
#
# Environment:
#   UE_FRESH_DIR     where the roots are made (default
#                    /var/tmp/user-events-dkms-fresh; outside the tree, so
#                    that make clean never walks into a root)
#   UE_FRESH_STYLES  the styles to run (default "list deb822")
#   UE_FRESH_STEPS_list, UE_FRESH_STEPS_deb822
#                    the commands of a style, ";"-separated, to run fewer
set -uo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/deps.sh"
base=${UE_FRESH_DIR:-/var/tmp/user-events-dkms-fresh}
logs=$root/build/fresh
styles=${UE_FRESH_STYLES:-list deb822}
# Quotes inside ${v:-word} are removed, so the defaults are set apart.
def_list='make demo;make check;make bench'
def_deb822='make demo;UE_KERNELS="5.10 6.1 6.12" make check'
steps_list=${UE_FRESH_STEPS_list:-$def_list}
steps_deb822=${UE_FRESH_STEPS_deb822:-$def_deb822}
t_start=$(date +%s)

say() { printf '== fresh: %s\n' "$*"; }
die() { say "$*"; exit 1; }

[ "$(id -u)" = 0 ] || die "debootstrap and chroot need root"
ue_deps_install fresh || exit 1

# This machine's URIs of bookworm, bookworm-updates and bookworm-security.
declare -A uri
for s in bookworm bookworm-updates bookworm-security; do
	uri[$s]=$(apt-cache policy 2>/dev/null |
		awk -v s="$s/main" '$3 == s && $4 == "amd64" { print $2; exit }')
done
[ -n "${uri[bookworm]}" ] || die "no bookworm/main source in this machine's apt configuration"

commit=$(git -C "$root" rev-parse HEAD) || die "$root is not a git checkout"
[ -z "$(git -C "$root" status --porcelain)" ] ||
	say "NOTE: uncommitted changes in $root are not part of this run (it tests $commit)"

rm -rf "$logs"
mkdir -p "$logs"
results=$logs/results
: >"$results"
record() { echo "$*" >>"$results"; }

mounts_under() { findmnt -rn -o TARGET | awk -v r="$1/" 'index($0 "/", r) == 1'; }
unmount_root() {
	local m
	for m in proc sys dev; do
		mountpoint -q "$1/$m" && umount -R -l "$1/$m"
	done
	[ -z "$(mounts_under "$1")" ]
}
remove_root() {
	[ -e "$1" ] || return 0
	unmount_root "$1" || { say "mounts left under $1: $(mounts_under "$1" | tr '\n' ' ')"; return 1; }
	rm -rf --one-file-system "$1"
}
current=
trap '[ -z "$current" ] || unmount_root "$current"' EXIT
trap 'exit 130' INT TERM HUP

write_sources() { # root style
	local r=$1 s
	rm -f "$r/etc/apt/sources.list" "$r"/etc/apt/sources.list.d/*
	if [ "$2" = list ]; then
		for s in bookworm bookworm-updates bookworm-security; do
			[ -n "${uri[$s]}" ] && echo "deb ${uri[$s]} $s main"
		done >"$r/etc/apt/sources.list"
	else
		for s in bookworm bookworm-updates bookworm-security; do
			[ -n "${uri[$s]}" ] || continue
			printf 'Types: deb\nURIs: %s\nSuites: %s\nComponents: main\n' "${uri[$s]}" "$s"
			printf 'Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg\n\n'
		done >"$r/etc/apt/sources.list.d/debian.sources"
	fi
}

make_root() { # root style log
	local r=$1
	remove_root "$r" || return 1
	mkdir -p "$(dirname "$r")"
	debootstrap --variant=minbase --include=git,make bookworm "$r" "${uri[bookworm]}" \
		>"$3" 2>&1 || { tail -5 "$3"; return 1; }
	write_sources "$r" "$2"
	cp /etc/resolv.conf "$r/etc/resolv.conf"
	# No service of a package installed in the root starts on this machine.
	printf '#!/bin/sh\nexit 101\n' >"$r/usr/sbin/policy-rc.d"
	chmod +x "$r/usr/sbin/policy-rc.d"
	mount -t proc proc "$r/proc" &&
	mount --rbind /sys "$r/sys" && mount --make-rslave "$r/sys" &&
	mount --rbind /dev "$r/dev" && mount --make-rslave "$r/dev" || return 1
	git clone -q "$root" "$r/root/user-events-dkms"
}

# in_root ROOT COMMAND: a login-like environment of a new machine, in the clone.
in_root() {
	chroot "$1" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		/bin/bash -c "cd /root/user-events-dkms && $2" </dev/null
}

for style in $styles; do
	r=$base/$style
	mkdir -p "$logs/$style"
	say "$style: debootstrap --variant=minbase --include=git,make bookworm into $r"
	t0=$(date +%s)
	current=$r
	if ! make_root "$r" "$style" "$logs/$style/debootstrap.log"; then
		record "$style root fail made see $logs/$style/debootstrap.log"
		continue
	fi
	record "$style root pass made $(( $(date +%s) - t0 ))s"
	say "$style: root made in $(( $(date +%s) - t0 ))s; clone of $commit"
	v=steps_$style
	IFS=';' read -ra steps <<<"${!v}"
	for step in "${steps[@]}"; do
		name=$(echo "$step" | tr -c 'A-Za-z0-9.\n' '_' | sed 's/__*/_/g; s/^_//; s/_$//')
		log=$logs/$style/$name.log
		say "$style: $step (log: $log)"
		t0=$(date +%s)
		in_root "$r" "$step" >"$log" 2>&1
		rc=$?
		secs=$(( $(date +%s) - t0 ))
		summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -1)
		if [ $rc = 0 ]; then
			record "$style $name pass exit ${secs}s${summary:+ ($summary)}"
		else
			record "$style $name fail exit status $rc after ${secs}s${summary:+ ($summary)}"
			tail -25 "$log" | sed 's/^/   | /'
		fi
		say "$style: $step: status $rc in $(( secs / 60 ))m$(( secs % 60 ))s${summary:+, $summary}"
		dirty=$(in_root "$r" "git status --porcelain" 2>&1)
		if [ -z "$dirty" ]; then
			record "$style $name pass tree_unchanged"
		else
			record "$style $name fail tree_unchanged $(echo "$dirty" | head -3 | tr '\n' ' ')"
		fi
		[ $rc = 0 ] || break
	done
	unmount_root "$r" || say "mounts left under $r"
	current=
done

echo
awk '{ printf "%-7s %-40s %-4s %s", $1, $2, $3, $4; for (i = 5; i <= NF; i++) printf " %s", $i; print "" }' \
	"$results"
passed=$(awk '$3 == "pass"' "$results" | wc -l)
failed=$(awk '$3 != "pass"' "$results" | wc -l)
echo
echo "check-fresh took $(( $(date +%s) - t_start ))s (roots kept under $base)"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ] && [ "$passed" -gt 0 ]
