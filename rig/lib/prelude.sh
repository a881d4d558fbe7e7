# The start every host script of the rig shares (bash), sourced before
# anything else it does:
#   . "$(dirname "$0")/../lib/prelude.sh"        (a script in rig/*/)
#   . "$root/rig/lib/prelude.sh"                 (elsewhere, root known)
# Not for what runs in a guest or a chroot (rig/guest/, tests/install/
# in-chroot.sh, tests/system/guest-test): those have only busybox sh or
# the chroot's own files, and stay self-contained.
#
# It sets:
#   strict mode   set -uo pipefail; a script that stops at the first
#                 failing command adds set -e itself
#   here          the script's own directory, absolute
#   UE_CACHE      the cache directory: ~/.cache/user-events-dkms unless the
#                 caller set it (not exported: a script whose children read
#                 it exports it)
#   log MESSAGE   a progress line: MESSAGE after $ue_log_prefix (default
#                 none), on stderr, or on the descriptor $ue_log_fd (1: the
#                 script's own output, as make check's jobs print theirs)
#   die MESSAGE   the same line (whatever log the script has), then exit 1
#   say MESSAGE   "== MESSAGE" on stdout, make check's progress lines
# ue_log_prefix and ue_log_fd are read at each call: a script sets them
# before or after sourcing this file. A script with a log of its own (one
# that says nothing unless asked) defines it after sourcing.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
UE_CACHE=${UE_CACHE:-$HOME/.cache/user-events-dkms}

log() { printf '%s%s\n' "${ue_log_prefix-}" "$*" >&"${ue_log_fd:-2}"; }
die() { printf '%s%s\n' "${ue_log_prefix-}" "$*" >&"${ue_log_fd:-2}"; exit 1; }
say() { printf '== %s\n' "$*"; }

# ue_cache_scratch NAME: a new directory $UE_CACHE/NAME.PID.XXXXXX (PID:
# this script's) for what a fetch unpacks before it moves it into the cache,
# on the cache's file system. A run killed with SIGKILL leaves its
# directories behind, and runs that share the cache (make check, make bench,
# user-events-run) may be fetching at once: each call first removes the
# NAME directories of scripts that no longer run, and only those.
ue_cache_scratch() {
	local d p
	for d in "$UE_CACHE/$1".*; do
		p=${d#"$UE_CACHE/$1".} p=${p%%.*}
		case $p in '' | *[!0-9]*) continue ;; esac
		[ -d "/proc/$p" ] || rm -rf "$d"
	done
	mkdir -p "$UE_CACHE" && mktemp -d "$UE_CACHE/$1.$$.XXXXXX"
}
