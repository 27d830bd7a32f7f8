#!/usr/bin/env bash
# The recording's cost on three CPU-bound workloads (issue 35):
#   interp  the bundled interpreter's training run (tests/programs/cpu_interp.c
#           "train", built by hwt-pgo as its training binary): one process
#   pcre2   PCRE2 10.42's own tests (RunTest: 34 pcre2test processes over
#           the test files), from Debian bookworm's source package, -O0 -g,
#           built without JIT (JIT code is anonymous memory: no unit traces it)
#   cjson   cJSON 1.7.15's ctest suite (22 short test processes), fetched and
#           built by bench/select/real_suites.sh's steps
# and for each it reports (best of RUNS, the variants of a round run one
# after the other, round after round):
#   - the native run;
#   - each software unit's floor (qemu-x86_64 without a plugin; valgrind
#     --tool=none) where the workload can be run under it (interp, pcre2:
#     RunTest -sim), and 'hwt record --unit U' against it;
#   - hwt-cov under each unit, its decode while recording on (the default)
#     and off (HWT_DECODE_LIVE=0: record, then decode), against the gcov
#     flow (configure and build with --coverage, run, lcov --capture)
#     (pcre2, cjson);
#   - hwt-pgo's training step (as hwt-pgo -v says it: record and decode)
#     under each unit, decode while recording on and off, against the
#     native training run (interp);
#   - hwt-cov (live) and hwt-pgo (live) again with --no-record-filter: every
#     image traced, not only the selected ones (their default); a difference
#     of the outputs is noted under the table.
# Each figure is "wall/cpu" seconds: cpu is user + sys of the command and
# of the children it waited for (the decode thread included). The machine
# may be shared: compare cpu figures, and walls only within one round.
# hwt's outputs with and without the decode while recording must be equal
# (lcov, profile): the script fails otherwise.
#
# usage: bench/record/run.sh [-n RUNS] [-b HWT_BUILD_DIR] [-w WORK_DIR] [WORKLOAD...]
set -euo pipefail
shopt -s inherit_errexit

prog=record
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
runs=3
hwt_build=$root/build
work=
all_workloads="interp pcre2 cjson"

usage() {
	cat <<EOF
usage: bench/record/run.sh [-n RUNS] [-b HWT_BUILD_DIR] [-w WORK_DIR] [WORKLOAD...]

  -n RUNS   rounds; the best of them is reported [3]
  -b DIR    hwt's build directory (bin/hwt, bin/hwt-cov, bin/hwt-pgo) [build/]
  -w DIR    where the workloads are built and run (kept afterwards)
            [a temporary directory, removed at the end]
WORKLOADs: $all_workloads [default: all]
Sources are cached in \${XDG_CACHE_HOME:-\$HOME/.cache}/hwt-bench.
EOF
}

while getopts n:b:w:h opt; do
	case $opt in
	n) runs=$OPTARG ;;
	b) hwt_build=$OPTARG ;;
	w) work=$OPTARG ;;
	h) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
workloads=${*:-$all_workloads}
case $runs in '' | *[!0-9]* | 0) echo "$prog: -n wants a positive number, not '$runs'" >&2; exit 2 ;; esac
for w in $workloads; do
	case " $all_workloads " in *" $w "*) ;; *) echo "$prog: no workload '$w' (have: $all_workloads)" >&2; exit 2 ;; esac
done
hwt_build=$(cd "$hwt_build" 2>/dev/null && pwd) || { echo "$prog: no build directory" >&2; exit 2; }
for b in hwt hwt-cov hwt-pgo; do
	[ -x "$hwt_build/bin/$b" ] || { echo "$prog: no $hwt_build/bin/$b (build hwt first)" >&2; exit 2; }
done
for t in qemu-x86_64 valgrind lcov /usr/bin/time; do
	command -v "$t" >/dev/null || { echo "$prog: $t is not installed (scripts/setup.sh installs it)" >&2; exit 2; }
done

# real_suites.sh's steps: fetch_source (signed Debian sources, cached),
# prepare, configure, build, run_suite, gcov_full, run_logged, say, die;
# its own temporary directory ($W) is removed when this script exits.
if [[ " $workloads " == *" pcre2 "* || " $workloads " == *" cjson "* ]]; then
	# it parses its own options (runs, among others): ours are kept apart
	my_runs=$runs
	HWT_REAL_SUITES_STEPS_ONLY=1 source "$root/bench/select/real_suites.sh" -b "$hwt_build" cjson
	runs=$my_runs
fi
trap - ERR
prog=record
declare -F say >/dev/null || say() { echo "$prog: $*" >&2; }
hwt=$hwt_build/bin/hwt cov=$hwt_build/bin/hwt-cov pgo=$hwt_build/bin/hwt-pgo

if [ -n "$work" ]; then
	mkdir -p "$work"
	work=$(cd "$work" && pwd)
else
	work=$(mktemp -d "${TMPDIR:-/tmp}/hwt-record-bench.XXXXXX")
	old_trap=$(trap -p EXIT | sed "s/^trap -- '\(.*\)' EXIT$/\1/")
	# shellcheck disable=SC2064 # the work directory is known now
	trap "${old_trap:+$old_trap; }rm -rf '$work'" EXIT
fi
log=$work/log
: >"$log"
fail() { echo "$prog: error: $*; last lines of $log:" >&2; tail -n 20 "$log" | sed 's/^/    /' >&2; exit 1; }

# timed CMD...: runs CMD in the current directory (output to $log); sets
# WALL and CPU (seconds); fails when CMD fails (status 0 wanted, or $OK).
timed() {
	local rc=0
	/usr/bin/time -f '%e %U %S' -o "$work/time" "$@" >>"$log" 2>&1 || rc=$?
	[ "$rc" = "${OK:-0}" ] || fail "$* exited with status $rc"
	read -r WALL CPU <<<"$(awk '{ printf "%.2f %.2f", $1, $2 + $3 }' "$work/time")"
}

# best NAME: keeps the best wall and the best cpu of NAME across rounds.
declare -A best_wall best_cpu
best() {
	local n=$1
	if [ -z "${best_wall[$n]:-}" ] || awk -v a="$WALL" -v b="${best_wall[$n]}" 'BEGIN { exit !(a < b) }'; then
		best_wall[$n]=$WALL
	fi
	if [ -z "${best_cpu[$n]:-}" ] || awk -v a="$CPU" -v b="${best_cpu[$n]}" 'BEGIN { exit !(a < b) }'; then
		best_cpu[$n]=$CPU
	fi
}

# row WORKLOAD WHAT NAME BASE: a line of the table, NAME's times and their
# ratio to BASE's (by cpu).
row() {
	local n=$3 b=$4
	printf '%-7s %-34s %8s %8s %8s\n' "$1" "$2" "${best_wall[$n]}" "${best_cpu[$n]}" \
		"$(awk -v a="${best_cpu[$n]}" -v b="${best_cpu[$b]}" 'BEGIN { printf "%.1fx", (b > 0 ? a / b : 0) }')"
}

same() { cmp -s "$1" "$2" || fail "$1 and $2 differ (the decode while recording changed the output)"; }
# filter_same A B: the outputs with the default record-time filter (A) and
# with --no-record-filter (B); a difference is said under the table, not fatal.
filter_notes=$work/filter-notes
: >"$filter_notes"
filter_same() {
	cmp -s "$1" "$2" || echo "note: $(basename "$1") and $(basename "$2") differ" \
		"(the record-time filter changed the output)" >>"$filter_notes"
}

# ---------------------------------------------------------------- interp
interp() {
	local d=$work/interp u live
	mkdir -p "$d"
	# hwt-pgo traces what was built under the current directory
	cd "$root"
	say "interp: building the training binary (hwt-pgo, not timed)"
	timed "$pgo" -q --train train -o "$d/prog" --work "$d/w" --profile "$d/first.afdo" -- \
		"$root/tests/programs/cpu_interp.c"
	cp "$d/w/train" "$d/train"
	for r in $(seq "$runs"); do
		say "interp: round $r/$runs"
		timed "$d/train" train; best interp.native
		timed qemu-x86_64 "$d/train" train; best interp.qemu.floor
		timed valgrind --tool=none -q "$d/train" train; best interp.valgrind.floor
		for u in qemu valgrind; do
			rm -rf "$d/b"
			timed "$hwt" record -q --root "$root" --unit "$u" -o "$d/b" -- "$d/train" train; best "interp.$u.record"
			rm -rf "$d/b"
			for live in 1 0; do
				HWT_DECODE_LIVE=$live timed "$pgo" -v --unit "$u" --train train -o "$d/prog" \
					--work "$d/w" --profile "$d/$u.$live.afdo" -- "$root/tests/programs/cpu_interp.c"
				read -r WALL CPU <<<"$(sed -n 's/^hwt-pgo: the training step (record and decode) took \([0-9.]*\) s, \([0-9.]*\) s of CPU.*/\1 \2/p' "$log" | tail -n 1)"
				[ -n "$WALL" ] || fail "hwt-pgo -v did not say its training step's time"
				best "interp.$u.pgo.$live"
			done
			same "$d/$u.1.afdo" "$d/$u.0.afdo"
			timed "$pgo" -v --no-record-filter --unit "$u" --train train -o "$d/prog" \
				--work "$d/w" --profile "$d/$u.nofilter.afdo" -- "$root/tests/programs/cpu_interp.c"
			read -r WALL CPU <<<"$(sed -n 's/^hwt-pgo: the training step (record and decode) took \([0-9.]*\) s, \([0-9.]*\) s of CPU.*/\1 \2/p' "$log" | tail -n 1)"
			[ -n "$WALL" ] || fail "hwt-pgo -v did not say its training step's time"
			best "interp.$u.pgo.nofilter"
			filter_same "$d/$u.1.afdo" "$d/$u.nofilter.afdo"
		done
	done
	row interp native interp.native interp.native
	for u in qemu valgrind; do
		row interp "$u floor" "interp.$u.floor" interp.native
		row interp "hwt record --unit $u" "interp.$u.record" interp.native
		row interp "  (against the floor)" "interp.$u.record" "interp.$u.floor"
		row interp "hwt-pgo training, $u, after run" "interp.$u.pgo.0" interp.native
		row interp "hwt-pgo training, $u, live" "interp.$u.pgo.1" interp.native
		row interp "  ... --no-record-filter" "interp.$u.pgo.nofilter" interp.native
	done
}

# ---------------------------------------------------------------- pcre2
pcre2_version="10.42-1"
pcre2_configure() { # SRC DIR CFLAGS
	mkdir -p "$2"
	(cd "$2" && "$1/configure" CFLAGS="$3" --disable-jit --disable-shared &&
		make -j"$(nproc)" pcre2test)
}

pcre2() {
	local d=$work/pcre2 u live
	src=$(fetch_source pcre2 "$pcre2_version")
	touch "$src/.hwt-bench-unpacked"
	mkdir -p "$d"
	say "pcre2: building the -O0 -g tree (not timed)"
	[ -x "$d/native/pcre2test" ] || run_logged "$log" "building pcre2" pcre2_configure "$src" "$d/native" "-O0 -g"
	cd "$d/native"
	for r in $(seq "$runs"); do
		say "pcre2: round $r/$runs"
		timed sh -c "srcdir='$src' '$src/RunTest'"; best pcre2.native
		timed sh -c "srcdir='$src' '$src/RunTest' -sim qemu-x86_64"; best pcre2.qemu.floor
		timed sh -c "srcdir='$src' '$src/RunTest' -sim 'valgrind --tool=none -q'"; best pcre2.valgrind.floor
		for u in qemu valgrind; do
			rm -rf "$d/b"
			timed "$hwt" record -q --unit "$u" --root "$src" -o "$d/b" -- \
				sh -c "srcdir='$src' '$src/RunTest'"
			best "pcre2.$u.record"
			rm -rf "$d/b"
			for live in 1 0; do
				HWT_DECODE_LIVE=$live timed "$cov" -q --unit "$u" --root "$src" -o "$d/$u.$live.info" -- \
					sh -c "srcdir='$src' '$src/RunTest'"
				best "pcre2.$u.cov.$live"
			done
			same "$d/$u.1.info" "$d/$u.0.info"
			timed "$cov" -q --no-record-filter --unit "$u" --root "$src" -o "$d/$u.nofilter.info" -- \
				sh -c "srcdir='$src' '$src/RunTest'"
			best "pcre2.$u.cov.nofilter"
			filter_same "$d/$u.1.info" "$d/$u.nofilter.info"
		done
		rm -rf "$d/gcov"
		timed bash -c "$(declare -f pcre2_configure); set -e
			pcre2_configure '$src' '$d/gcov' '--coverage -O0 -g'
			cd '$d/gcov'; srcdir='$src' '$src/RunTest'
			lcov -q --capture --directory '$d/gcov' -o '$d/gcov.info'"
		best pcre2.gcov
	done
	row pcre2 native pcre2.native pcre2.native
	for u in qemu valgrind; do
		row pcre2 "$u floor" "pcre2.$u.floor" pcre2.native
		row pcre2 "hwt record --unit $u" "pcre2.$u.record" pcre2.native
		row pcre2 "  (against the floor)" "pcre2.$u.record" "pcre2.$u.floor"
		row pcre2 "hwt-cov --unit $u, after run" "pcre2.$u.cov.0" pcre2.native
		row pcre2 "hwt-cov --unit $u, live" "pcre2.$u.cov.1" pcre2.native
		row pcre2 "  ... --no-record-filter" "pcre2.$u.cov.nofilter" pcre2.native
		row pcre2 "  (live against the gcov flow)" "pcre2.$u.cov.1" pcre2.gcov
	done
	row pcre2 "gcov flow" pcre2.gcov pcre2.native
}

# ---------------------------------------------------------------- cjson
cjson() {
	local d=$work/cjson u live pkg ver src
	read -r pkg ver <<<"$(suite_package cjson)"
	src=$(fetch_source "$pkg" "$ver")
	touch "$src/.hwt-bench-unpacked"
	mkdir -p "$d"
	if ! [ -f "$d/native/CMakeCache.txt" ]; then
		say "cjson: building the -O0 -g tree (not timed)"
		configure cjson "$src" "$d/native" "-g -O0"
		build cjson "$d/native"
	fi
	cd "$d/native"
	for r in $(seq "$runs"); do
		say "cjson: round $r/$runs"
		timed ctest; best cjson.native
		for u in qemu valgrind; do
			rm -rf "$d/b"
			timed "$hwt" record -q --unit "$u" --root "$src" -o "$d/b" -- ctest; best "cjson.$u.record"
			rm -rf "$d/b"
			for live in 1 0; do
				HWT_DECODE_LIVE=$live timed "$cov" -q --unit "$u" --root "$src" -o "$d/$u.$live.info" -- ctest
				best "cjson.$u.cov.$live"
			done
			same "$d/$u.1.info" "$d/$u.0.info"
			timed "$cov" -q --no-record-filter --unit "$u" --root "$src" -o "$d/$u.nofilter.info" -- ctest
			best "cjson.$u.cov.nofilter"
			filter_same "$d/$u.1.info" "$d/$u.nofilter.info"
		done
		rm -rf "$d/gcov"
		# shellcheck disable=SC2154 # nproc: real_suites.sh's
		timed bash -c "$(declare -f configure build run_suite run_logged suite_command gcov_full); nproc=$nproc
			gcov_full cjson '$src' '$d/gcov' '$d/gcov.info'"
		best cjson.gcov
	done
	row cjson native cjson.native cjson.native
	for u in qemu valgrind; do
		row cjson "hwt record --unit $u" "cjson.$u.record" cjson.native
		row cjson "hwt-cov --unit $u, after run" "cjson.$u.cov.0" cjson.native
		row cjson "hwt-cov --unit $u, live" "cjson.$u.cov.1" cjson.native
		row cjson "  ... --no-record-filter" "cjson.$u.cov.nofilter" cjson.native
		row cjson "  (live against the gcov flow)" "cjson.$u.cov.1" cjson.gcov
	done
	row cjson "gcov flow" cjson.gcov cjson.native
}

uptime >&2
out=$work/table
printf '%-7s %-34s %8s %8s %8s\n' workload run wall_s cpu_s "cpu x" >"$out"
for w in $workloads; do
	$w >>"$out"
done
uptime >&2
cat "$out"
cat "$filter_notes"
