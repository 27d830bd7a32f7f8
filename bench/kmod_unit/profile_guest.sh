#!/bin/sh
# In the QEMU guest (profile.sh): where the kernel unit's time goes while it
# steps a CPU-bound program: wall time with and without the block log
# (--debug-blocks), and perf's profile of the whole guest (the guest's perf
# is the host's, chrooted). Writes profile.txt in OUT.
#   profile_guest.sh BUILD OUT
set -u
build=$1 out=$2
hwt=$build/bin/hwt
prog=$build/tests/programs/loops_static
cd "$out" || exit 1
{
for flags in "" --debug-blocks; do
	rm -rf b.prof
	s=$(date +%s%N)
	"$hwt" record --unit kmod -q --trace-all $flags -o b.prof -- "$prog" > /dev/null 2>&1
	e=$(date +%s%N)
	echo "record ${flags:-(no block log)}: $(( (e - s) / 1000000 )) ms, $(du -sk b.prof/streams | cut -f1) KiB of trace"
done
rm -rf b.prof
perf record -q -a -e cpu-clock -F 1000 -o perf.data -- \
	"$hwt" record --unit kmod -q --trace-all -o b.prof -- "$prog" > /dev/null 2>&1
echo "== perf: the guest's samples by symbol"
perf report -i perf.data --no-children --sort sym --stdio 2>/dev/null | grep -E '^ +[0-9]' | head -40
echo "== by command"
perf report -i perf.data --no-children --sort comm --stdio 2>/dev/null | grep -E '^ +[0-9]' | head -10
rm -rf b.prof perf.data
} > profile.txt 2>&1
