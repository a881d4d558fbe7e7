# UAPI layout (spec 1.2); needs no module.
SUITE=uapi
. /tests/lib.sh
/tests/bin/uapi_layout
ue_eq exit_status $? 0
