#!/bin/bash
# make soak DURATION=2h [KERNEL=ROW]: the concurrent stress suite
# (tests/userspace/55-stress.sh) for DURATION on one kernel of the matrix
# (a row of rig/kernels.list; default the row flagged soak there),
# then the kmemleak scan on the debug kernels. It is make check restricted
# to that VM (rig/check/check.sh with UE_KERNELS, UE_SUITES, UE_STRESS_SECS
# and no host checks or install test); results and logs go to build/soak/,
# and it ends with the table and "N passed, N failed".
#
# DURATION: seconds, or a number with s, m or h (default 1h). The VM's own
# limits grow with it: the guest's cut-off of a suite is DURATION + 10 min,
# the VM's DURATION + 15 min.
. "$(dirname "$0")/../lib/prelude.sh"

root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/rig/lib/matrix-lib.sh"
dur=${DURATION:-1h}
kernel=${KERNEL:-$(ue_matrix_one flags~soak -- name)} || exit 2
case $dur in
*h) secs=$(( ${dur%h} * 3600 )) ;;
*m) secs=$(( ${dur%m} * 60 )) ;;
*s) secs=${dur%s} ;;
*) secs=$dur ;;
esac
if ! [[ "$secs" =~ ^[0-9]+$ ]] || [ "$secs" -lt 10 ]; then
	echo "soak: DURATION=$dur: want seconds (at least 10), or a number with s, m or h" >&2
	exit 2
fi
if ! ue_matrix_one name="$kernel" -- name >/dev/null 2>&1; then
	echo "soak: KERNEL=$kernel is not a row of rig/kernels.list: $(ue_matrix -- name | tr '\n' ' ')" >&2
	exit 2
fi
echo "== soak: the stress suite for $secs s on $kernel (results in build/soak/)"
export UE_KERNELS=$kernel UE_SUITES="55-stress 99-kmemleak" UE_STRESS_SECS=$secs \
	UE_SUITE_TIMEOUT=$((secs + 600)) UE_VM_TIMEOUT=$((secs + 900)) \
	UE_BUILD_DIR=$root/build/soak UE_VMS_ONLY=1
exec "$root/rig/check/check.sh"
