# kmemleak (debug kernel): after every suite, with the module unloaded, a
# scan must find nothing the suites leaked (boot's leaks were cleared).
SUITE=kmemleak
. /tests/lib.sh
K=/sys/kernel/debug/kmemleak
if [ ! -e $K ]; then
	echo "UE-INFO kmemleak: not run on $(uname -r): kmemleak is on the debug kernel only"
	exit 0
fi
ue_nok module_unloaded test -e /sys/module/user_events
# Objects younger than 5 s are not reported: let everything age first.
sleep 6
echo scan >$K
echo scan >$K
cat $K >/tmp/kmemleak.txt
ue_eq no_leaks "$(grep -c 'unreferenced object' /tmp/kmemleak.txt)" 0
head -40 /tmp/kmemleak.txt
