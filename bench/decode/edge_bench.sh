#!/bin/sh
# The edge decoder against a bare libipt block decoder loop (bare_blk.c)
# and against hwt's libipt decoder, over the same streams, on three traces:
#   interp  tests/programs/cpu_interp train (a bytecode interpreter)
#   doc     bench/programs/doc_pipeline train (a document pipeline)
#   suite   tests/programs/mini_suite/run-tests.sh 40 times (240 short
#           test processes and their shells)
# Figures are CPU seconds (user + sys, best of RUNS), since the machine is
# shared; wall seconds of the same run are shown too. Peak memory is the
# decoder's maximum RSS. The edge and libipt profiles must be equal.
# Targets (issue 15): edge >= 10x the bare loop, single thread; 2 threads
# (-j2: a stream split at PSBs, converters/decode/edge) >= 1.8x one, a
# gain in wall seconds: the least of -j1 and of -j2 over runs taken in
# turns, and the median of the ratios of each pair (steadier on a shared
# host, where the least favours -j1: it needs one quiet CPU, -j2 two); of
# the whole command and of the decode alone (--stats), since a short
# trace's command spends a fixed ~6 ms starting, opening the bundle,
# writing the profile and exiting (docs/decode.md).
#
# usage: edge_bench.sh BUILD_DIR [TRACE...]   (default: interp doc suite)
# RUNS=N (default 3) runs per figure; KEEP=DIR keeps the bundles in DIR.
# A stream the edge decoder hands to libipt (a decode error in it) is
# decoded at libipt's speed: the figure says how many were.
set -u
build=$(cd "$1" && pwd) || exit 2
shift
traces=${*:-interp doc suite}
runs=${RUNS:-3}
hwt=$build/bin/hwt
bare=$build/bench/decode/bare_blk
progs=$build/bench/programs
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
work=${KEEP:-$tmp}
mkdir -p "$work"

# "cpu wall" of one run of "$@": CPU (user + sys) and wall seconds to the
# millisecond (GNU time's centiseconds are too coarse for the suite's
# decode), of the command alone; stdout dropped, stderr to $tmp/err.
run_once() {
	python3 -c '
import os, subprocess, sys, time
t = time.monotonic()
with open(sys.argv[1], "w") as err:
    child = subprocess.Popen(sys.argv[2:], stdout=subprocess.DEVNULL, stderr=err)
    # the child'"'"'s own usage, not the caller'"'"'s
    _, status, r = os.wait4(child.pid, 0)
wall = time.monotonic() - t
print("%.3f %.3f" % (r.ru_utime + r.ru_stime, wall))
sys.exit(os.waitstatus_to_exitcode(status))' "$tmp/err" "$@"
}

# best "cpu wall kb" of "$@" over $runs runs (the run of least CPU), and
# the peak RSS of one more run under GNU time (a child forked from Python
# would start with Python's own as its peak)
measure() {
	best=
	for _ in $(seq "$runs"); do
		line=$(run_once "$@")
		# exit status 1: written, the bundle had warnings (decode errors)
		rc=$?
		[ $rc -le 1 ] || {
			cat "$tmp/err" >&2
			return 1
		}
		if [ -z "$best" ] || awk -v a="$line" -v b="$best" \
			'BEGIN { split(a, x, " "); split(b, y, " "); exit !(x[1] < y[1]) }'; then
			best=$line
		fi
	done
	/usr/bin/time -f "%M" -o "$tmp/rss" "$@" >/dev/null 2>&1
	echo "$best $(tail -n 1 "$tmp/rss")"
}

# "wall1 wall2 median dec1 dec2 decmedian": the least wall seconds of -j1
# and of -j2 of the edge decoder over $runs runs of each, taken in turns,
# so that a host busy for a while slows both alike (their ratio is the gain
# of 2 threads), and the median of the ratios of each pair of runs (less
# moved by one lucky run on a noisy host); then the same of the decode
# alone (--stats' "decoded in"), without the command's start, bundle open,
# profile write and exit, which 2 threads do not share
walls() { # bundle
	: > "$tmp/pairs"
	for _ in $(seq "$runs"); do
		pair=
		for j in 1 2; do
			line=$(run_once "$hwt" report profile -q --stats -j$j --decoder edge "$1" \
				-o "$tmp/walls") || true
			dec=$(sed -n 's/.*; decoded in \([0-9.]*\) s$/\1/p' "$tmp/err")
			pair="$pair ${line#* } ${dec:-0}"
		done
		echo "$pair" >> "$tmp/pairs"
	done
	# pairs: wall1 dec1 wall2 dec2
	awk 'function median(v, n,   i, j, t) {
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && v[j - 1] > v[j]; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
		return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
	}
	function least(a, b) { return a == "" || b < a ? b : a }
	{
		w1 = least(w1, $1); d1 = least(d1, $2); w2 = least(w2, $3); d2 = least(d2, $4)
		rw[NR] = $1 / ($3 > 0 ? $3 : 0.001); rd[NR] = $2 / ($4 > 0 ? $4 : 0.001)
	}
	END { printf "%s %s %.4f %s %s %.4f\n", w1, w2, median(rw, NR), d1, d2, median(rd, NR) }' \
		"$tmp/pairs"
}

record() { # name
	b=$work/$1.hwt
	[ -d "$b" ] && return 0
	case $1 in
	interp) "$hwt" record -o "$b" -- "$build/tests/programs/cpu_interp" train ;;
	doc) "$hwt" record -o "$b" -- "$progs/doc_pipeline" train ;;
	suite)
		suite=$build/tests/programs/mini_suite
		"$hwt" record -o "$b" -- sh -c 'for i in $(seq 40); do sh "$1/run-tests.sh" "$1" || exit; done' \
			sh "$suite" ;;
	*) echo "unknown trace $1" >&2; return 1 ;;
	esac >/dev/null
}

status=0
printf '%-7s %9s %7s | %-22s | %-22s | %-22s | %7s %7s\n' trace "MB" streams \
	"bare libipt cpu/wall" "hwt libipt cpu/wall" "hwt edge cpu/wall" "x bare" "x hwt"
for t in $traces; do
	record "$t" || exit 1
	b=$work/$t.hwt
	mb=$(cat "$b"/streams/*.pt | wc -c | awk '{ printf "%.1f", $1 / 1e6 }')
	n=$(ls "$b"/streams/*.pt | wc -l)
	bare_m=$(measure "$bare" "$b") || exit 1
	lib_m=$(measure "$hwt" report profile -q -j1 --decoder libipt "$b" -o "$tmp/$t.libipt") || exit 1
	edge_m=$(measure "$hwt" report profile -q -j1 --decoder edge "$b" -o "$tmp/$t.edge") || exit 1
	edge2_m=$(measure "$hwt" report profile -q -j2 --decoder edge "$b" -o "$tmp/$t.edge2") || exit 1
	walls_m=$(walls "$b")
	if ! cmp -s "$tmp/$t.libipt" "$tmp/$t.edge" || ! cmp -s "$tmp/$t.edge" "$tmp/$t.edge2"; then
		echo "$t: the edge (-j1, -j2) and libipt profiles differ" >&2
		status=1
	fi
	# streams the edge decoder handed to libipt
	fb=$("$hwt" report profile -q -j1 --stats --decoder edge "$b" -o /dev/null 2>&1 |
		sed -n 's/.*, \([0-9]*\) handed to libipt.*/\1/p')
	echo "$bare_m|$lib_m|$edge_m|$edge2_m|$walls_m" | awk -F'|' -v t="$t" -v mb="$mb" -v n="$n" -v fb="${fb:-?}" '{
		split($1, a, " "); split($2, l, " "); split($3, e, " "); split($4, e2, " "); split($5, w, " ")
		printf "%-7s %9s %7s | %6.3f s %6.3f s %5.0fM | %6.3f s %6.3f s %5.0fM | %6.3f s %6.3f s %5.0fM | %6.1fx %6.1fx\n",
			t, mb, n, a[1], a[2], a[3] / 1024, l[1], l[2], l[3] / 1024, e[1], e[2], e[3] / 1024,
			a[1] / (e[1] > 0 ? e[1] : 0.01), l[1] / (e[1] > 0 ? e[1] : 0.01)
		printf "        edge: %.1f MB/s of trace per CPU second; %s streams handed to libipt\n",
			mb / (e[1] > 0 ? e[1] : 0.01), fb
		printf "        edge -j2: %.3f s cpu, %.0fM; least wall, runs in turns: -j1 %.3f s, -j2 %.3f s: %.2fx; median of the pairs %.2fx\n",
			e2[1], e2[3] / 1024, w[1], w[2], w[1] / (w[2] > 0 ? w[2] : 0.01), w[3]
		printf "        the decode alone: -j1 %.3f s, -j2 %.3f s: %.2fx; median of the pairs %.2fx\n",
			w[4], w[5], w[4] / (w[5] > 0 ? w[5] : 0.01), w[6]
	}'
done
exit $status
