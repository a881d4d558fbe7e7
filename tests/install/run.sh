#!/bin/bash
# The install test of make check (issue 6): the Debian package as a user
# installs it, on this machine, with the headers of the target kernels.
#
#   1. installs the headers of every target kernel on the machine (once:
#      apt-get, with what only another suite has, e.g. bullseye's gcc-10 for
#      5.10, fetched through the private apt state of tests/vm/apt-lib.sh);
#   2. adds a headers tree configured with CONFIG_USER_EVENTS=y (a copy of a
#      target's, as /lib/modules/<fake>/build) that DKMS must skip;
#   3. builds the .deb and installs it as the README says
#      (apt-get install ./build/deb/user-events-dkms_<ver>_all.deb);
#   4. checks that DKMS built and installed the module for each target
#      kernel (dkms status, /lib/modules/<rel>/updates/dkms/) and skipped
#      the fake one;
#   5. boots each target kernel in QEMU with that installed module and runs
#      a smoke test (tests/install/smoke-init);
#   6. removes, then purges the package and checks that nothing is left.
#
# Usage: run.sh WORKDIR EXAMPLE-BINARY KERNEL...   (short names of kernels.list)
# Prints "<kernel> install pass|fail <case> [detail]" lines ("host" for the
# package-level checks); progress goes to stderr, logs to WORKDIR.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
vmdir=$root/tests/vm
. "$vmdir/vm-lib.sh"
UE_CACHE=${UE_CACHE:-$HOME/.cache/user-events-dkms}
work=$1 example=$2
shift 2
version=$(cat "$root/VERSION")
pkg=user-events-dkms
fake=9.9.9-ue-test-builtin
vm_timeout=${UE_VM_TIMEOUT:-600}
mkdir -p "$work"

log() { printf '== install: %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }
result() { echo "$1 install $2 $3${4:+ $4}"; }
check() { # kernel case detail-if-failed command...
	local k=$1 c=$2 d=$3
	shift 3
	if "$@" >/dev/null 2>&1; then result "$k" pass "$c"; else result "$k" fail "$c" "$d"; fi
}

if [ "$(id -u)" != 0 ]; then
	result host fail root "the install test installs packages: run make check as root"
	exit 0
fi

declare -A rel	# short name -> kernel release
for k in "$@"; do
	rel[$k]=$(cat "$UE_CACHE/kernels/$k/release")
done

# --- 1. the target kernels' headers, installed on the machine -----------------
# apt-get installs them from the machine's own sources. Packages those sources
# cannot provide at all (bullseye's compiler and libssl1.1 for 5.10's headers,
# as a machine upgraded from Debian 11 still has them) come from the private
# apt state, which has the extra suites, and are installed as local .debs.
ensure_headers() {
	local want=() k p sim name ver policy extra=() dl=$UE_CACHE/install-debs
	for k in "$@"; do
		p=linux-headers-${rel[$k]}
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
			want+=("$p")
	done
	[ ${#want[@]} -gt 0 ] || return 0
	log "installing on this machine: ${want[*]}"
	. "$vmdir/apt-lib.sh"
	setup_private_apt
	apt-get update -qq >&2 || true
	sim=$(private_apt -s install --no-install-recommends "${want[@]}" 2>&1) ||
		{ echo "$sim" >&2; return 1; }
	mkdir -p "$dl"
	while read -r name ver; do
		# (the policy is read whole: grep -q would cut the pipe short)
		policy=$(apt-cache policy "$name" 2>/dev/null)
		# (the machine's own candidate only if it is the version wanted:
		# bookworm's linux-kbuild-5.10 is older than bullseye-security's)
		grep -qxF "  Candidate: $ver" <<<"$policy" && continue
		[ -f "$dl/.$name=$ver" ] || {
			(cd "$dl" && rm -f "${name}_"*.deb && private_apt download "$name=$ver" >&2) ||
				return 1
			touch "$dl/.$name=$ver"
		}
		extra+=("$(ls "$dl/${name}_"*.deb)")
	done < <(awk '$1 == "Inst" { for (i = 3; i <= NF; i++) if ($i ~ /^\(/) {
			print $2, substr($i, 2); break } }' <<<"$sim")
	[ ${#extra[@]} -eq 0 ] || log "from the private apt state: ${extra[*]##*/}"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
		"${extra[@]}" "${want[@]}" >"$work/headers-install.log" 2>&1 ||
		{ tail -20 "$work/headers-install.log" >&2; return 1; }
}

# A package left by an earlier run (or by hand) would hide what this one does.
if dpkg-query -W -f='${Status}' $pkg 2>/dev/null | grep -q installed; then
	log "purging the $pkg installed before"
	apt-get purge -y -q $pkg >"$work/purge-before.log" 2>&1
fi

ensure_headers "$@" >&2
hdr_ok=1
for k in "$@"; do
	if [ -e "/lib/modules/${rel[$k]}/build/include" ]; then
		result "$k" pass headers_installed
	else
		result "$k" fail headers_installed "no /lib/modules/${rel[$k]}/build (see $work/headers-install.log)"
		hdr_ok=0
	fi
done
[ $hdr_ok = 1 ] || exit 0

# --- 2. a kernel configured with CONFIG_USER_EVENTS=y ---------------------------
# The headers of the last target, with USER_EVENTS turned on: without the
# BUILD_EXCLUSIVE_CONFIG of dkms.conf its build would fail (check-kernel.sh
# refuses it) and take the installation down with it.
last=${*: -1}
fakesrc=/usr/src/linux-headers-$fake
cleanup_fake() { rm -rf "$fakesrc" "/lib/modules/$fake"; }
trap cleanup_fake EXIT
cleanup_fake
cp -a "$(readlink -f "/lib/modules/${rel[$last]}/build")" "$fakesrc"
echo CONFIG_USER_EVENTS=y >>"$fakesrc/.config"
echo CONFIG_USER_EVENTS=y >>"$fakesrc/include/config/auto.conf"
mkdir -p "/lib/modules/$fake"
ln -s "$fakesrc" "/lib/modules/$fake/build"

# --- 3. the README's commands: make deb, apt-get install ./build/deb/... ------
copy=$work/tree
rm -rf "$copy" && mkdir -p "$copy"
cp -a "$root"/{Makefile,Kbuild,VERSION,dkms.conf,src,include,scripts,debian} "$copy/"
deb=build/deb/${pkg}_${version}_all.deb
log "make deb; apt-get install ./$deb (DKMS builds for every kernel: a few minutes)"
if ! make -C "$copy" deb >"$work/deb.log" 2>&1; then
	result host fail deb_builds "see $work/deb.log"
	exit 0
fi
t0=$(date +%s)
(cd "$copy" && DEBIAN_FRONTEND=noninteractive apt-get install -y "./$deb") \
	>"$work/apt-install.log" 2>&1
rc=$?
# dkms's output reaches apt's log with carriage returns.
tr -d '\r' <"$work/apt-install.log" >"$work/apt-install.txt"
log "installed in $(( $(date +%s) - t0 ))s (apt-get status $rc; output: $work/apt-install.txt)"
if [ $rc = 0 ]; then result host pass apt_install
else result host fail apt_install "apt-get status $rc, see $work/apt-install.log"; fi

# The package's own postinst told why it could not load the module on the
# running kernel, when that kernel has no headers (as on our test machines).
running=$(uname -r)
if [ ! -e "/lib/modules/$running/build" ]; then
	check host postinst_says_why "no 'could not load ... no headers' line" \
		grep -qF "user-events-dkms: could not load user_events on the running kernel $running: no headers for it" \
		"$work/apt-install.txt"
else
	# With headers: either the module is loaded, or the postinst said why.
	check host postinst_loaded_or_says_why "neither loaded nor a 'user-events-dkms:' line" \
		sh -c "grep -q '^user_events ' /proc/modules ||
			grep -q '^user-events-dkms: ' '$work/apt-install.txt'"
fi
check host modules_load_d "/usr/lib/modules-load.d/user-events.conf missing" \
	grep -qx user_events /usr/lib/modules-load.d/user-events.conf

# --- 4. DKMS built the module for each target, skipped the fake one -----------
# The postinst builds for every kernel in /lib/modules on a first install
# when the running kernel is not among them (our test machines); on a
# machine where it is, it builds for the running and the newest kernel only,
# and the kernel's headers hook builds the others: run that hook then.
# DKMS signs what it builds with its own key (made on first use), which
# Secure Boot users enroll (README).
signer=$(openssl x509 -in /var/lib/dkms/mok.pub -noout -subject -nameopt RFC2253 2>/dev/null |
	sed -n 's/^subject=CN=//p')
ko_of() { ls "/lib/modules/$1/updates/dkms/user_events.ko"* 2>/dev/null | head -1; }
for k in "$@"; do
	r=${rel[$k]}
	if [ -z "$(ko_of "$r")" ] && [ -e "/lib/modules/$running" ]; then
		log "$r: not built by the postinst (the running kernel is installed); running its headers hook"
		/etc/kernel/header_postinst.d/dkms "$r" >>"$work/header-hook.log" 2>&1
	fi
	check "$k" dkms_status_installed "dkms status: $(dkms status -m user-events -k "$r" 2>&1 | head -1)" \
		sh -c "dkms status -m user-events -v '$version' -k '$r' | grep -q ': installed'"
	ko=$(ko_of "$r")
	if [ -n "$ko" ]; then
		result "$k" pass module_installed
	else
		result "$k" fail module_installed "no /lib/modules/$r/updates/dkms/user_events.ko*"
		continue
	fi
	check "$k" module_version "modinfo version of $ko is not $version" \
		sh -c "modinfo -F version '$ko' | grep -qx '$version'"
	check "$k" module_vermagic "vermagic of $ko is not for $r" \
		sh -c "modinfo -F vermagic '$ko' | grep -q '^$r '"
	check "$k" module_signed "signer '$(modinfo -F signer "$ko" 2>&1)', want the DKMS key's '$signer'" \
		sh -c "[ -n '$signer' ] && modinfo -F signer '$ko' | grep -qxF '$signer'"
	check "$k" module_in_modules_dep "updates/dkms/user_events not in modules.dep" \
		grep -q '^updates/dkms/user_events\.ko' "/lib/modules/$r/modules.dep"
done
check host builtin_kernel_skipped "no 'Building initial module for $fake' then 'Skipped.'" \
	sh -c "grep -A6 -x 'Building initial module for $fake' '$work/apt-install.txt' |
		sed '1d; /^Building initial module/,\$d' | grep -qx 'Skipped.'"
check host builtin_kernel_no_module "a module was installed for $fake" \
	sh -c "[ -z \"\$(ls /lib/modules/$fake/updates 2>/dev/null)\" ]"

# --- 5. boot each target with the module DKMS installed -------------------------
for k in "$@"; do
	r=${rel[$k]} ko=$(ko_of "${rel[$k]}")
	[ -n "$ko" ] || continue
	ir=$work/$k/initramfs
	mkdir -p "$work/$k"
	ue_initramfs_skeleton "$ir" "$here/smoke-init"
	mkdir -p "$ir/tests"
	cp "$root/tests/userspace/lib.sh" "$ir/tests/"
	cp "$example" "$ir/example"
	cp "$root/VERSION" "$ir/modules/VERSION"
	# busybox insmod takes the plain ELF file (Debian compresses modules
	# from 6.x kernels configured so; DKMS then does the same).
	case $ko in
	*.xz) xz -dc "$ko" ;;
	*.zst) zstd -dcq "$ko" ;;
	*.gz) gzip -dc "$ko" ;;
	*) cat "$ko" ;;
	esac >"$ir/modules/user_events.ko"
	ue_initramfs_pack "$ir" "$work/$k/initrd.gz"
	log "$k: booting $r with ${ko#/lib/modules/}"
	log_file=$work/$k/console.log
	ue_boot "$UE_CACHE/kernels/$k" "$work/$k/initrd.gz" "$log_file" "$vm_timeout"
	rc=$?
	tr -d '\r' <"$log_file" >"$log_file.txt" 2>/dev/null || : >"$log_file.txt"
	if grep -q '^UE-DONE' "$log_file.txt"; then
		result "$k" pass vm_finished
	else
		result "$k" fail vm_finished "qemu status $rc, see $log_file.txt"
	fi
	grep '^UE-RESULT install ' "$log_file.txt" | while read -r _ _ verdict rest; do
		echo "$k install $verdict $rest"
	done
	splats=$(ue_splats "$log_file.txt")
	if [ -n "$splats" ]; then
		result "$k" fail vm_no_kernel_splat "$(echo "$splats" | head -3 | tr '\n' '|')"
	else
		result "$k" pass vm_no_kernel_splat
	fi
done

# --- 6. the README's uninstall, then purge ---------------------------------------
apt-get remove -y -q $pkg >"$work/apt-remove.log" 2>&1
rc=$?
if [ $rc = 0 ] && ! dpkg-query -W -f='${Status}' $pkg 2>/dev/null | grep -q 'ok installed'; then
	result host pass apt_remove
else
	result host fail apt_remove "apt-get status $rc, see $work/apt-remove.log"
fi
for k in "$@"; do
	check "$k" removed_module "module left in /lib/modules/${rel[$k]}/updates/dkms" \
		test -z "$(ko_of "${rel[$k]}")"
done
check host removed_dkms_status "dkms status still lists user-events" \
	test -z "$(dkms status -m user-events 2>/dev/null)"
apt-get purge -y -q $pkg >"$work/apt-purge.log" 2>&1
check host apt_purge "package still known to dpkg after purge" \
	sh -c "! dpkg-query -W -f='\${Status}' $pkg 2>/dev/null | grep -q ' installed\\| config-files'"
check host purged_files "left behind: /usr/src/user-events-$version, /var/lib/dkms/user-events or modules-load.d" \
	sh -c "[ ! -e /usr/src/user-events-$version ] && [ ! -e /var/lib/dkms/user-events ] &&
		[ ! -e /usr/lib/modules-load.d/user-events.conf ]"
exit 0
