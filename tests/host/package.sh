#!/bin/bash
# Host checks of the packaging: dkms.conf, the .debs (make deb:
# user-events-dkms and user-events-dev), lintian, make install-headers, and
# make dkms-install / dkms-remove into private DKMS trees.
# Prints one line per check: "host package pass|fail <case> [detail]".
# Usage: package.sh KDIR RELEASE   (headers of a kernel to build for)
set -uo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
kdir=$1
release=$2
hostcheck_name=package
. "$root/rig/lib/hostcheck.sh"
version=$(cat "$root/VERSION")

check() { # case detail-if-failed command...
	local c=$1 d=$2
	shift 2
	if "$@" >/dev/null 2>&1; then result pass "$c"; else result fail "$c" "$d"; fi
}

# --- dkms.conf, sourced by bash as dkms does, from elsewhere -----------------
# conf_vars FILE: the variables dkms reads, one "NAME=value" a line.
conf_vars() {
	(cd / && bash -c '. "$1" && for v in PACKAGE_NAME PACKAGE_VERSION AUTOINSTALL CLEAN; do echo "$v=${!v}"; done &&
		echo "BUILT_MODULE_NAME0=${BUILT_MODULE_NAME[0]}" &&
		echo "DEST_MODULE_LOCATION0=${DEST_MODULE_LOCATION[0]}" &&
		echo "MAKE0=${MAKE[0]}"' conf "$1")
}
expect_vars() { # FILE
	local v
	v=$(conf_vars "$1") || return 1
	grep -qx "PACKAGE_NAME=user-events" <<<"$v" &&
	grep -qx "PACKAGE_VERSION=$version" <<<"$v" &&
	grep -qx "AUTOINSTALL=yes" <<<"$v" &&
	grep -qx "BUILT_MODULE_NAME0=user_events" <<<"$v" &&
	grep -qx "DEST_MODULE_LOCATION0=/updates/dkms" <<<"$v" &&
	grep -q '^MAKE0=make KDIR=.* modules$' <<<"$v" &&
	grep -qx 'CLEAN=make clean' <<<"$v"
}
check dkms_conf_checkout "variables of the checkout's dkms.conf" expect_vars "$root/dkms.conf"

# A kernel is skipped (BUILD_EXCLUSIVE_KERNEL set) exactly when
# scripts/check-kernel.sh refuses it: dkms.conf read as DKMS reads it for a
# kernel, with kernel_source_dir set. (No BUILD_EXCLUSIVE_CONFIG line at
# all: dh_dkms would make the package depend on a DKMS Debian 11 lacks.)
excl_of() { # KERNEL-SOURCE-DIR: what dkms.conf sets BUILD_EXCLUSIVE_KERNEL to
	(cd / && kernel_source_dir=$1 bash -c '. "$1" && echo "${BUILD_EXCLUSIVE_KERNEL-unset}"' conf "$root/dkms.conf")
}
fakekdir() { # DIR [DROP-OPTION] [ADD-LINE]: a copy of KDIR's configuration, edited
	mkdir -p "$1/include/config"
	grep -v "^${2:-NONE}=" "$kdir/include/config/auto.conf" >"$1/include/config/auto.conf"
	[ -z "${3:-}" ] || echo "$3" >>"$1/include/config/auto.conf"
}
fakekdir "$work/k-builtin" NONE CONFIG_USER_EVENTS=y
fakekdir "$work/k-nokprobes" CONFIG_KPROBES
check dkms_conf_builds_suitable "BUILD_EXCLUSIVE_KERNEL '$(excl_of "$kdir")' for $release" \
	test "$(excl_of "$kdir")" = unset
check dkms_conf_skips_builtin "BUILD_EXCLUSIVE_KERNEL '$(excl_of "$work/k-builtin")' for a USER_EVENTS=y kernel" \
	test "$(excl_of "$work/k-builtin")" = '^$'
check dkms_conf_skips_unsuitable "BUILD_EXCLUSIVE_KERNEL '$(excl_of "$work/k-nokprobes")' without KPROBES" \
	test "$(excl_of "$work/k-nokprobes")" = '^$'
check dkms_conf_no_config_directive "dkms.conf has a BUILD_EXCLUSIVE_CONFIG= line" \
	sh -c "! grep -q 'BUILD_EXCLUSIVE_CONFIG=' '$root/dkms.conf'"

# --- make deb, on a copy of the checkout ---------------------------------------
copy=$work/tree
make -s -C "$root" copy-package-tree DEST="$copy"
deb=$copy/build/deb/user-events-dkms_${version}_all.deb
devdeb=$copy/build/deb/user-events-dev_${version}_all.deb
if make -C "$copy" deb >"$work/deb.log" 2>&1 && [ -f "$deb" ] && [ -f "$devdeb" ]; then
	result pass deb_builds
else
	result fail deb_builds "$(tail -3 "$work/deb.log" | tr '\n' '|')"
fi
# Its closing lines name both packages (make's own lines aside).
deb_said=$(grep -v '^make\(\[[0-9]*\]\)\{0,1\}: ' "$work/deb.log" | tail -2)
check deb_names_both "make deb's last lines: $(echo "$deb_said" | tr '\n' '|')" \
	test "$deb_said" = "$(printf 'built: %s\nbuilt: %s' "$deb" "$devdeb")"
if [ -f "$deb" ]; then
	list=$(dpkg-deb -c "$deb" | awk '{ print $6 }')
	missing=
	for f in dkms.conf Makefile Kbuild VERSION scripts/check-kernel.sh scripts/probes.sh \
		 src/compat/probes.mk include/uapi/linux/user_events.h $(cd "$root" && ls src/*.[ch] src/compat/*.[ch] \
			src/compat/probe/*.c src/private/*.[ch] | grep -v '/ue_\(sysmap\|probes\)\.h$'); do
		grep -qx "./usr/src/user-events-$version/$f" <<<"$list" || missing+=" $f"
	done
	grep -qx ./usr/lib/modules-load.d/user-events.conf <<<"$list" || missing+=" modules-load.d"
	grep -qx ./etc/modprobe.d/user-events-dkms.conf <<<"$list" || missing+=" modprobe.d"
	# The tracefs root's search permission for gid='s group, at every load
	# (the booted-system test, tests/system/, shows it at work).
	# (debhelper 13.11, Debian 12's, puts units and rules under /lib;
	# later ones under /usr/lib)
	for f in usr/lib/user-events-dkms/user-events-tracefs-access usr/bin/user-events-check \
		 '(usr/)?lib/systemd/system/user-events-tracefs-access\.service' \
		 '(usr/)?lib/udev/rules\.d/60-user-events-dkms\.rules' \
		 usr/share/doc/user-events-dkms/README.md.gz; do
		grep -qxE "\./$f" <<<"$list" || missing+=" /$f"
	done
	if [ -z "$missing" ]; then result pass deb_contents; else result fail deb_contents "missing:$missing"; fi

	mkdir -p "$work/x"
	dpkg-deb -x "$deb" "$work/x"
	check deb_modules_load "modules-load.d file is not 'user_events'" \
		grep -qx user_events "$work/x/usr/lib/modules-load.d/user-events.conf"
	# The group access example: a conffile whose lines are all comments,
	# the options line among them.
	check deb_modprobe_conffile "/etc/modprobe.d/user-events-dkms.conf is not a conffile" \
		sh -c "dpkg-deb --ctrl-tarfile '$deb' | tar -xO ./conffiles | grep -qx /etc/modprobe.d/user-events-dkms.conf"
	check deb_modprobe_commented "user-events-dkms.conf has a line that is not a comment" \
		sh -c "! grep -qv '^#\|^\$' '$work/x/etc/modprobe.d/user-events-dkms.conf'"
	check deb_modprobe_example "user-events-dkms.conf lacks '#options user_events gid=GID'" \
		grep -qx '#options user_events gid=GID' "$work/x/etc/modprobe.d/user-events-dkms.conf"
	check deb_dkms_conf "packaged dkms.conf" expect_vars "$work/x/usr/src/user-events-$version/dkms.conf"
	check deb_dkms_conf_literal "packaged dkms.conf has no literal version" \
		grep -qx "PACKAGE_VERSION=\"$version\"" "$work/x/usr/src/user-events-$version/dkms.conf"
	fields() { [ "$(dpkg-deb -f "$deb" Package Version Architecture)" = \
		"$(printf 'Package: user-events-dkms\nVersion: %s\nArchitecture: all' "$version")" ] &&
		dpkg-deb -f "$deb" Depends | grep -q '^dkms\b'; }
	check deb_control "Package/Version/Architecture/Depends" fields
	# Debian 11 has DKMS 2.8 (the install test installs the .deb there).
	check deb_depends_dkms_2 "Depends: $(dpkg-deb -f "$deb" Depends 2>&1), want dkms (>= 2.1.0.0)" \
		sh -c "dpkg-deb -f '$deb' Depends | tr ',' '\n' | grep -qx ' *dkms (>= 2.1.0.0)'"
	dpkg-deb --ctrl-tarfile "$deb" | tar -xO ./postinst >"$work/postinst" 2>/dev/null
	check deb_postinst_modprobe "postinst does not try modprobe user_events" \
		grep -q 'modprobe user_events' "$work/postinst"
	check deb_postinst_syntax "postinst: sh -n fails" sh -n "$work/postinst"

	# Warnings are allowed; any error (or lintian not running) fails.
	if lintian --fail-on error "$deb" >"$work/lintian.log" 2>&1; then
		result pass lintian_no_errors
	else
		result fail lintian_no_errors "$(grep -v '^N:' "$work/lintian.log" | head -3 | tr '\n' '|')"
	fi
fi

# --- user-events-dev: the UAPI header and user-events.pc ---------------------
# The .pc file make install-headers writes for PREFIX.
pc_of() { # PREFIX
	printf '%s\n' "prefix=$1" 'includedir=${prefix}/include' '' 'Name: user-events' \
		'Description: Linux user_events tracing UAPI header (the 6.4+ ABI) of user-events-dkms' \
		"Version: $version" 'Cflags: -I${includedir}/user-events'
}
# cflags_ok CASE DIR PKG_CONFIG-ENV...: pkg-config --cflags user-events,
# with the environment given, is exactly -IDIR (pkgconf ends it with a
# space); gcc builds samples/example.c with it, statically, and the header
# it read is DIR/linux/user_events.h.
cflags_ok() {
	local c=$1 dir=$2 got deps
	shift 2
	got=$(env "$@" pkg-config --cflags user-events 2>&1 | sed 's/ *$//')
	if [ "$got" = "-I$dir" ]; then result pass "$c.pkg_config_cflags"
	else result fail "$c.pkg_config_cflags" "'$got', want '-I$dir'"; fi
	# shellcheck disable=SC2086
	if gcc $got -static -O2 -Wall -Wextra -Werror -o "$work/$c.example" "$root/samples/example.c" \
		>"$work/$c.cc.log" 2>&1 && [ -x "$work/$c.example" ]; then
		result pass "$c.example_builds"
	else
		result fail "$c.example_builds" "$(head -2 "$work/$c.cc.log" | tr '\n' '|')"
	fi
	# shellcheck disable=SC2086
	deps=$(gcc $got -M "$root/samples/example.c" 2>/dev/null | tr ' \\' '\n\n' | grep 'user_events\.h$')
	check "$c.example_header" "example.c read '${deps//$'\n'/ }', want $dir/linux/user_events.h" \
		test "$deps" = "$dir/linux/user_events.h"
}

if [ -f "$devdeb" ]; then
	mkdir -p "$work/dev"
	dpkg-deb -x "$devdeb" "$work/dev"
	# Exactly these files (the directories aside).
	check dev_deb_contents "files: $(dpkg-deb -c "$devdeb" | awk '$1 !~ /^d/ { print $6 }' | tr '\n' ' ')" \
		test "$(dpkg-deb -c "$devdeb" | awk '$1 !~ /^d/ { print $6 }' | sort)" = \
		"$(printf '%s\n' ./usr/include/user-events/linux/user_events.h \
			./usr/share/doc/user-events-dev/changelog.gz ./usr/share/doc/user-events-dev/copyright \
			./usr/share/pkgconfig/user-events.pc)"
	check dev_deb_header "the packaged header differs from include/uapi/linux/user_events.h" \
		cmp "$root/include/uapi/linux/user_events.h" "$work/dev/usr/include/user-events/linux/user_events.h"
	check dev_deb_pc "user-events.pc: $(grep '^Cflags' "$work/dev/usr/share/pkgconfig/user-events.pc" 2>&1)" \
		cmp <(pc_of /usr) "$work/dev/usr/share/pkgconfig/user-events.pc"
	devfields() { [ "$(dpkg-deb -f "$devdeb" Package Source Version Architecture Section Multi-Arch Depends)" = \
		"$(printf 'Package: user-events-dev\nSource: user-events-dkms\nVersion: %s\nArchitecture: all\nSection: libdevel\nMulti-Arch: foreign\nDepends: linux-libc-dev' "$version")" ]; }
	check dev_deb_control "$(dpkg-deb -f "$devdeb" Package Source Version Architecture Section Multi-Arch Depends | tr '\n' '|')" \
		devfields
	if lintian --fail-on error,warning "$devdeb" >"$work/lintian-dev.log" 2>&1; then
		result pass dev_lintian_clean
	else
		result fail dev_lintian_clean "$(grep -v '^N:' "$work/lintian-dev.log" | head -3 | tr '\n' '|')"
	fi
	# As a program's build finds it once the package is installed, here in
	# the extracted tree (the sysroot).
	cflags_ok dev_deb "$work/dev/usr/include/user-events" \
		PKG_CONFIG_PATH="$work/dev/usr/share/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$work/dev"
fi

# make install-headers PREFIX=...: the same two files, for that prefix.
make -C "$copy" install-headers PREFIX="$work/prefix" >"$work/install-headers.log" 2>&1
check install_headers_files "files: $(cd "$work/prefix" 2>/dev/null && find . -type f | tr '\n' ' ')" \
	test "$(cd "$work/prefix" && find . -type f | sort)" = \
	"$(printf '%s\n' ./include/user-events/linux/user_events.h ./share/pkgconfig/user-events.pc)"
check install_headers_header "the installed header differs from include/uapi/linux/user_events.h" \
	cmp "$root/include/uapi/linux/user_events.h" "$work/prefix/include/user-events/linux/user_events.h"
check install_headers_pc "user-events.pc for PREFIX=$work/prefix: $(head -1 "$work/prefix/share/pkgconfig/user-events.pc" 2>&1)" \
	cmp <(pc_of "$work/prefix") "$work/prefix/share/pkgconfig/user-events.pc"
cflags_ok install_headers "$work/prefix/include/user-events" PKG_CONFIG_PATH="$work/prefix/share/pkgconfig"
# With DESTDIR, as debian/rules runs it: the package's files.
make -C "$copy" install-headers PREFIX=/usr DESTDIR="$work/destdir" >"$work/install-headers-destdir.log" 2>&1
check install_headers_destdir "PREFIX=/usr DESTDIR=...: not the package's user-events.pc" \
	cmp <(pc_of /usr) "$work/destdir/usr/share/pkgconfig/user-events.pc"

# --- make dkms-install / dkms-remove, into private trees -----------------------
# dkms's own trees and the install tree under $work, the kernel's headers
# from KDIR, no depmod: nothing of the machine's /lib/modules is touched.
d=$work/dkms
mkdir -p "$d/src" "$d/tree" "$d/inst/$release"
# The installed module: user_events.ko, or .ko.xz/.ko.zst/.ko.gz where the
# kernel compresses its modules (6.12), as DKMS and modules_install then do.
inst_ko() { ls "$d/inst/$release/updates/dkms/user_events.ko"* 2>/dev/null | head -1; }
dkms_cmd="env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL dkms --dkmstree $d/tree --sourcetree $d/src \
--installtree $d/inst --kernelsourcedir $kdir --no-depmod"
make -C "$copy" dkms-install KERNELRELEASE="$release" DKMS="$dkms_cmd" \
	DKMS_SRC="$d/src/user-events-$version" >"$work/dkms-install.log" 2>&1
check dkms_install "see make dkms-install's output" \
	sh -c "[ -n '$(inst_ko)' ]"
check dkms_install_version "installed module's version is not $version" \
	sh -c "modinfo -F version '$(inst_ko)' | grep -qx '$version'"
# A second run reinstalls (the version added before is removed first).
rm -f "$d/inst/$release/updates/dkms/user_events.ko"*
make -C "$copy" dkms-install KERNELRELEASE="$release" DKMS="$dkms_cmd" \
	DKMS_SRC="$d/src/user-events-$version" >"$work/dkms-install2.log" 2>&1
check dkms_install_again "second make dkms-install failed" \
	sh -c "[ -n '$(inst_ko)' ]"

# make install: modules_install and depmod, into a scratch root.
make -C "$copy" install KDIR="$kdir" INSTALL_MOD_PATH="$work/root" >"$work/install.log" 2>&1
check make_install "user_events.ko not installed in updates/ and in modules.dep" \
	grep -qE '^updates/user_events\.ko(\.xz|\.zst|\.gz)?:' "$work/root/lib/modules/$release/modules.dep"

# A kernel with CONFIG_USER_EVENTS=y is skipped (dkms status 77), not failed.
fake=$work/fake-kdir
mkdir -p "$fake"
{ cat "$kdir/.config"; echo CONFIG_USER_EVENTS=y; } >"$fake/.config"
$dkms_cmd build -m user-events -v "$version" -k 9.9.9-fake --kernelsourcedir "$fake" \
	>"$work/dkms-skip.log" 2>&1
rc=$?
if [ $rc = 77 ]; then result pass dkms_skips_builtin
else result fail dkms_skips_builtin "dkms build status $rc, expected 77"; fi

make -C "$copy" dkms-remove DKMS="$dkms_cmd" DKMS_SRC="$d/src/user-events-$version" \
	>"$work/dkms-remove.log" 2>&1
check dkms_remove "module or sources left after make dkms-remove" \
	sh -c "[ -z '$(inst_ko)' ] && [ ! -e '$d/src/user-events-$version' ] && [ ! -e '$d/tree/user-events' ]"
exit 0
