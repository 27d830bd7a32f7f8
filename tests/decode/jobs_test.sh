#!/bin/sh
# Parallel decode: decoding a bundle of several processes (and threads) with
# -j1 (the serial decode) and -j2, -j3, -j8 gives the same bytes: the
# profile, its warnings, the lcov file and AutoFDO's text input. The same
# for a damaged bundle (corrupt and cut streams, a replaced image), whose
# warnings must come in the same order too. -j8 runs several times, to give
# timing a chance to matter. Then a suite of short processes, whose
# workers' edge pools hold thousands of counts: -j1, -j2, -j3, -j5.
#
# usage: jobs_test.sh BUILD_DIR WORK_DIR
set -u
build=$1
work=$2
hwt=$build/bin/hwt
programs=$build/tests/programs

fail() {
	echo "FAIL: $*"
	exit 1
}

. "$(dirname "$0")/flip.sh"

# outputs BUNDLE J DIR: every output of a decode with -jJ, in DIR (the
# same names in every DIR, as messages name them).
outputs() {
	mkdir -p "$3" && cd "$3" || exit 1
	"$hwt" report profile -j "$2" "$work/$1" -o out.prof 2>prof.err
	echo "exit $?" >>prof.err
	"$hwt" report lcov --jobs "$2" "$work/$1" -o out.info 2>info.err
	echo "exit $?" >>info.err
	"$hwt" report afdo-text -j "$2" "$work/$1" --binary "$work/bin/loops" -o out.afdo \
		2>afdo.err
	echo "exit $?" >>afdo.err
	cd "$work" || exit 1
}

# same BUNDLE NAME: -j1 against the others, byte for byte.
same() {
	outputs "$1" 1 "$2.j1"
	[ -s "$2.j1/out.prof" ] || fail "$2: no profile written: $(cat "$2.j1/prof.err")"
	[ -s "$2.j1/out.info" ] || fail "$2: no lcov file written: $(cat "$2.j1/info.err")"
	[ -s "$2.j1/out.afdo" ] || fail "$2: no afdo text written: $(cat "$2.j1/afdo.err")"
	for j in 2 3 8 8.2 8.3 8.4 0; do
		outputs "$1" "${j%%.*}" "$2.j$j"
		for f in out.prof prof.err out.info info.err out.afdo afdo.err; do
			cmp "$2.j1/$f" "$2.j$j/$f" ||
				fail "$2: -j${j%%.*} gives another $f than -j1: $(diff "$2.j1/$f" "$2.j$j/$f" | head -20)"
		done
	done
}

. "$(dirname "$0")/../work_dir.sh"
hwt_test_work_dir "$work"
mkdir -p "$work/bin" || exit 1
cd "$work" || exit 1
cp "$programs/loops" "$programs/recursion" bin/ || exit 1

# Processes: a shell (not traced), fork_exec (a fork and an exec of loops),
# threads (several streams in one process), loops and recursion.
"$hwt" record -o multi.hwt -- sh -c \
	"$programs/fork_exec; $work/bin/loops; $programs/threads; $work/bin/recursion" \
	>/dev/null 2>record.err || fail "hwt record: $(cat record.err)"
images=$(ls multi.hwt/sideband | wc -l)
streams=$(ls multi.hwt/streams | wc -l)
[ "$images" -ge 4 ] && [ "$streams" -gt "$images" ] ||
	fail "wanted several processes and threads: $images images, $streams streams"
same multi.hwt multi

# Damaged: two corrupt streams, a cut one, an image replaced since the run.
cp -r multi.hwt damaged.hwt
n=0
for s in damaged.hwt/streams/*.pt; do
	size=$(stat -c %s "$s")
	case $n in
	0|2) flip "$s" $((size / 2)) 24 ;;
	3) truncate -s $((size / 2 + 3)) "$s" ;;
	esac
	n=$((n + 1))
done
cp "$programs/recursion_o2" bin/recursion
same damaged.hwt damaged
grep -q "decode error at offset" damaged.j1/prof.err || fail "damaged: no decode error reported"
grep -q "replaced" damaged.j1/prof.err || fail "damaged: the replaced image is not reported"
grep -q "^exit 1" damaged.j1/prof.err || fail "damaged: wanted exit status 1 (partial)"

# A suite of short processes: every one runs ld.so's and libc's start-up,
# so each worker's edge pool holds thousands of counts, kept in as many
# parts as workers (3 parts of 16,384 slots are not a power of two each;
# a table sized so spun at -j3). Profiles only, under a time limit.
suite=$programs/mini_suite
"$hwt" record -o suite.hwt -- sh -c "for i in 1 2 3 4; do sh $suite/run-tests.sh $suite; done" \
	>/dev/null 2>suite_record.err
[ -d suite.hwt/streams ] || fail "hwt record (suite): $(cat suite_record.err)"
suite_images=$(ls suite.hwt/sideband | wc -l)
[ "$suite_images" -ge 24 ] || fail "wanted the suite's processes: $suite_images images"
timeout 120 "$hwt" report profile -q -j 1 suite.hwt -o suite.j1.prof ||
	fail "suite -j1: exit $?"
for j in 2 3 5; do
	timeout 120 "$hwt" report profile -q -j "$j" suite.hwt -o "suite.j$j.prof" ||
		fail "suite -j$j: exit $? (124: it did not end)"
	cmp suite.j1.prof "suite.j$j.prof" || fail "suite: -j$j gives another profile than -j1"
done
echo "jobs: ok ($images process images, $streams streams; -j1 = -j2 = -j3 = -j8 = -j0;" \
	"a suite of $suite_images images, -j1 = -j2 = -j3 = -j5)"
