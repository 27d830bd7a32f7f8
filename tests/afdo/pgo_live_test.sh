#!/bin/sh
# hwt-pgo decodes the training run while it runs (the decode while
# recording, converters/decode/live.c), and its profile is the one the
# decode after the run gives:
#  1. hwt-pgo -v on a training run of seven processes (src/pgo_suite.c
#     runs itself six times, pauses between them): it must say that it
#     decoded process images while the run went on, and the time of its
#     training step; its sample profile must be, byte for byte, what `hwt
#     report afdo` writes from the kept bundle.
#  2. HWT_DECODE_LIVE=0: nothing decoded early, the same profile.
#
# usage: pgo_live_test.sh BUILD_DIR SRC_DIR WORK_DIR
set -u
build=$1
src=$2
work=$3
hwt=$build/bin/hwt
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

# --- 1. decoded while the training runs
"$pgo" -v --train "train 6 400" --keep live.hwt -o live -- "$src/pgo_suite.c" >live.out 2>live.err ||
	fail "hwt-pgo exited with $?: $(cat live.err)"
early=$(sed -n 's/^hwt-pgo: \([0-9]*\) process images were decoded while the command ran$/\1/p' live.err)
[ -n "$early" ] || fail "hwt-pgo -v did not say how many images it decoded early: $(cat live.err)"
[ "$early" -ge 3 ] || fail "only $early process images decoded while the training ran (expected at least 3 of its 7)"
grep -q '^hwt-pgo: the training step (record and decode) took [0-9.]* s, [0-9.]* s of CPU; [0-9.]* s of it decoding after the run$' live.err ||
	fail "hwt-pgo -v did not say what the training step took: $(cat live.err)"
"$hwt" report afdo -q live.hwt --binary live.hwt-pgo/train -o after.afdo 2>after.err ||
	fail "hwt report afdo failed: $(cat after.err)"
[ -s live.afdo ] || fail "hwt-pgo wrote no profile: $(cat live.err)"
cmp live.afdo after.afdo ||
	fail "the profile differs from the decode after the run: $(diff live.afdo after.afdo | head -20)"
grep -q '^main:' live.afdo || fail "the profile has no samples of main(): $(head live.afdo)"
echo "$early of 7 process images decoded while the training ran; the same profile as hwt report afdo"

# --- 2. the decode while recording turned off
HWT_DECODE_LIVE=0 "$pgo" -v --train "train 6 0" -o off -- "$src/pgo_suite.c" >off.out 2>off.err ||
	fail "HWT_DECODE_LIVE=0 hwt-pgo exited with $?: $(cat off.err)"
grep -q '^hwt-pgo: 0 process images were decoded while the command ran$' off.err ||
	fail "HWT_DECODE_LIVE=0: images were decoded early: $(cat off.err)"
cmp live.afdo off.afdo ||
	fail "HWT_DECODE_LIVE=0 gives another profile: $(diff live.afdo off.afdo | head -20)"
echo "PASS: hwt-pgo's profile decoded while the training ran is that of the decode after it"
