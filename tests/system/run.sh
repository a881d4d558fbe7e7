#!/bin/bash
# The booted-system test of make check: a Debian release booted as its
# users boot it, and our .deb installed there as they install it.
#   - The system (cached): mmdebstrap of the release with systemd, its kmod,
#     DKMS, its signed kernel and headers (tests/system/systems.list); the
#     signed shim, MokManager and GRUB taken from the release's packages.
#   - Each run, in an overlay over it: apt-get install of our .debs, so
#     that DKMS builds the module and signs it with the key it makes
#     itself (Debian 11's DKMS 2.8 signs nothing: there, first the steps
#     the README gives for it); where systems.list names another suite's
#     kernel, not yet: the booted system installs them, then that kernel
#     (guest-test); the module built by hand with make; the test
#     (guest-test) as a unit that runs once the system is up.
#   - A GPT disk of it (an EFI system partition with shim as the removable
#     boot path, the root as ext4), made without loop devices
#     (mkfs.ext4 -d, mtools, sfdisk).
#   - Booted under OVMF with Secure Boot on (QEMU, TCG), in the README's
#     order: once with the DKMS certificate not enrolled (the module
#     refused; mokutil --import), the reboot into MokManager, driven over
#     the serial console (mokmanager.exp), then with it enrolled: once,
#     and where the system upgrades its kernel in that boot, once more,
#     the new kernel's.
# Usage: run.sh list                   the systems: "NAME RELEASE" lines
#        run.sh image NAME WORK [NOTES]
#                                      the system, made or made again when
#                                      its release's packages changed
#        run.sh prepare NAME WORK DEBS the run's disk; DEBS holds the
#                                      .debs of make deb
#        run.sh boot NAME WORK NOTES   its boots
# Prints "host system pass|fail NAME.<case> [detail]" lines; logs in WORK.
# image and prepare end non-zero where they could not make the system or
# the disk (make check then boots nothing: rig/check/graph.sh).
. "$(dirname "$0")/../../rig/lib/prelude.sh"

root=$(cd "$here/../.." && pwd)
rig=$root/rig
. "$rig/lib/apt-lib.sh"
. "$rig/lib/vm-lib.sh"

phase=$1 name=${2:-} work=${3:-} notes=/dev/null
ue_log_prefix="== system $name: "
version=$(cat "$root/VERSION")
result() { echo "host system $1 $name.$2${3:+ $3}"; }
check_eq() { # CASE GOT WANT
	if [ "$2" = "$3" ]; then result pass "$1"; else result fail "$1" "got '$2', want '$3'"; fi
}

# The OVMF of Debian's ovmf package: its Secure Boot build, and its
# variables with Microsoft's keys enrolled (which sign Debian's shim).
ovmf_code=/usr/share/OVMF/OVMF_CODE_4M.secboot.fd
ovmf_vars=/usr/share/OVMF/OVMF_VARS_4M.ms.fd
# The password mokutil --import is given, and MokManager then asks for.
mok_password=ue-test

sys_dir() { echo "$UE_CACHE/system/$1"; }
# The release and the kernel's suite of system NAME.
sys_fields() {
	awk -v n="$1" '!/^#/ && $1 == n { print $2, $3; f = 1 } END { exit !f }' "$here/systems.list"
}

# The environment of a command in the system's chroot: its own PATH (not
# make check's farm of the host's programs, which the chroot lacks).
chroot_env=(/usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8)

# ns_chroot DIR CMD...: CMD in the chroot DIR, with /proc and /dev, in a
# mount namespace of its own (the mounts go with it).
ns_chroot() {
	local d=$1
	shift
	unshare -m --propagation private sh -c '
		d=$1; shift
		mount -t proc proc "$d/proc" && mount --rbind /dev "$d/dev" &&
			exec chroot "$d" "$@"' _ "$d" "${chroot_env[@]}" "$@"
}

# --- the system, cached -------------------------------------------------------------
# What the system has besides minbase: systemd and udev, the release's
# kmod and DKMS with what makes and signs its key (openssl: on a user's
# machine ca-certificates brings it), mokutil, the initramfs, fsck for the
# root, what user-events-dev's build of the example needs (cc: gcc), and the
# release's kernel (its signed image) with its headers.
sys_pkgs() { # RELEASE
	echo "systemd,systemd-sysv,udev,kmod,dkms,openssl,ca-certificates,initramfs-tools,e2fsprogs,zstd,mokutil,procps,gcc,pkgconf,libc6-dev,linux-image-amd64,linux-headers-amd64"
}
# The kernel of another suite that a system is upgraded to (systems.list):
# its packages, downloaded into the system's $upgrade_archives (apt fetches
# only what it lacks), for apt to install from there at each run (the
# setup script and guest-test get both from here); without recommends, as
# guest-test installs them.
upgrade_archives=/var/cache/ue-upgrade
upgrade_pkgs="linux-image-amd64 linux-headers-amd64"
upgrade_download() { # ROOT SUITE
	ns_chroot "$1" sh -c "mkdir -p $upgrade_archives/partial &&
		apt-get install -q -y --download-only --no-install-recommends -t $2 -o Dir::Cache::archives=$upgrade_archives $upgrade_pkgs"
}
# The initramfs with the modules of QEMU's disk and the root's file system
# only (the kernel's postinst makes it; "most" would be 36 MB to unpack
# under TCG at every boot). A hook of mmdebstrap, before the kernel.
# shellcheck disable=SC2016
initramfs_hook='mkdir -p "$1/etc/initramfs-tools/conf.d" "$1/usr/share/initramfs-tools/modules.d" &&
	echo MODULES=list >"$1/etc/initramfs-tools/conf.d/ue-system-test" &&
	printf "virtio_pci\nvirtio_blk\next4\n" >"$1/usr/share/initramfs-tools/modules.d/ue-system-test"'
# The kernel's modules for what the guest does not have (no network,
# sound, USB, camera or GPU but the firmware's frame buffer; the input
# devices, PS/2, built in) are left out of the system, the upgrade's kernel
# too: dpkg's path-exclude, which mmdebstrap keeps in the system's
# /etc/dpkg/dpkg.cfg.d for the guest's apt. depmod reads every module,
# decompressing each: with all 4230 of trixie's kernel installed, it took
# 84 s under TCG after the first DKMS build beside the VM rows; and a
# package's unpack writes every file. (A pattern's * also matches "/":
# 5.10 and 6.1 ship /lib/modules, later kernels /usr/lib/modules.)
modules_left_out="drivers/media drivers/net drivers/iio drivers/usb drivers/hid drivers/hwmon drivers/input drivers/comedi drivers/gpu drivers/platform drivers/mtd sound net"
dpkg_excludes=()
for t in $modules_left_out; do dpkg_excludes+=("--dpkgopt=path-exclude=/*lib/modules/*/kernel/$t/*"); done
efi_pkgs="shim-signed shim-helpers-amd64-signed grub-efi-amd64-signed"

image() {
	local d rel ksuite want stamp kr a srcs=() uri s n
	d=$(sys_dir "$name")
	read -r rel ksuite < <(sys_fields "$name") || { result fail image "no system $name in systems.list"; return 1; }
	want=$(sys_pkgs "$rel") stamp="$want modules-left-out:$modules_left_out"
	[ "$ksuite" = "$rel" ] || stamp="$stamp upgrade:$ksuite"
	mkdir -p "$work"
	if [ "$(cat "$d/stamp" 2>/dev/null)" = "$stamp" ]; then
		# Made again when anything in it has a newer version.
		if ns_chroot "$d/root" apt-get update -q >"$work/apt-update.log" 2>&1; then
			n=$(ns_chroot "$d/root" apt-get -s -q dist-upgrade 2>>"$work/apt-update.log" | grep -c '^Inst ')
			if [ "$n" = 0 ] && [ "$ksuite" != "$rel" ] &&
			   ! upgrade_download "$d/root" "$ksuite" >"$work/upgrade-download.log" 2>&1; then
				result fail image "the $ksuite kernel's packages: $(tail -1 "$work/upgrade-download.log")"
				return 1
			fi
			[ "$n" != 0 ] || { result pass image; return 0; }
			log "$n packages of $rel changed: made again"
		else
			echo "NOTE: system $name: apt-get update failed ($(tail -1 "$work/apt-update.log")): the cached system as it is" >>"$notes"
			result pass image
			return 0
		fi
	fi
	kr=$(ue_keyring) || { result fail image "no Debian archive keyring"; return 1; }
	while read -r uri s; do srcs+=("deb $uri $s main"); done < <(ue_release_suites "$rel")
	[ ${#srcs[@]} -gt 0 ] || { result fail image "no mirror for $rel"; return 1; }
	a=$d.archives
	mkdir -p "$a" "$d"
	rm -rf "$d/root.new" "$d/efi.new"
	log "mmdebstrap $rel ($want)"
	# (the downloaded packages kept in $a for the next time it is made:
	# mmdebstrap's documented sync-in/sync-out of its apt cache)
	if ! unshare -m --propagation private mmdebstrap --mode=root --variant=minbase \
		--include="$want" --keyring="$kr" --aptopt='Acquire::Check-Valid-Until "false"' \
		"${dpkg_excludes[@]}" \
		--skip=cleanup/apt/lists --skip=download/empty --skip=essential/unlink \
		--setup-hook='mkdir -p "$1/var/cache/apt/archives"' \
		--setup-hook="sync-in $a /var/cache/apt/archives/" \
		--essential-hook="$initramfs_hook" \
		--customize-hook="sync-out /var/cache/apt/archives $a" \
		"$rel" "$d/root.new" "${srcs[@]}" </dev/null >"$work/mmdebstrap.log" 2>&1; then
		result fail image "mmdebstrap: $(grep -v '^I:' "$work/mmdebstrap.log" | tail -2 | tr '\n' ' ')"
		return 1
	fi
	rm -f "$d/root.new/var/cache/apt/archives/"*.deb
	# Shim, MokManager and GRUB: Debian's signed binaries, from the
	# release's packages (a user's grub-install puts the same files on the
	# EFI partition).
	mkdir -p "$d/efi.new/debs"
	if ! ns_chroot "$d/root.new" sh -c "cd /tmp && apt-get download -q $efi_pkgs" >"$work/efi.log" 2>&1; then
		result fail image "apt-get download $efi_pkgs: $(tail -1 "$work/efi.log")"
		return 1
	fi
	mv "$d/root.new"/tmp/*.deb "$d/efi.new/debs/"
	if [ "$ksuite" != "$rel" ] && ! upgrade_download "$d/root.new" "$ksuite" >"$work/upgrade-download.log" 2>&1; then
		result fail image "the $ksuite kernel's packages: $(tail -1 "$work/upgrade-download.log")"
		return 1
	fi
	for s in "$d/efi.new/debs/"*.deb; do dpkg-deb -x "$s" "$d/efi.new/x"; done
	for s in shim/shimx64.efi.signed shim/mmx64.efi.signed grub/x86_64-efi-signed/grubx64.efi.signed; do
		cp "$d/efi.new/x/usr/lib/$s" "$d/efi.new/" || { result fail image "no /usr/lib/$s in $efi_pkgs"; return 1; }
	done
	rm -rf "$d/efi.new/x" "$d/root" "$d/efi"
	mv "$d/root.new" "$d/root" && mv "$d/efi.new" "$d/efi" && echo "$stamp" >"$d/stamp"
	result pass image
}

# --- the run's system: the .debs installed in an overlay over it --------------------
# Run in the chroot of the run's system, as root, with the release, the
# kernel's suite, and for an upgrade its archives and packages.
# shellcheck disable=SC2016
setup_script='
set -eu
rel=$1 ksuite=$2 archives=$3 pkgs=$4
export DEBIAN_FRONTEND=noninteractive
# dpkg without a sync of every file it unpacks, here and in the apt runs
# of the booted system: the disk is thrown away after its boots, and under
# TCG each sync is a journal commit the guest emulates (the kernel upgrade
# of trixie unpacks thousands of header files: 350 s of one boot).
echo force-unsafe-io >/etc/dpkg/dpkg.cfg.d/ue-test-unsafe-io
if [ "$rel" = bullseye ]; then
	# DKMS 2.8 signs nothing by itself: the README'"'"'s steps for it, a key
	# and its sign_helper.sh as the sign_tool.
	openssl req -new -x509 -nodes -days 36500 -subj "/CN=DKMS module signing key" \
		-newkey rsa:2048 -keyout /root/mok.priv -outform DER -out /root/mok.der 2>/dev/null
	sed -i "s|^# *sign_tool=.*|sign_tool=\"/etc/dkms/sign_helper.sh\"|" /etc/dkms/framework.conf
	grep -q "^sign_tool=" /etc/dkms/framework.conf
fi
if [ "$ksuite" = "$rel" ]; then
	apt-get install -y -q /tmp/ue/user-events-dkms_*_all.deb /tmp/ue/user-events-dev_*_all.deb
else
	# The system that gets our package in its first boot (guest-test):
	# the .debs kept for it, and its kernel upgrade: the suite, the
	# release it installs, where apt finds it, what apt installs.
	cp /tmp/ue/*.deb /var/lib/ue-test/
	# shellcheck disable=SC2086
	r=$(apt-get install -s -q --no-download --no-install-recommends -t "$ksuite" -o Dir::Cache::archives="$archives" $pkgs |
		sed -n "s/^Inst linux-image-\([0-9][^ ]*\) .*/\1/p")
	test -n "$r"
	echo "$ksuite $r $archives $pkgs" >/var/lib/ue-test/upgrade
fi
cp /tmp/ue/example.c /var/lib/ue-test/
# A module built by hand with make (README, Building) from the package'"'"'s
# sources, for the kernel that boots first: the booted system signs it with
# the README'"'"'s command.
dpkg-deb -x /tmp/ue/user-events-dkms_*_all.deb /tmp/ue/x
cp -a /tmp/ue/x/usr/src/user-events-*/ /root/ue-hand
kr=$(basename "$(readlink -f /vmlinuz)")
make -s -C /root/ue-hand KDIR="/lib/modules/${kr#vmlinuz-}/build" >/root/ue-hand.log 2>&1 ||
	{ tail -5 /root/ue-hand.log; exit 1; }
test -f /root/ue-hand/user_events.ko
echo uetest >/etc/hostname
systemd-machine-id-setup >/dev/null
systemctl enable ue-system-test.service
# (nothing that starts on its own timer while the test runs; no login on
# the console the test writes to; no getty on the virtual consoles nobody
# looks at, nor e2scrub_reap: the test unit starts after multi-user.target,
# which waited for them, 2 to 8 s of each boot under TCG alone)
systemctl mask apt-daily.timer apt-daily-upgrade.timer e2scrub_all.timer fstrim.timer \
	serial-getty@ttyS0.service getty.target e2scrub_reap.service 2>/dev/null || :
'

# disk: the run's system as WORK/disk.img (GPT: the EFI partition, the root).
disk() {
	local d rel ksuite uuid rs esp=$work/esp.img rootimg=$work/root.img
	d=$(sys_dir "$name")
	read -r rel ksuite < <(sys_fields "$name")
	uuid=$(cat /proc/sys/kernel/random/uuid)
	rm -rf "$work/upper" "$work/ovw" "$work/merged" "$work/disk.img"
	mkdir -p "$work/upper" "$work/ovw" "$work/merged"
	log "our .debs with apt, DKMS in $rel's system"
	# shellcheck disable=SC2016
	if ! unshare -m --propagation private bash -c '
		set -e
		d=$1 w=$2 debs=$3 here=$4 root=$5 rel=$6 uuid=$7 script=$8 ksuite=$9 v=${10}
		archives=${11} pkgs=${12}
		shift 12	# (the rest: chroot_env)
		m=$w/merged
		mount -t overlay overlay -o "lowerdir=$d/root,upperdir=$w/upper,workdir=$w/ovw" "$m"
		mkdir -p "$m/tmp/ue" "$m/usr/local/lib/ue-test" "$m/var/lib/ue-test"
		cp "$debs/user-events-dkms_${v}_all.deb" "$debs/user-events-dev_${v}_all.deb" "$m/tmp/ue/"
		cp "$root/samples/example.c" "$m/tmp/ue/"
		install -m 755 "$here/guest-test" "$m/usr/local/lib/ue-test/guest-test"
		install -m 644 "$root/tests/userspace/lib.sh" "$m/usr/local/lib/ue-test/lib.sh"
		install -m 644 "$here/ue-system-test.service" "$m/etc/systemd/system/"
		echo "UUID=$uuid / ext4 rw,errors=remount-ro 0 1" >"$m/etc/fstab"
		(
			mount -t proc proc "$m/proc"
			mount --rbind /dev "$m/dev"
			chroot "$m" "$@" sh -c "$script" _ "$rel" "$ksuite" "$archives" "$pkgs"
		)
		# (what a maintainer script left running in it, then its mounts)
		for p in /proc/[0-9]*; do
			[ "$(readlink "$p/root" 2>/dev/null)" != "$m" ] || kill -9 "${p#/proc/}" 2>/dev/null || :
		done
		umount -R -l "$m/dev" "$m/proc"
		rm -rf "$m/tmp/ue"
		basename "$(readlink -f "$m/vmlinuz")" >"$w/vmlinuz.name"
		ls "$m"/boot/vmlinuz-* | wc -l >"$w/kernels.count"
		cat "$m/var/lib/ue-test/upgrade" >"$w/upgrade" 2>/dev/null || :
		sz=$(du -sm --apparent-size "$m" | cut -f1)
		mkfs.ext4 -q -F -U "$uuid" -L root -d "$m" "$w/root.img" "$(( sz * 13 / 10 + 300 ))M"
	' _ "$d" "$work" "$debs" "$here" "$root" "$rel" "$uuid" "$setup_script" "$ksuite" "$version" \
		"$upgrade_archives" "$upgrade_pkgs" "${chroot_env[@]}" \
		>"$work/setup.log" 2>&1; then
		result fail installed "$(tail -3 "$work/setup.log" | tr '\n' ' ')"
		return 1
	fi
	result pass installed
	rm -rf "$work/upper" "$work/ovw" "$work/merged"
	# GRUB's configuration, as update-grub would boot the newest kernel:
	# by the root's UUID, through the links Debian's kernel packages keep
	# (/vmlinuz names the newest: after an upgrade in the system, the
	# kernel apt installed), with the console on the serial port.
	cat >"$work/grub.cfg" <<EOF
set timeout=0
search --no-floppy --fs-uuid --set=root $uuid
linux /vmlinuz root=UUID=$uuid ro console=ttyS0,115200 quiet systemd.show_status=false
initrd /initrd.img
boot
EOF
	# The EFI partition: shim at the removable media path, GRUB and
	# MokManager beside it (no fallback: it would make boot entries and
	# reset), GRUB's configuration where Debian's signed GRUB looks.
	rm -f "$esp"
	truncate -s 64M "$esp"
	mkfs.fat -F 32 -n EFI "$esp" >/dev/null &&
		mmd -i "$esp" ::/EFI ::/EFI/BOOT ::/EFI/debian &&
		mcopy -i "$esp" "$d/efi/shimx64.efi.signed" ::/EFI/BOOT/BOOTX64.EFI &&
		mcopy -i "$esp" "$d/efi/mmx64.efi.signed" ::/EFI/BOOT/mmx64.efi &&
		mcopy -i "$esp" "$d/efi/grubx64.efi.signed" ::/EFI/BOOT/grubx64.efi &&
		mcopy -i "$esp" "$work/grub.cfg" ::/EFI/BOOT/grub.cfg &&
		mcopy -i "$esp" "$work/grub.cfg" ::/EFI/debian/grub.cfg ||
		{ result fail disk "the EFI partition could not be made"; return 1; }
	rs=$(stat -c %s "$rootimg")
	truncate -s "$(( 1 + 64 + rs / 1048576 + 1 ))M" "$work/disk.img"
	sfdisk -q "$work/disk.img" >/dev/null <<EOF &&
label: gpt
start=2048, size=131072, type=C12A7328-F81F-11D2-BA4B-00A0C93EC93B, name=ESP
start=133120, size=$(( rs / 512 )), type=0FC63DAF-8483-4772-8E79-3D69D8477DE4, name=root
EOF
	dd if="$esp" of="$work/disk.img" bs=1M seek=1 conv=notrunc,sparse status=none &&
		dd if="$rootimg" of="$work/disk.img" bs=1M seek=65 conv=notrunc,sparse status=none ||
		{ result fail disk "the GPT disk could not be made"; return 1; }
	rm -f "$esp" "$rootimg"
	result pass disk
}

# boot_mode MODE VARS N: the system booted N times under OVMF with Secure
# Boot on, each boot a QEMU of its own that guest-test powers off (the
# second boot finds what the first left on the disk, as after a reboot; a
# reset within one QEMU sometimes left OVMF spinning under TCG before it
# printed anything). The consoles in WORK/console-MODE-K.log.txt. Every
# boot must have begun and ended ("UE-BOOTED ... boot K", its KTAP suite
# "system" ended, read by rig/report/console-results.sh, whose
# suite_completed is the boot's "finished", and "UE-DONE"). A boot whose
# test has not begun after UE_SYSTEM_BOOT_TIMEOUT seconds (default 240; it begins about
# 15 s after the firmware), or whose kernel panicked before it, stalled
# before anything of ours ran: it is tried once more, said in a note.
boot_mode() {
	local mode=$1 vars=$2 n=$3 con k rc try splats t0 kr
	kr=$(cat "$work/vmlinuz.name")
	printf '%s %s %s %s %s %s\n' "$mode" "$n" "${kr#vmlinuz-}" "$(cat "$work/kernels.count")" \
		"$mok_password" "$(cat "$work/upgrade")" >"$work/control.img"
	truncate -s 4096 "$work/control.img"
	cp "$vars" "$work/vars-$mode.run.fd"
	for k in $(seq 1 "$n"); do
		con=$work/console-$mode-$k.log
		for try in 1 2; do
			t0=$(date +%s)
			boot_once "$con" &
			wait_booted "$con" $! "${UE_SYSTEM_BOOT_TIMEOUT:-240}"
			rc=$?
			log "$mode, boot $k of $n: $(( $(date +%s) - t0 ))s"
			[ $rc = 125 ] && [ $try = 1 ] || break
			mv "$con" "$con.stalled"
			echo "NOTE: system $name: boot $k ($mode) had not begun its test after ${UE_SYSTEM_BOOT_TIMEOUT:-240}s or its kernel panicked before it (firmware, GRUB or the kernel's boot under TCG), booted once more; console: $con.stalled" >>"$notes"
		done
		ue_console_text <"$con" >"$con.txt" 2>/dev/null
		# (each case under the system's name; the suite's suite_completed
		# as the boot's "finished")
		"$rig/report/console-results.sh" host "$con.txt" system |
			sed "s/^host system \([a-z]*\) suite_completed/host system \1 $name.$mode.boot$k.finished/; t
				s/^host [^ ]* \([a-z]*\) /host system \1 $name./"
		# (not at the start of a line: GRUB's colours may precede it)
		if ! grep -q "UE-BOOTED .* boot $k of $n, $mode\$" "$con.txt"; then
			result fail "$mode.boot$k.booted" "qemu status $rc, see $con.txt"
			continue
		fi
		result pass "$mode.boot$k.booted"
		check_eq "$mode.boot$k.powered_off" "$rc $(grep -c '^UE-DONE$' "$con.txt")" "0 1"
		splats=$(ue_splats "$con.txt")
		if [ -n "$splats" ]; then
			result fail "$mode.boot$k.no_kernel_splat" "$(ue_splat_summary "$con.txt" | tr '\n' '|')"
		else
			result pass "$mode.boot$k.no_kernel_splat"
		fi
	done
}

# qemu_argv VARS: the array sys_qemu, QEMU with OVMF's Secure Boot
# firmware and the variables VARS, the disk and the control disk, ended by
# the guest's reset or power-off (-no-reboot), its serial port left to the
# caller. (The disk is the run's, thrown away after its boots: the guest's
# flushes, which dpkg makes after every file, need not reach this
# machine's disk.) One vCPU, but for the system whose boots build the
# module with DKMS, twice (make -j2): the systems boot beside the VM rows,
# every core busy, where a guest's second vCPU spins while it waits for
# the first (IPIs, TLB shootdowns: a TCG guest has no paravirtual
# spinlocks); but the host shares its cores by thread, and on one vCPU
# beside the VM rows trixie's first DKMS build took 628 s (82 s on two,
# alone). What the module does on two CPUs the VM rows test.
qemu_argv() {
	local cpus=1
	[ ! -s "$work/upgrade" ] || cpus=2
	ue_qemu_argv amd64
	sys_qemu=(timeout "${UE_SYSTEM_TIMEOUT:-2400}" "${ue_qemu[@]}" -accel tcg,thread=multi
		-machine q35,smm=on -cpu max -m 1024 -smp "$cpus" -no-reboot
		-global driver=cfi.pflash01,property=secure,value=on
		-drive if=pflash,format=raw,unit=0,file="$ovmf_code",readonly=on
		-drive if=pflash,format=raw,unit=1,file="$1"
		-drive file="$work/disk.img",if=virtio,format=raw,cache=unsafe
		-drive file="$work/control.img",if=virtio,format=raw,readonly=on
		-display none -monitor none -nic none)
}

# boot_once CONSOLE: one QEMU run of the disk, until the guest powers off
# (or UE_SYSTEM_TIMEOUT seconds, default 2400, have passed: a boot that
# installs a kernel and builds the module for it takes 4 minutes alone,
# and trixie's first, its apt and DKMS, 1145 s beside the rest of make
# check on a slower 2-core machine, where 1200 s once cut it off).
boot_once() {
	rm -f "$1"
	qemu_argv "$work/vars-$mode.run.fd"
	exec "${sys_qemu[@]}" -serial file:"$1" </dev/null >"$1.qemu" 2>&1
}

# mokmanager: the reboot after the not-enrolled boot, whose mokutil --import
# queued the DKMS certificate: shim finds it and starts MokManager, which
# mokmanager.exp drives over the serial console as the README tells a
# user to. WORK/vars-mok.fd: the variables it leaves, for the enrolled
# boots. (The console in WORK/console-mokmanager.log.)
mokmanager() {
	local t0 rc
	t0=$(date +%s)
	cp "$work/vars-not-enrolled.run.fd" "$work/vars-mok.fd"
	qemu_argv "$work/vars-mok.fd"
	expect "$here/mokmanager.exp" "$work/console-mokmanager.log" "$mok_password" \
		"${sys_qemu[@]}" -serial stdio >"$work/mokmanager.out" 2>&1
	rc=$?
	log "MokManager: $(( $(date +%s) - t0 ))s"
	check_eq mokmanager.enrolled "$rc $(cat "$work/mokmanager.out")" "0 "
	return $rc
}

# wait_booted CONSOLE PID LIMIT: PID's status; 125 (and PID killed) when
# CONSOLE has no UE-BOOTED line after LIMIT seconds, or the kernel panicked
# before it (QEMU's stale int3 under TCG, at sched_clock_cpu when the
# kernel switches its clock's static key: docs/testing.md, Two CPUs).
wait_booted() {
	local waited=0
	while kill -0 "$2" 2>/dev/null && ! grep -aq 'UE-BOOTED' "$1" 2>/dev/null; do
		if [ $waited -ge "$3" ] || grep -aq 'end Kernel panic' "$1" 2>/dev/null; then
			kill "$2"
			wait "$2"
			return 125
		fi
		sleep 1
		waited=$((waited + 1))
	done
	wait "$2"
}

# prepare DEBS: the run's disk, WORK/disk.img (its own job, so that a
# system slot waits only for the boots); non-zero without it.
prepare() {
	debs=$1
	rm -f "$work/disk.img"
	[ -d "$(sys_dir "$name")/root" ] || { result fail installed "no system (its image job failed)"; return 1; }
	[ -f "$debs/user-events-dkms_${version}_all.deb" ] ||
		{ result fail installed "no .debs of $version in $debs (the debs job)"; return 1; }
	disk || { rm -f "$work/disk.img"; return 1; }
}

# boot NOTES: the boots of WORK/disk.img (prepare's).
boot() {
	notes=$1
	# The README's order: the key not enrolled (the module refused; then
	# mokutil --import), MokManager at the reboot, then the module loads.
	boot_mode not-enrolled "$ovmf_vars" 1
	# (MokManager's reboot is the first enrolled boot's test that the
	# module loads at boot; a second boot is for the upgrade's kernel only)
	if mokmanager; then
		boot_mode enrolled "$work/vars-mok.fd" "$([ -s "$work/upgrade" ] && echo 2 || echo 1)"
	else
		result fail enrolled.booted "not run: MokManager did not enroll the key"
	fi
	# (the consoles stay; the disk, 1.5 GB, does not)
	rm -f "$work/disk.img" "$work"/*.fd
}

case $phase in
list) awk '!/^#/ && NF { print $1, $2 }' "$here/systems.list" ;;
image) notes=${4:-/dev/null}; image || exit 1 ;;
prepare) prepare "$4" || exit 1 ;;
boot) boot "$4" ;;
*) echo "usage: run.sh list | image NAME WORK [NOTES] | prepare NAME WORK DEBS | boot NAME WORK NOTES" >&2; exit 2 ;;
esac
exit 0
