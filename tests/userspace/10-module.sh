# Module lifecycle: load line, files and modes, modinfo, double load, refusal
# when user_events_data already exists, rmmod while a file is open, clean
# unload, reload; kernel.user_events_max comes and goes with the module, and
# so does its debugfs state file; the files' group and mode from gid= and
# mode= (group_test); a removed event's file held with O_PATH across an unload
# and a reload; what user-events-check says where the kernel has user_events
# itself, and where nothing provides it.
SUITE=module
. /tests/lib.sh
KO=/modules/user_events.ko
# A copy under another name: the race build (35-race.sh), which without a
# race_site is the shipped code.
TWIN=/modules/user_events_race.ko
VER=$(cat /modules/VERSION)
REL=$(uname -r)
T=/sys/kernel/tracing
D=/sys/kernel/debug/tracing

ue_nok not_loaded_at_start test -e /sys/module/user_events
ue_nok no_data_file_at_start test -e $T/user_events_data
ue_nok no_sysctl_at_start test -e /proc/sys/kernel/user_events_max

# The check walks the dynamic events that exist: a kprobe event here
# (every kernel of the matrix has kprobe events; 5.10 has no synthetic ones).
ue_ok kprobe_before_load sh -c "echo 'p:ue_verify_kp vfs_read' >>$T/kprobe_events"
ue_ok insmod insmod $KO
ue_ok kprobe_removed sh -c "echo '-:ue_verify_kp' >>$T/kprobe_events"
ue_eq load_line "$(ue_count_dmesg_text "] user_events: user-events-dkms $VER loaded on Linux $REL")" 1
ue_ok sysfs_module test -d /sys/module/user_events
for f in user_events_data user_events_status; do
	ue_ok "tracing.$f.exists" test -f $T/$f
	ue_ok "debug_tracing.$f.exists" test -f $D/$f
	ue_eq "$f.owner" "$(stat -c %u:%g $T/$f)" 0:0
done
ue_eq user_events_data.mode "$(stat -c %a $T/user_events_data)" 640
ue_eq user_events_status.mode "$(stat -c %a $T/user_events_status)" 440
ue_eq debug_tracing.user_events_data.mode "$(stat -c %a $D/user_events_data)" 640
ue_eq debug_tracing.user_events_status.mode "$(stat -c %a $D/user_events_status)" 440
ue_eq sysctl.mode "$(stat -c %a /proc/sys/kernel/user_events_max)" 644
ue_eq sysctl.default "$(cat /proc/sys/kernel/user_events_max)" 32768
# Our own debugfs file (not upstream's): what the module holds.
S=/sys/kernel/debug/user_events_dkms/state
ue_eq debugfs.state.mode "$(stat -c %a $S)" 400
ue_eq debugfs.state "$(cat $S | tr '\n' ' ')" "events 0 orphans 0 address_spaces 0 queued_work 0 "

ue_eq modinfo.license "$(modinfo -F license $KO)" GPL
ue_eq modinfo.version "$(modinfo -F version $KO)" "$VER"
ue_ok modinfo.description test -n "$(modinfo -F description $KO)"
ue_ok modinfo.author test -n "$(modinfo -F author $KO)"
ue_eq sysfs.version "$(cat /sys/module/user_events/version)" "$VER"

# The same module again: the module loader refuses it; nothing changes.
ue_eq insmod_twice_eexist "$(/tests/bin/ue_modctl load $KO)" EEXIST
ue_ok still_loaded test -f $T/user_events_data
ue_eq load_line_once "$(ue_count_dmesg 'user_events: user-events-dkms .* loaded')" 1

# A second copy under another name: our init finds user_events_data in
# tracefs and refuses with EBUSY (not EEXIST, which modprobe would take for
# "already loaded", and which 7.x's loader turns into EBUSY) and one line.
ue_eq twin_ebusy "$(/tests/bin/ue_modctl load $TWIN)" EBUSY
ue_eq twin_dmesg_line "$(ue_count_dmesg '^(\[[ 0-9.]*\] )?user_events_race: cannot load: user_events_data already exists in tracefs')" 1
ue_eq twin_dmesg_one_line "$(ue_count_dmesg 'user_events_race:')" 1
ue_nok twin_not_loaded test -e /sys/module/user_events_race
ue_ok files_kept_after_twin test -f $T/user_events_status
ue_eq sysctl_kept_after_twin "$(cat /proc/sys/kernel/user_events_max)" 32768

# A kernel whose private layouts differ from ours, played by a build with two
# members of struct dyn_event_operations swapped: the load-time check refuses
# it with one line, before anything is registered (here beside the loaded
# module, whose own operations it checks too).
SKEW=/modules/user_events_skew.ko
ue_eq skew_refused "$(/tests/bin/ue_modctl load $SKEW)" ENOEXEC
ue_eq skew_dmesg_line "$(ue_count_dmesg '^(\[[ 0-9.]*\] )?user_events_skew: cannot load: this kernel.s struct dyn_event_operations differs')" 1
ue_eq skew_dmesg_one_line "$(ue_count_dmesg 'user_events_skew:')" 1
ue_nok skew_not_loaded test -e /sys/module/user_events_skew
ue_ok files_kept_after_skew test -f $T/user_events_data
# A kernel that lacks a symbol the module resolves, played by the same build
# asking for one no kernel has: refused with one line naming it, ENOENT,
# before the layout check.
ue_eq missing_symbol_refused \
	"$(/tests/bin/ue_modctl load $SKEW test_missing_symbol=ue_no_such_symbol)" ENOENT
ue_eq missing_symbol_dmesg_line "$(ue_count_dmesg '^(\[[ 0-9.]*\] )?user_events_skew: cannot load: kernel symbol ue_no_such_symbol not found$')" 1
ue_eq missing_symbol_one_line "$(ue_count_dmesg 'user_events_skew:')" 2
ue_nok missing_symbol_not_loaded test -e /sys/module/user_events_skew
# Where the addresses of kernel data come from the kernel's System.map (no
# CONFIG_KALLSYMS_ALL, private/sysmap.h), a map that is not this kernel's,
# played by the same build: one whose functions are not all the same
# distance from where the kernel has them, or all of whose addresses are
# 64 KiB off (linux_banner is not there). Refused with one line each,
# ENOEXEC, before anything is read through them.
if modinfo -F parmtype $SKEW | grep -q '^test_offset_skew:'; then
	ue_eq sysmap_anchor_refused "$(/tests/bin/ue_modctl load $SKEW test_anchor_skew=4096)" ENOEXEC
	ue_eq sysmap_anchor_dmesg_line "$(ue_count_dmesg '^(\[[ 0-9.]*\] )?user_events_skew: cannot load: .* is not this kernel.s System.map \(its functions are not where the kernel.s are\): rebuild the module for this kernel$')" 1
	ue_eq sysmap_anchor_one_line "$(ue_count_dmesg 'user_events_skew:')" 3
	ue_eq sysmap_offset_refused "$(/tests/bin/ue_modctl load $SKEW test_offset_skew=65536)" ENOEXEC
	ue_eq sysmap_offset_dmesg_line "$(ue_count_dmesg '^(\[[ 0-9.]*\] )?user_events_skew: cannot load: .* is not this kernel.s System.map \(linux_banner differs\): rebuild the module for this kernel$')" 1
	ue_eq sysmap_offset_one_line "$(ue_count_dmesg 'user_events_skew:')" 4
	ue_nok sysmap_not_loaded test -e /sys/module/user_events_skew
fi
# Where removed events' files are pinned (5.10 and 6.1, private/removed_event.h),
# the core's file_cachep, which they are freed into, not what we take it for,
# played by the same build: a pointer to no slab object (read without an
# oops), or a cache of objects too small. Refused with one line each, ENOEXEC.
if modinfo -F parmtype $SKEW | grep -q '^test_file_cache_ptr:'; then
	n=$(ue_count_dmesg 'user_events_skew:')
	ue_eq file_cache_ptr_refused "$(/tests/bin/ue_modctl load $SKEW test_file_cache_ptr=1)" ENOEXEC
	ue_eq file_cache_size_refused "$(/tests/bin/ue_modctl load $SKEW test_file_cache_size=65536)" ENOEXEC
	ue_eq file_cache_dmesg_lines "$(ue_count_dmesg '^(\[[ 0-9.]*\] )?user_events_skew: cannot load: this kernel.s file_cachep differs')" 2
	ue_eq file_cache_one_line_each "$(ue_count_dmesg 'user_events_skew:')" $((n + 2))
	ue_nok file_cache_not_loaded test -e /sys/module/user_events_skew
fi

# An open file pins the module.
for f in user_events_data user_events_status; do
	exec 3<$T/$f
	ue_eq "$f.open_refcnt" "$(cat /sys/module/user_events/refcnt)" 1
	ue_eq "$f.rmmod_while_open" "$(/tests/bin/ue_modctl unload user_events)" EAGAIN
	ue_ok "$f.kept_while_open" test -f $T/$f
	exec 3<&-
done
ue_eq refcnt_after_close "$(cat /sys/module/user_events/refcnt)" 0

ue_ok rmmod rmmod user_events
ue_nok sysfs_gone test -e /sys/module/user_events
for f in user_events_data user_events_status; do
	ue_nok "tracing.$f.gone" test -e $T/$f
	ue_nok "debug_tracing.$f.gone" test -e $D/$f
done
ue_eq tracefs_root_clean "$(ls $T | grep -c user_events)" 0
ue_nok sysctl_gone test -e /proc/sys/kernel/user_events_max
ue_nok debugfs_gone test -e /sys/kernel/debug/user_events_dkms
ue_eq unload_line "$(ue_count_dmesg 'user_events: unloaded$')" 1

# Reload, and unload again.
ue_ok reload insmod $KO
ue_ok reload.files test -f $T/user_events_data -a -f $T/user_events_status
ue_eq reload.load_lines "$(ue_count_dmesg 'user_events: user-events-dkms .* loaded')" 2
ue_ok reload.rmmod rmmod user_events
ue_nok reload.gone test -e $T/user_events_data
ue_nok reload.sysctl_gone test -e /proc/sys/kernel/user_events_max

# kernel.user_events_max goes with the module: a value set does not
# survive an unload.
ue_ok sysctl_reload.insmod insmod $KO
ue_ok sysctl_reload.set sh -c 'echo 5 >/proc/sys/kernel/user_events_max'
ue_eq sysctl_reload.value "$(cat /proc/sys/kernel/user_events_max)" 5
ue_ok sysctl_reload.rmmod rmmod user_events
ue_ok sysctl_reload.insmod_again insmod $KO
ue_eq sysctl_reload.default "$(cat /proc/sys/kernel/user_events_max)" 32768
ue_ok sysctl_reload.rmmod_again rmmod user_events

# Group access that survives a reload: gid= and mode= give the files their
# group and mode when they are created (mode= is user_events_data's,
# user_events_status gets its read bits), shown read-only in sysfs; group_test
# checks what a member, a member with CAP_PERFMON and an outsider may do. A
# bad value refuses the load, EINVAL, with one line naming the parameter; a
# load without them has upstream's 0640/0440 and tracefs's group again.
ue_eq modinfo.parm.gid "$(modinfo -F parm $KO | grep -c '^gid:Group (a number) of user_events_data and user_events_status')" 1
ue_eq modinfo.parm.mode "$(modinfo -F parm $KO | grep -c '^mode:Octal mode of user_events_data')" 1
P=/sys/module/user_events/parameters
ue_ok group.insmod insmod $KO gid=1000 mode=0660
ue_eq group.sysfs_gid "$(cat $P/gid)" 1000
ue_eq group.sysfs_mode "$(cat $P/mode)" 0660
ue_eq group.sysfs_gid_perm "$(stat -c %a $P/gid)" 444
ue_eq group.data "$(stat -c '%u:%g %a' $T/user_events_data)" "0:1000 660"
ue_eq group.status "$(stat -c '%u:%g %a' $T/user_events_status)" "0:1000 440"
ue_eq group.debug_data "$(stat -c '%u:%g %a' $D/user_events_data)" "0:1000 660"
ue_eq group.debug_status "$(stat -c '%u:%g %a' $D/user_events_status)" "0:1000 440"
/tests/bin/group_test 1000 0660
ue_eq group.group_test_exit_status $? 0
ue_ok group.rmmod rmmod user_events
# mode= alone keeps tracefs's group; gid= alone makes user_events_data
# group-writable (0660: a read-only open is of no use); the highest group
# id and the widest mode load too.
ue_ok group.mode_only.insmod insmod $KO mode=600
ue_eq group.mode_only.sysfs_gid "$(cat $P/gid)" ""
ue_eq group.mode_only.data "$(stat -c '%u:%g %a' $T/user_events_data)" "0:0 600"
ue_eq group.mode_only.status "$(stat -c '%u:%g %a' $T/user_events_status)" "0:0 400"
ue_ok group.mode_only.rmmod rmmod user_events
ue_ok group.gid_only.insmod insmod $KO gid=4294967294
ue_eq group.gid_only.sysfs_mode "$(cat $P/mode)" 0660
ue_eq group.gid_only.data "$(stat -c '%u:%g %a' $T/user_events_data)" "0:4294967294 660"
ue_eq group.gid_only.status "$(stat -c '%u:%g %a' $T/user_events_status)" "0:4294967294 440"
ue_ok group.gid_only.rmmod rmmod user_events
ue_ok group.widest.insmod insmod $KO gid=0 mode=0777
ue_eq group.widest.data "$(stat -c '%u:%g %a' $T/user_events_data)" "0:0 777"
ue_eq group.widest.status "$(stat -c '%u:%g %a' $T/user_events_status)" "0:0 444"
ue_ok group.widest.rmmod rmmod user_events
for bad in gid=4294967295 gid=4294967296 gid=-1 gid=abc gid=0x10 gid=12x gid= \
	   mode=1000 mode=01777 mode=4755 mode=0x1ff mode=abc mode=8 mode=-1 mode=; do
	n=$(ue_count_dmesg 'user_events:')
	case $bad in
	gid=*) why='is not a group id (a number from 0 to 4294967294)' ;;
	*) why='is not a file mode (octal, at most 0777)' ;;
	esac
	ue_eq "group.bad.$bad" "$(/tests/bin/ue_modctl load $KO "$bad")" EINVAL
	ue_eq "group.bad.$bad.dmesg_line" \
		"$(ue_count_dmesg_text "] user_events: cannot load: $bad $why")" 1
	ue_eq "group.bad.$bad.one_line" "$(ue_count_dmesg 'user_events:')" $((n + 1))
	ue_nok "group.bad.$bad.not_loaded" test -e /sys/module/user_events
	ue_nok "group.bad.$bad.no_file" test -e $T/user_events_data
done
# A bad value beside a good one still refuses.
ue_eq group.bad_beside_good "$(/tests/bin/ue_modctl load $KO 'gid=1000 mode=0x1')" EINVAL
ue_nok group.bad_beside_good.not_loaded test -e /sys/module/user_events
ue_ok group.defaults.insmod insmod $KO
ue_eq group.defaults.sysfs_gid "$(cat $P/gid)" ""
ue_eq group.defaults.sysfs_mode "$(cat $P/mode)" 0640
ue_eq group.defaults.data "$(stat -c '%u:%g %a' $T/user_events_data)" "0:0 640"
ue_eq group.defaults.status "$(stat -c '%u:%g %a' $T/user_events_status)" "0:0 440"
ue_ok group.defaults.rmmod rmmod user_events

# A file kept open with O_PATH pins no module; reopened through /proc/self/fd
# after the unload, it must be refused (EIO, the kernel's bad inode), not
# reach the freed module's operations (an oops). The splat scan checks that
# nothing else was printed.
for f in user_events_data user_events_status; do
	ue_ok "opath.$f.insmod" insmod $KO
	ue_eq "opath.$f.unload_then_reopen" \
		"$(/tests/bin/ue_modctl reopen $T/$f user_events | tr '\n' ' ')" "OK EIO "
	ue_nok "opath.$f.unloaded" test -e /sys/module/user_events
done

# A removed event's enable file held with O_PATH across an unload and a
# reload. O_PATH takes no reference to the core's trace_event_file, so where
# the module pins removed events' files (5.10 and 6.1) an exit that dropped
# the last one would free the file while the inode still points at it: the
# reopen after the reload would read freed memory, and on both kernels enable
# one of the kprobe events whose files reused it. So the exit keeps such a
# file, with one line, and the reopen is ENODEV (opath_test). 6.6+ (eventfs)
# pins nothing: no line there.
KEPT='^(\[[ 0-9.]*\] )?user_events: kept 1 removed event files that descriptors still reach$'
kept=0
if modinfo -F parmtype $SKEW | grep -q '^test_file_cache_ptr:'; then
	kept=1
fi
ue_ok opath_kept.insmod insmod $KO
/tests/bin/opath_test $KO
ue_eq opath_kept.exit_status $? 0
ue_ok opath_kept.rmmod rmmod user_events
ue_eq opath_kept.dmesg_line "$(ue_count_dmesg "$KEPT")" $kept
ue_eq opath_kept.one_line "$(ue_count_dmesg 'user_events: kept ')" $kept
ue_nok opath_kept.unloaded test -e /sys/module/user_events

# The package's diagnosis (tools/user-events-check), as root, on a kernel
# that provides user_events itself: played by the twin loaded alone, whose
# files the check finds with no module user_events loaded, as it finds a
# built-in user_events. No Debian kernel has CONFIG_USER_EVENTS=y.
CHECK=/tests/bin/user-events-check
ue_ok check_builtin.insmod insmod $TWIN
$CHECK >/tmp/check.out 2>&1
ue_eq check_builtin.status $? 0
ue_eq check_builtin.says "$(grep -c "^ok:   the running kernel $(uname -r) has user_events built in (CONFIG_USER_EVENTS=y): the module is not needed\$" /tmp/check.out)" 1
ue_eq check_builtin.tracefs "$(grep -c "^ok:   tracefs is at $T\$" /tmp/check.out)" 1
ue_eq check_builtin.no_complaint "$(grep -c '^no:' /tmp/check.out)" 0
ue_ok check_builtin.rmmod rmmod user_events_race
# Nothing loaded, no module installed, no DKMS (this VM): the package.
$CHECK >/tmp/check.out 2>&1
ue_eq check_nothing.status $? 1
ue_eq check_nothing.says "$(grep '^no:\|^      fix:' /tmp/check.out | tr '\n' '|')" \
	"no:   user_events is not loaded, and the running kernel $(uname -r) does not have it built in|no:   there is no module user_events for $(uname -r), and no DKMS to build one|      fix: apt-get install user-events-dkms|no:   tracefs is mounted at $T, without user_events_data|"
