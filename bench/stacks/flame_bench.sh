#!/bin/sh
# The flame graph report against the profile report on the same bundle, and
# its peak memory on a run of 10^7 calls.
#
# usage: flame_bench.sh BUILD_DIR [BUNDLE]
#
# 1. Time: `hwt report flame` and `hwt report folded` against `hwt report
#    profile` (the decode alone) on BUNDLE (default: `cpu_interp train`,
#    about 400 MB of trace, recorded first), -j1, best of three; wall and
#    CPU (user + system) seconds. Target: flame at most 1.2 times profile.
# 2. Memory: `hwt report flame` on `many_calls` with 10^6 and 10^7 calls
#    (Valgrind unit): peak resident memory (VmHWM), and the peak of its
#    anonymous part (RssAnon, polled every 10 ms), distinct stacks. The
#    stack builder's memory follows the distinct stacks; what grows with the
#    calls is only the mapped stream (file pages, in the resident size).
set -u
build=$1
bundle=${2:-}
hwt=$build/bin/hwt
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export HWT_VALGRIND_LIB="$build/lib/hwt/valgrind"

if [ -z "$bundle" ]; then
	bundle=$tmp/cpu_interp.hwt
	echo "recording cpu_interp train ..."
	"$hwt" record -o "$bundle" -- "$build/tests/programs/cpu_interp" train >/dev/null || exit 1
fi

anon_peak() { # command...: runs it; prints the peak RssAnon (KiB) seen, polled every 10 ms
	"$@" &
	pid=$!
	peak=0
	while kill -0 "$pid" 2>/dev/null; do
		a=$(sed -n 's/^RssAnon:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$pid/status" 2>/dev/null)
		[ -n "$a" ] && [ "$a" -gt "$peak" ] && peak=$a
		sleep 0.01
	done
	wait "$pid" || return 1
	echo "$peak"
}

best() { # OUT_VAR_PREFIX command...: best wall and CPU seconds of three runs
	bw= bc=
	for i in 1 2 3; do
		/usr/bin/time -f "%e %U %S" -o "$tmp/time" "$@" >/dev/null 2>&1 || return 1
		read -r w u s <"$tmp/time"
		c=$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.2f", u + s }')
		if [ -z "$bw" ] || awk -v a="$w" -v b="$bw" 'BEGIN { exit !(a < b) }'; then bw=$w; fi
		if [ -z "$bc" ] || awk -v a="$c" -v b="$bc" 'BEGIN { exit !(a < b) }'; then bc=$c; fi
	done
	echo "$bw $bc"
}

bytes=$(cat "$bundle"/streams/*.pt | wc -c)
echo "bundle: $bundle ($(awk -v b="$bytes" 'BEGIN { printf "%.1f MB", b / 1e6 }') of trace)"
p=$(best "$hwt" report profile -q -j1 "$bundle" -o "$tmp/p.prof") || exit 1
f=$(best "$hwt" report flame -q -j1 "$bundle" -o "$tmp/f.svg") || exit 1
d=$(best "$hwt" report folded -q -j1 "$bundle" -o "$tmp/f.folded") || exit 1
echo "$p $f $d" | awk '{
	printf "hwt report profile: %7.2f s wall %7.2f s CPU\n", $1, $2
	printf "hwt report flame:   %7.2f s wall %7.2f s CPU   ratio %.2f wall, %.2f CPU (target <= 1.2)\n", $3, $4, $3 / $1, $4 / $2
	printf "hwt report folded:  %7.2f s wall %7.2f s CPU   ratio %.2f wall, %.2f CPU\n", $5, $6, $5 / $1, $6 / $2
	status = !($4 / $2 <= 1.2)
} END { exit status }'
status=$?

for n in 1000000 10000000; do
	"$hwt" record --unit valgrind -o "$tmp/m$n.hwt" -- "$build/bench/programs/many_calls" "$n" \
		>/dev/null 2>&1 || exit 1
	/usr/bin/time -f "%M" -o "$tmp/mem" "$hwt" report flame -q -j1 --stats "$tmp/m$n.hwt" \
		-o "$tmp/m.svg" 2>"$tmp/stats" || { cat "$tmp/stats"; exit 1; }
	anon=$(anon_peak "$hwt" report flame -q -j1 "$tmp/m$n.hwt" -o "$tmp/m.svg") || exit 1
	"$hwt" report folded -q "$tmp/m$n.hwt" -o "$tmp/m.folded" || exit 1
	calls=$(sed -n 's/.* instructions, \([0-9]*\) calls.*/\1/p' "$tmp/stats")
	mb=$(cat "$tmp"/m$n.hwt/streams/*.pt | wc -c)
	awk -v n="$n" -v c="$calls" -v kb="$(tail -1 "$tmp/mem")" -v s="$(wc -l <"$tmp/m.folded")" \
		-v t="$mb" -v a="$anon" 'BEGIN {
		printf "many_calls %d: %d calls traced, %d distinct stacks, %.1f MB of trace, peak RSS %.1f MB, of it anonymous %.1f MB\n", n, c, s, t / 1e6, kb / 1024, a / 1024
	}'
done
exit $status
