#!/bin/sh
# hwt-pgo and the training run's output (issue 34): without -q the training
# run's standard output passes through, and hwt-pgo says it follows; with
# -q it goes to /dev/null. The work files are where --help says: the
# training binary DIR/train under --work DIR, its trace and counts gone.
#
# usage: pgo_output_test.sh BUILD_DIR WORK_DIR
set -u
build=$1
work=$2
pgo=$build/bin/hwt-pgo

fail() {
	echo "FAIL: $*"
	exit 1
}

command -v clang-19 >/dev/null || { echo "skipped: clang-19 not found (scripts/setup.sh --tests installs it)"; exit 77; }
. "$(dirname "$0")/../work_dir.sh"
hwt_test_work_dir "$work"
mkdir -p "$work" || exit 1
cd "$work" || exit 1

cat >prog.c <<'PROG'
#include <stdio.h>
#include <string.h>
int main(int argc, char **argv)
{
	unsigned sum = 0;
	for (int i = 0; i < 1000; i++)
		sum += (unsigned)i * (argc > 1 ? (unsigned)strlen(argv[1]) : 1u);
	printf("training output %s %u\n", argc > 1 ? argv[1] : "-", sum);
	return 0;
}
PROG

# --- 1. the training run's output shows
"$pgo" --train "marker" --work w -o prog -- prog.c >loud.out 2>loud.err ||
	fail "hwt-pgo exited with $?: $(cat loud.err)"
grep -qx 'training output marker 2997000' loud.out ||
	fail "the training run's output did not pass through: stdout $(cat loud.out)"
grep -q '^hwt-pgo: 2/4 train (traced; its output follows): ' loud.err ||
	fail "hwt-pgo did not say where the training output goes: $(cat loud.err)"
[ -x w/train ] || fail "no training binary w/train, which --help names"
[ ! -e w/train.prof ] && [ ! -e w/train.hwt ] || fail "the trace or counts stayed in w/: $(ls w)"
[ -x prog ] || fail "no optimised program"

# --- 2. -q: not a line of it
"$pgo" -q --train "marker" --work wq -o progq -- prog.c >quiet.out 2>quiet.err ||
	fail "hwt-pgo -q exited with $?: $(cat quiet.err)"
if grep -q 'training output' quiet.out quiet.err; then
	fail "hwt-pgo -q let the training run's output through: $(cat quiet.out quiet.err)"
fi
[ -x progq ] || fail "hwt-pgo -q built no program"
echo "PASS: the training run's output passes through, and not with -q"
