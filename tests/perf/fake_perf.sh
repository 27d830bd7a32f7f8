#!/bin/sh
# A stand-in for Linux perf where there is no Intel PT (tests of --unit perf):
# logs its command line to $FAKE_PERF_LOG, runs the command after "--",
# writes $FAKE_PERF_DATA (a perf.data that hwt export wrote of the same
# program) where -o says, and exits as perf record does: with the command's
# status, or killed by the signal that killed it.
set -u
printf '%s\n' "$*" >"$FAKE_PERF_LOG"
out=
while [ $# -gt 0 ]; do
	case $1 in
	-o) out=$2; shift 2 ;;
	--) shift; break ;;
	*) shift ;;
	esac
done
"$@"
status=$?
cp "$FAKE_PERF_DATA" "$out" || exit 255
if [ $status -gt 128 ]; then
	kill -$((status - 128)) $$
fi
exit $status
