#!/bin/bash
# Host check of ue_cache_scratch (rig/lib/prelude.sh), in a cache of its
# own: a directory left by a script that no longer runs is removed at the
# next call; one of a script still running (another run's fetch), one of
# another NAME, and one whose name has no PID are kept.
# Prints "host cache_scratch pass|fail <case> [detail]" lines.
. "$(dirname "$0")/../lib/prelude.sh"
hostcheck_name=cache_scratch
. "$(dirname "$0")/../lib/hostcheck.sh"
UE_CACHE=$work/cache
mkdir -p "$UE_CACHE"
# A PID no process has: one of a process that has exited, not yet reused
# (the check runs in well under the time the kernel takes to wrap PIDs).
sh -c 'exit 0' &
dead=$!
wait "$dead"
sleep 60 &
alive=$!
mkdir "$UE_CACHE/dl.$dead.aaaaaa" "$UE_CACHE/dl.$alive.bbbbbb" \
	"$UE_CACHE/keyring-fetch.$dead.cccccc" "$UE_CACHE/dl.other"
touch "$UE_CACHE/dl.$dead.aaaaaa/partial.deb"
d=$(ue_cache_scratch dl)
kill "$alive"
expect made "$(dirname "$d") $(basename "$d" | cut -d. -f1-2)" "$UE_CACHE dl.$$"
expect made_dir "$([ -d "$d" ] && echo yes)" yes
expect dead_removed "$([ -e "$UE_CACHE/dl.$dead.aaaaaa" ] && echo kept)" ""
expect running_kept "$([ -d "$UE_CACHE/dl.$alive.bbbbbb" ] && echo kept)" kept
expect other_name_kept "$([ -d "$UE_CACHE/keyring-fetch.$dead.cccccc" ] && echo kept)" kept
expect no_pid_kept "$([ -d "$UE_CACHE/dl.other" ] && echo kept)" kept
