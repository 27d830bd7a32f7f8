#!/bin/sh
# Decode throughput of hwt's decoder against a bare libipt block decoder
# loop (bare_blk.c) over the same streams: MB/s of trace and blocks/s.
#
# usage: decode_bench.sh BUILD_DIR [BUNDLE]
# Without BUNDLE, records `cpu_interp train` (about 400 MB of trace) into a
# temporary bundle first. Each decoder runs three times; the best time
# counts. Target: hwt within 1.3x of the bare loop. Then (without BUNDLE)
# the parallel decode: -j1 against one thread per CPU on two processes.
set -u
build=$1
bundle=${2:-}
hwt=$build/bin/hwt
bare=$build/bench/decode/bare_blk
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# hwt's decoder: `hwt report profile` once the front end has it.
if "$hwt" report profile --help >/dev/null 2>&1; then
	decode() { "$hwt" report profile -q "$1" -o "$2"; }
else
	decode() { "$build/tests/decode/profile_tool" report -q "$1" -o "$2"; }
fi

if [ -z "$bundle" ]; then
	bundle=$tmp/cpu_interp.hwt
	echo "recording cpu_interp train ..."
	"$hwt" record -o "$bundle" -- "$build/tests/programs/cpu_interp" train >/dev/null || exit 1
fi

best() { # command...: best wall time of three runs, in seconds
	b=
	for i in 1 2 3; do
		s=$(date +%s.%N)
		"$@" >/dev/null || return 1
		e=$(date +%s.%N)
		t=$(awk -v s="$s" -v e="$e" 'BEGIN { printf "%.3f", e - s }')
		if [ -z "$b" ] || awk -v t="$t" -v b="$b" 'BEGIN { exit !(t < b) }'; then b=$t; fi
	done
	echo "$b"
}

line=$("$bare" "$bundle") || exit 1
bytes=$(echo "$line" | awk '{print $2}')
blocks=$(echo "$line" | awk '{print $4}')
insns=$(echo "$line" | awk '{print $6}')
t_bare=$(best "$bare" "$bundle") || exit 1
t_hwt=$(best decode "$bundle" "$tmp/profile") || exit 1
echo "bundle: $bundle"
echo "trace: $bytes bytes, $blocks blocks, $insns instructions"
awk -v bytes="$bytes" -v blocks="$blocks" -v tb="$t_bare" -v th="$t_hwt" 'BEGIN {
	printf "bare libipt loop: %6.2f s  %7.1f MB/s  %6.1f M blocks/s\n", tb, bytes / tb / 1e6, blocks / tb / 1e6
	printf "hwt decoder:      %6.2f s  %7.1f MB/s  %6.1f M blocks/s\n", th, bytes / th / 1e6, blocks / th / 1e6
	printf "ratio: %.3f (target <= 1.3)\n", th / tb
	exit !(th / tb <= 1.3)
}'
status=$?

# Parallel decode (-j): a bundle of two CPU-bound processes (cpu_interp
# train twice, from one shell), decoded with -j1 and -jN (N: the CPUs). The
# profiles must be equal. HWT_BENCH_JOBS=0 skips this part.
if [ "${HWT_BENCH_JOBS:-1}" != 0 ] && [ -z "${2:-}" ]; then
	cpus=$(getconf _NPROCESSORS_ONLN)
	interp=$build/tests/programs/cpu_interp
	two=$tmp/two.hwt
	echo "recording cpu_interp train twice in one run ..."
	"$hwt" record -o "$two" -- sh -c "$interp train; $interp train" >/dev/null || exit 1
	decode_j() { "$hwt" report profile -q -j "$1" "$two" -o "$2"; }
	t_j1=$(best decode_j 1 "$tmp/j1.prof") || exit 1
	t_jn=$(best decode_j "$cpus" "$tmp/jn.prof") || exit 1
	cmp -s "$tmp/j1.prof" "$tmp/jn.prof" || { echo "-j1 and -j$cpus profiles differ"; exit 1; }
	tbytes=$(cat "$two"/streams/*.pt | wc -c)
	awk -v bytes="$tbytes" -v t1="$t_j1" -v tn="$t_jn" -v n="$cpus" 'BEGIN {
		printf "two processes, %.1f MB of trace:\n", bytes / 1e6
		printf "  -j1:  %6.2f s  %7.1f MB/s\n", t1, bytes / t1 / 1e6
		printf "  -j%d:  %6.2f s  %7.1f MB/s  (speed-up %.2fx, same profile)\n", n, tn, bytes / tn / 1e6, t1 / tn
	}'
fi
exit $status
