#!/bin/bash
# The install test's steps inside one release's chroot (run by run.sh in an
# overlay over the cached chroot, as root; the release's own apt and dkms):
#   1. apt-get install ./user-events-dkms_<ver>_all.deb with the headers of
#      the given kernels present (the chroot's others purged first), and of
#      a fake kernel configured with CONFIG_USER_EVENTS=y that DKMS must
#      skip;
#   2. what DKMS built for each kernel (status, .ko, version, vermagic,
#      signature, modules.dep); the .ko files are copied to DEBS/../ko/;
#   3. a kernel upgrade: the headers of one further kernel, installed after
#      the package, and DKMS builds for it on its own;
#   4. apt-get remove, then purge: nothing is left;
#   5. a package upgrade, from PREV to this version, with the first given
#      kernel's headers only;
#   6. the autopkgtest of Debian's DKMS packages (Testsuite:
#      autopkgtest-pkg-dkms), with this release's autopkgtest;
#   7. purge: nothing is left;
#   8. user-events-dev: apt-get install ./user-events-dev_<ver>_all.deb with
#      pkgconf, gcc and libc6-dev, then samples/example.c (WORK/example.c)
#      built with "cc $(pkg-config --cflags user-events) -static" into
#      WORK/example, which run.sh's boots run in the VMs; purge.
# Usage: in-chroot.sh WORK VERSION PREV FURTHER KERNEL-RELEASE...
#   WORK holds debs/ (the .debs of VERSION and PREV), src/ (the source
#   tree), example.c, and gets logs; FURTHER is the headers package of
#   step 3.
# Prints "K <release> pass|fail <case> [detail]" for a kernel's checks and
# "P pass|fail <case> [detail]" for the package's.
set -uo pipefail
work=$1 version=$2 prev=$3 further=$4
shift 4
pkg=user-events-dkms
fake=9.9.9-ue-test-builtin
deb=$work/debs/${pkg}_${version}_all.deb
devdeb=$work/debs/user-events-dev_${version}_all.deb
prevdeb=$work/debs/${pkg}_${prev}_all.deb
export DEBIAN_FRONTEND=noninteractive

log() { printf '== install: %s\n' "$*" >&2; }
kres() { echo "K $1 $2 $3${4:+ $4}"; }
pres() { echo "P $1 $2${3:+ $3}"; }
kcheck() { # release case detail-if-failed command...
	local r=$1 c=$2 d=$3
	shift 3
	if "$@" >/dev/null 2>&1; then kres "$r" pass "$c"; else kres "$r" fail "$c" "$d"; fi
}
pcheck() { # case detail-if-failed command...
	local c=$1 d=$2
	shift 2
	if "$@" >/dev/null 2>&1; then pres pass "$c"; else pres fail "$c" "$d"; fi
}
# apt-get LOG ARGS...: apt-get with its output (carriage returns dropped) in
# WORK/LOG.txt, and the seconds it took in the log (where a release's steps
# spend their time); its status.
aptlog() {
	local name=$1 rc t0=$SECONDS
	shift
	apt-get -y -q --no-install-recommends "$@" </dev/null >"$work/$name.log" 2>&1
	rc=$?
	tr -d '\r' <"$work/$name.log" >"$work/$name.txt"
	log "apt-get $name: $((SECONDS - t0))s, status $rc"
	return $rc
}
ko_of() { ls "/lib/modules/$1/updates/dkms/user_events.ko"* 2>/dev/null | head -1; }
# The versions dkms lists as installed for a kernel.
dkms_installed() { dkms status -m user-events -k "$1" 2>/dev/null | sed -n 's/^user-events[/,] *\([^,:]*\).*: installed.*/\1/p'; }
# Nothing of the package is left.
check_nothing_left() { # step
	local s=$1 r left
	left=$(ls -d /usr/src/user-events-* /var/lib/dkms/user-events \
		/usr/lib/modules-load.d/user-events.conf 2>/dev/null)
	for r in /lib/modules/*/; do r=${r%/}; left+=" $(ko_of "${r##*/}")"; done
	left=$(echo $left)
	if [ -z "$left" ]; then pres pass "$s.nothing_left"; else pres fail "$s.nothing_left" "left: $left"; fi
	pcheck "$s.not_installed" "dpkg still knows $pkg" \
		sh -c "! dpkg-query -W -f='\${Status}' $pkg 2>/dev/null | grep -q 'ok '"
	pcheck "$s.dkms_status_empty" "dkms status: $(dkms status -m user-events 2>&1 | head -1)" \
		test -z "$(dkms status -m user-events 2>/dev/null)"
}
# What DKMS built for kernel $1 at version $2.
check_built() { # release version prefix
	local r=$1 v=$2 s=$3 ko signer
	kcheck "$r" "$s.dkms_installed" "dkms status: $(dkms status -m user-events -k "$r" 2>&1 | head -1)" \
		sh -c "dkms status -m user-events -v '$v' -k '$r' | grep -q ': installed'"
	ko=$(ko_of "$r")
	if [ -z "$ko" ]; then
		kres "$r" fail "$s.module_installed" "no /lib/modules/$r/updates/dkms/user_events.ko*"
		return
	fi
	kres "$r" pass "$s.module_installed"
	kcheck "$r" "$s.module_version" "modinfo version '$(modinfo -F version "$ko" 2>&1)', want $v" \
		sh -c "modinfo -F version '$ko' | grep -qx '$v'"
	kcheck "$r" "$s.module_vermagic" "vermagic '$(modinfo -F vermagic "$ko" 2>&1)'" \
		sh -c "modinfo -F vermagic '$ko' | grep -q '^$r '"
	# DKMS 3.2 runs no depmod for a kernel whose image is not installed
	# (it has no modules.dep; its message goes nowhere): only the headers
	# are, here. Older DKMS makes modules.dep, which must list the module.
	if [ -f "/lib/modules/$r/modules.dep" ] || [ -e "/boot/vmlinuz-$r" ]; then
		kcheck "$r" "$s.module_in_modules_dep" "updates/dkms/user_events not in modules.dep" \
			grep -q '^updates/dkms/user_events\.ko' "/lib/modules/$r/modules.dep"
	else
		kres "$r" pass "$s.no_image_no_modules_dep"
	fi
	# DKMS 3 signs what it builds with its own key (made on first use),
	# which Secure Boot users enroll (README); DKMS 2.8 signs nothing.
	if [ -f /var/lib/dkms/mok.pub ]; then
		signer=$(openssl x509 -in /var/lib/dkms/mok.pub -noout -subject -nameopt RFC2253 2>/dev/null |
			sed -n 's/^subject=CN=//p')
		kcheck "$r" "$s.module_signed" "signer '$(modinfo -F signer "$ko" 2>&1)', want '$signer'" \
			sh -c "[ -n '$signer' ] && modinfo -F signer '$ko' | grep -qxF '$signer'"
	else
		kcheck "$r" "$s.module_unsigned_no_dkms_key" "signed by '$(modinfo -F signer "$ko" 2>&1)' without a DKMS key" \
			test -z "$(modinfo -F signer "$ko" 2>/dev/null)"
	fi
}

log "$(. /etc/os-release; echo "$PRETTY_NAME"), dkms $(dpkg-query -W -f='${Version}' dkms 2>/dev/null || echo '(not yet installed)')"

# headers_only LOG KERNEL...: every kernel's headers but these purged (with
# what only they needed), so that DKMS builds for these kernels alone.
headers_only() {
	local name=$1 others
	shift
	others=$(dpkg-query -W -f='${Package} ${Status}\n' 'linux-headers-*' |
		awk -v keep=" $* " '/ok installed/ && $1 !~ /-common(-.*)?$/ {
			r = $1; sub(/^linux-headers-/, "", r)
			if (index(keep, " " r " ") == 0) print $1 }')
	# shellcheck disable=SC2086
	[ -z "$others" ] || aptlog "$name" purge --autoremove $others
}

# --- 1. the fake kernel with user_events built in, then the package ----------
headers_only purge-headers "$@" ||
	pres fail install_setup "purging the other kernels' headers failed, see $work/purge-headers.txt"
last=${*: -1}
rm -rf "/usr/src/linux-headers-$fake" "/lib/modules/$fake"
cp -a "$(readlink -f "/lib/modules/$last/build")" "/usr/src/linux-headers-$fake"
echo CONFIG_USER_EVENTS=y >>"/usr/src/linux-headers-$fake/.config"
echo CONFIG_USER_EVENTS=y >>"/usr/src/linux-headers-$fake/include/config/auto.conf"
mkdir -p "/lib/modules/$fake"
ln -s "/usr/src/linux-headers-$fake" "/lib/modules/$fake/build"

log "apt-get install ./${deb##*/} (DKMS builds for $# kernels)"
t0=$(date +%s)
if aptlog apt-install install "$deb"; then pres pass apt_install
else pres fail apt_install "apt-get failed, see $work/apt-install.txt"; fi
log "installed in $(( $(date +%s) - t0 ))s with dkms $(dpkg-query -W -f='${Version}' dkms 2>/dev/null)"
# No kernel of the chroot runs: the postinst says why it loads nothing.
pcheck postinst_says_why "no 'could not load ... no headers' line" \
	grep -qF "user-events-dkms: could not load user_events on the running kernel $(uname -r): no headers for it" \
	"$work/apt-install.txt"
pcheck modules_load_d "/usr/lib/modules-load.d/user-events.conf missing" \
	grep -qx user_events /usr/lib/modules-load.d/user-events.conf

# --- 2. what DKMS built ----------------------------------------------------------
mkdir -p "$work/ko"
for r in "$@"; do
	check_built "$r" "$version" install
	ko=$(ko_of "$r")
	[ -z "$ko" ] || cp "$ko" "$work/ko/$r.${ko##*/user_events.}"
done
pcheck builtin_kernel_skipped "DKMS built or installed for $fake" \
	sh -c "[ -z \"\$(ls /lib/modules/$fake/updates 2>/dev/null)\" ] &&
		! dkms status -m user-events -k $fake | grep -q ': installed'"

# --- 3. a kernel upgrade: DKMS builds for the new kernel on its own -------------
fr=${further#linux-headers-}
log "kernel upgrade: apt-get install $further"
if aptlog kernel-upgrade install "$further"; then
	kres "$fr" pass upgrade.headers_installed
	check_built "$fr" "$version" upgrade
else
	kres "$fr" fail upgrade.headers_installed "apt-get failed, see $work/kernel-upgrade.txt"
fi

# --- 4. remove, then purge ---------------------------------------------------------
rm -rf "/usr/src/linux-headers-$fake" "/lib/modules/$fake"
if aptlog apt-remove remove $pkg; then pres pass apt_remove
else pres fail apt_remove "see $work/apt-remove.txt"; fi
for r in "$@" "$fr"; do
	kcheck "$r" removed_module "module left: $(ko_of "$r")" test -z "$(ko_of "$r")"
done
# (with no conffiles, dpkg forgets a removed package: apt-get purge then
# finds nothing to purge; the package upgrade below purges an installed one)
if dpkg-query -W -f='${Status}' $pkg 2>/dev/null | grep -q 'config-files'; then
	if aptlog apt-purge purge $pkg; then pres pass apt_purge
	else pres fail apt_purge "see $work/apt-purge.txt"; fi
fi
check_nothing_left purge

# --- 5. a package upgrade, with the first kernel's headers only ----------------
# (one build per step: the other kernels' headers go, the further one's)
keep=$1
headers_only upgrade-headers "$keep" ||
	pres fail upgrade_setup "purging the other headers failed, see $work/upgrade-headers.txt"
log "package upgrade: $prev, then $version"
if aptlog upgrade-from install "$prevdeb"; then pres pass upgrade.old_installed
else pres fail upgrade.old_installed "see $work/upgrade-from.txt"; fi
kcheck "$keep" upgrade.old_built "dkms lists '$(dkms_installed "$keep" | tr '\n' ' ')' installed, want $prev" \
	test "$(dkms_installed "$keep")" = "$prev"
if aptlog upgrade-to install "$deb"; then pres pass upgrade.new_installed
else pres fail upgrade.new_installed "see $work/upgrade-to.txt"; fi
kcheck "$keep" upgrade.only_new_installed "dkms lists '$(dkms_installed "$keep" | tr '\n' ' ')' installed, want $version only" \
	test "$(dkms_installed "$keep")" = "$version"
kcheck "$keep" upgrade.module_version "modinfo version '$(modinfo -F version "$(ko_of "$keep")" 2>&1)'" \
	sh -c "modinfo -F version '$(ko_of "$keep")' | grep -qx '$version'"
pcheck upgrade.old_sources_gone "/usr/src/user-events-$prev or /var/lib/dkms/user-events/$prev left" \
	sh -c "[ ! -e '/usr/src/user-events-$prev' ] && [ ! -e '/var/lib/dkms/user-events/$prev' ]"
if aptlog upgrade-purge purge $pkg; then pres pass upgrade.apt_purge
else pres fail upgrade.apt_purge "see $work/upgrade-purge.txt"; fi
check_nothing_left upgrade

# --- 6. autopkgtest-pkg-dkms ---------------------------------------------------------
# The test (dkms-autopkgtest, from autodep8) reinstalls the package and
# builds for every kernel with headers; it breaks the testbed, which the
# null runner cannot revert: this overlay is thrown away anyway.
log "autopkgtest (autopkgtest-pkg-dkms) with autopkgtest $(dpkg-query -W -f='${Version}' autopkgtest)"
t0=$SECONDS
autopkgtest --no-built-binaries --ignore-restrictions=breaks-testbed \
	"$deb" "$work/src/" -- null </dev/null >"$work/autopkgtest.log" 2>&1
rc=$?
log "autopkgtest: $((SECONDS - t0))s, status $rc"
# (exit 8: every test superficial, as this one is; 0 with older autopkgtest)
if [ $rc = 0 ] || [ $rc = 8 ]; then pres pass autopkgtest.ran
else pres fail autopkgtest.ran "autopkgtest status $rc, see $work/autopkgtest.log"; fi
pcheck autopkgtest.dkms_test_passed "no 'dkms-autopkgtest PASS' in $work/autopkgtest.log" \
	grep -qE '^dkms-autopkgtest +PASS' "$work/autopkgtest.log"
# (the test fails on a failed build; bullseye's prints no per-kernel summary)
kcheck "$keep" autopkgtest.built "no 'I: Trying to build user-events/$version for $keep' in $work/autopkgtest.log" \
	grep -qxF "I: Trying to build user-events/$version for $keep" "$work/autopkgtest.log"
aptlog final-purge purge $pkg || pres fail final.purge "see $work/final-purge.txt"
check_nothing_left final

# --- 8. user-events-dev: a program built with the installed header only ----------
# As README's "Building a program" says, with the release's own pkgconf and
# compiler; nothing of the checkout (only WORK/example.c, samples/example.c).
# linux-libc-dev comes too (the package depends on it); from Linux 6.4 on it
# has a linux/user_events.h of its own, which the build must not read.
rm -f "$work/example"
log "apt-get install ./${devdeb##*/} pkgconf gcc libc6-dev"
if aptlog dev-install install "$devdeb" pkgconf gcc libc6-dev; then pres pass dev.apt_install
else pres fail dev.apt_install "apt-get failed, see $work/dev-install.txt"; fi
log "linux-libc-dev $(dpkg-query -W -f='${Version}' linux-libc-dev 2>/dev/null): its own linux/user_events.h is $(
	[ -e /usr/include/linux/user_events.h ] && echo present || echo absent)"
cflags=$(pkg-config --cflags user-events 2>&1 | sed 's/ *$//')
pcheck dev.pkg_config_cflags "pkg-config --cflags user-events: '$cflags', want '-I/usr/include/user-events'" \
	test "$cflags" = -I/usr/include/user-events
pcheck dev.pkg_config_version "pkg-config --modversion user-events: '$(pkg-config --modversion user-events 2>&1)', want $version" \
	test "$(pkg-config --modversion user-events 2>&1)" = "$version"
# shellcheck disable=SC2046
cc $(pkg-config --cflags user-events) -static -O2 -Wall -Wextra -Werror \
	-o "$work/example" "$work/example.c" >"$work/dev-cc.log" 2>&1
pcheck dev.example_builds "cc failed: $(head -2 "$work/dev-cc.log" | tr '\n' '|')" test -x "$work/example"
# The header the build read: the package's, not linux-libc-dev's.
# shellcheck disable=SC2046
read_h=$(cc $(pkg-config --cflags user-events) -M "$work/example.c" 2>/dev/null |
	tr ' \\' '\n\n' | grep 'user_events\.h$')
pcheck dev.example_header "example.c read '${read_h//$'\n'/ }', want /usr/include/user-events/linux/user_events.h" \
	test "$read_h" = /usr/include/user-events/linux/user_events.h
if aptlog dev-purge purge user-events-dev; then pres pass dev.apt_purge
else pres fail dev.apt_purge "see $work/dev-purge.txt"; fi
pcheck dev.nothing_left "left: $(ls -d /usr/include/user-events /usr/share/pkgconfig/user-events.pc 2>/dev/null | tr '\n' ' ')" \
	sh -c '[ ! -e /usr/include/user-events ] && [ ! -e /usr/share/pkgconfig/user-events.pc ]'
exit 0
