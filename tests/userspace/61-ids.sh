# Registrations until the kernel's trace type ids (16 bits, shared by every
# kind of event) run out give ENODEV and make nothing; closing frees the ids
# again (ids_test.c). About 65000 registrations: some 80 s on a Debian kernel
# under TCG, so it runs on the rows whose column extra in rig/kernels.list
# names it (one, Debian 13's generic 6.12), which /tests/extra lists
# (boot-lib.sh); on the debug kernels (KASAN, lockdep) they would take 15
# minutes (75 a second, measured).
# Its limit: beside another VM and the builds the registrations alone can
# take more than the default 300 s; 600 s keeps the row within its VM's
# limit (kernels.list).
# suite-timeout: 600
SUITE=ids
. /tests/lib.sh
case " $(cat /tests/extra 2>/dev/null) " in
*" ids "*) ;;
*)
	echo "UE-INFO ids: not run on $(uname -r): on the rows whose column extra names it only (rig/kernels.list)"
	exit 0 ;;
esac
ue_ok insmod insmod /modules/user_events.ko
echo 100000 >/proc/sys/kernel/user_events_max
/tests/bin/ids_test 70000
ue_eq exit_status $? 0
ue_ok rmmod rmmod user_events
