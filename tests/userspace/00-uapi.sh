# UAPI layout (include/uapi/linux/user_events.h); needs no module.
SUITE=uapi
. /tests/lib.sh
/tests/bin/uapi_layout
ue_eq exit_status $? 0
