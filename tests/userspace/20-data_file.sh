# user_events_data / user_events_status operations (data_file.c).
SUITE=data_file
. /tests/lib.sh
ue_ok insmod insmod /modules/user_events.ko
/tests/bin/data_file
ue_eq exit_status $? 0
ue_ok rmmod rmmod user_events
