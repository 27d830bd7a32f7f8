#!/bin/sh
# hwt-pgo's training step (record the training run under the trace unit
# and decode it: converters/decode/live.c decodes each process as it ends)
# against the native training run: with libipt's decoder alone and
# everything decoded after the run (HWT_DECODER=libipt HWT_DECODE_LIVE=0:
# the training step before issue 15), with the edge decoder after the run
# (before: HWT_DECODE_LIVE=0) and while it runs (after), on two training runs:
#   suite   tests/afdo/src/pgo_suite.c "train 12 0 400000": twelve processes
#           one after the other, as a test suite runs them (the mini_suite's
#           shape, with more work in each: 0.04 s natively)
#   interp  tests/programs/cpu_interp.c "train": one process (the decode
#           while recording cannot help: a process is decoded once it has
#           ended, and this one ends with the run)
# Figures, as hwt-pgo -v reports them: wall and CPU seconds of the step
# (user + sys of hwt-pgo, its decode thread included, and of the children it
# waited for), and the wall seconds of the decode left after the run; the
# native run is timed by /usr/bin/time. The best wall of RUNS runs. The
# profiles before and after must be equal. The decode while recording only
# takes CPU time nothing else wants (SCHED_IDLE): on a busy machine it gets
# little, and the load averages printed first and last say how busy it was.
#
# usage: live_bench.sh BUILD_DIR [TRAINING...]   (default: suite interp)
# RUNS=N (default 3); HWT_UNIT as for hwt-pgo (default auto).
set -u
build=$(cd "$1" && pwd) || exit 2
shift
trainings=${*:-suite interp}
runs=${RUNS:-3}
pgo=$build/bin/hwt-pgo
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Whether line A's first field is less than line B's (B empty: yes).
less() {
	[ -z "$2" ] || awk -v a="$1" -v b="$2" 'BEGIN { split(a, x, " "); split(b, y, " "); exit !(x[1] < y[1]) }'
}

# MODE NAME ARGS SOURCE: the best "wall cpu after-run-decode early-images"
# of hwt-pgo's training step over $runs runs.
step() {
	mode=$1 name=$2 args=$3 src=$4 best=
	live=1 decoder=edge
	[ "$mode" = after ] || live=0
	[ "$mode" = libipt ] && decoder=libipt
	for i in $(seq "$runs"); do
		HWT_DECODER=$decoder HWT_DECODE_LIVE=$live "$pgo" -v --train "$args" -o "$tmp/$name" \
			--profile "$tmp/$name.$mode.afdo" -- "$src" >/dev/null 2>"$tmp/err" || {
			cat "$tmp/err" >&2
			return 1
		}
		line="$(sed -n 's/^hwt-pgo: the training step (record and decode) took \([0-9.]*\) s, \([0-9.]*\) s of CPU; \([0-9.]*\) s of it decoding after the run$/\1 \2 \3/p' "$tmp/err") $(sed -n 's/^hwt-pgo: \([0-9]*\) process images were decoded while the command ran$/\1/p' "$tmp/err")"
		less "$line" "$best" && best=$line
	done
	echo "$best"
}

# NAME ARGS: the best "wall cpu" of the native training run (hwt-pgo's training binary).
native() {
	best=
	for i in $(seq "$runs"); do
		/usr/bin/time -f "%e %U %S" -o "$tmp/time" "$tmp/$1.hwt-pgo/train" $2 >/dev/null 2>&1
		line=$(awk '{ printf "%.3f %.3f", $1, $2 + $3 }' "$tmp/time")
		less "$line" "$best" && best=$line
	done
	echo "$best"
}

uptime
printf '%-7s %-15s %7s %7s %8s %13s %s\n' training step wall_s cpu_s x_native decode_after_s \
	"images decoded early"
for t in $trainings; do
	case $t in
	suite) args="train 12 0 400000" src=$root/tests/afdo/src/pgo_suite.c ;;
	interp) args="train" src=$root/tests/programs/cpu_interp.c ;;
	*) echo "unknown training run '$t' (suite, interp)" >&2; exit 2 ;;
	esac
	libipt=$(step libipt "$t" "$args" "$src") || exit 1
	before=$(step before "$t" "$args" "$src") || exit 1
	after=$(step after "$t" "$args" "$src") || exit 1
	cmp -s "$tmp/$t.before.afdo" "$tmp/$t.after.afdo" &&
		cmp -s "$tmp/$t.libipt.afdo" "$tmp/$t.after.afdo" || {
		echo "$t: the profiles of libipt, before and after differ" >&2
		exit 1
	}
	set -- $(native "$t" "$args")
	nwall=$1
	printf '%-7s %-15s %7s %7s %8s\n' "$t" native "$1" "$2" 1
	for m in libipt before after; do
		case $m in
		libipt) set -- $libipt ;;
		before) set -- $before ;;
		after) set -- $after ;;
		esac
		printf '%-7s %-15s %7s %7s %8s %13s %s\n' "$t" "hwt-pgo $m" "$1" "$2" \
			"$(awk -v a="$1" -v b="$nwall" 'BEGIN { printf "%.1f", (b > 0 ? a / b : 0) }')" \
			"$3" "$4"
	done
done
uptime
