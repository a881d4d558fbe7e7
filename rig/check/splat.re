# Kernel reports that fail a VM run, one extended regex a line (joined with
# '|'). lockdep, KASAN, atomic-sleep and WARN reports are BUG:/WARNING:
# lines; the debug kernel's boot banners ("RCU lockdep checking is
# enabled", "kasan: ... initialized") are not reports. tests/host/run.sh
# checks these against sample reports and a clean debug boot.
BUG:
WARNING:
Oops
KASAN:
Call Trace
general protection
Kernel panic
kernel BUG
circular locking
sleeping function called from invalid context
suspicious RCU usage
locking correctness validator
lockdep is turned off
INFO: task .* blocked
unreferenced object
detected stalls
