#!/bin/sh
# make check's script for scripts/user-events-run (tests/run/check.sh), run
# in the VM by the host's /bin/sh as it is: registers the user event
# "ue_run_sh u32 n" in tracefs's dynamic_events, enables it, writes it
# through user_events_data with the host's perl (DIAG_IOCSREG, then the
# write index and the field), and reads it back from trace. Also writes
# ./ue_run_written in the current directory, prints the environment it was
# given and a line on stderr, and exits 7.
set -e
t=/sys/kernel/tracing
echo 'u:ue_run_sh u32 n' >>$t/dynamic_events
: >$t/trace
echo 1 >$t/events/user_events/ue_run_sh/enable
perl -e '
	open(my $fh, "+<", "/sys/kernel/tracing/user_events_data") or die "open: $!";
	my $word = "\0" x 8;
	my $name = "ue_run_sh u32 n";
	# struct user_reg (28 bytes, packed): size, enable_bit, enable_size,
	# flags, enable_addr, name_args, write_index.
	my $reg = pack("L C C S Q Q L", 28, 0, 4, 0, unpack("Q", pack("p", $word)),
		       unpack("Q", pack("p", $name)), 0);
	ioctl($fh, 0xC0082A00, $reg) or die "DIAG_IOCSREG: $!";
	syswrite($fh, pack("L L", unpack("x24 L", $reg), 4343)) == 8 or die "write: $!";
'
if grep -q 'ue_run_sh: n=0x10f7 (4343)' $t/trace; then
	echo "ue_run_script: event read back from trace"
else
	echo "ue_run_script: event NOT in trace"
	cat $t/trace
fi
echo "ue_run_script: cwd $(pwd) env UE_RUN_TEST=${UE_RUN_TEST:-unset} UE_RUN_ACCEL=${UE_RUN_ACCEL:-unset}"
echo "written in the guest" >ue_run_written
echo "ue_run_script: this line is on stderr" >&2
exit 7
