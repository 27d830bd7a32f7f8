#!/bin/sh
# hwt flame decodes while the command runs (the decode while recording,
# converters/decode/live.c, into a stack builder of its own), and what it
# writes is what the decode after the run gives:
#  1. hwt flame -v --format folded --stats on a shell running several
#     traced programs with pauses between them (one crashes, one is killed
#     and has no exit record, one is threaded, one forks and execs): it
#     must say that it decoded process images while the command ran; its
#     folded stacks, statistics and warnings must be, byte for byte, those
#     of `hwt report folded` on the kept bundle.
#  2. The same for the SVG flame graph, against `hwt report flame`.
#  3. HWT_DECODE_LIVE=0 (the thread never runs: the finish decodes the
#     whole bundle into the after-the-run builder): nothing decoded early,
#     the same folded stacks.
#
# usage: flame_live_test.sh BUILD_DIR WORK_DIR
set -u
build=$1
work=$2
hwt=$build/bin/hwt
programs=$build/tests/programs

fail() {
	echo "FAIL: $*"
	exit 1
}

. "$(dirname "$0")/../work_dir.sh"
hwt_test_work_dir "$work"
mkdir -p "$work" || exit 1
cd "$work" || exit 1

suite="exec 2>run.err
	$programs/recursion; sleep 0.4
	$programs/crash; sleep 0.4
	$programs/killed; sleep 0.4
	$programs/threads; sleep 0.4
	$programs/fork_exec; sleep 0.4"

# live.hwt's messages, as `hwt report FORMAT` says them (X: for the prefix).
messages() {
	# The recording's root line is hwt flame's alone (the report reads a bundle).
	grep -v -e 'decoded while the command ran$' -e '^hwt flame: wrote ' -e '^hwt flame: root ' "$1" |
		sed -e 's/^hwt flame: /X: /' -e 's/^hwt report [a-z]*: /X: /'
}

# FORMAT OUTPUT: hwt flame, then hwt report FORMAT on its bundle; compared.
check() {
	format=$1 out=$2
	rm -rf "$format.hwt"
	# Exit status 1: a partial graph (the killed program), as docs/exit-status.md says.
	"$hwt" flame -v --stats --format "$format" --keep "$format.hwt" -o "live.$out" -- sh -c "$suite" \
		>run.out 2>"live-$format.err"
	rc=$?
	[ $rc -eq 1 ] || fail "$format: hwt flame exited with $rc, want 1: $(cat "live-$format.err")"
	early=$(sed -n 's/^hwt flame: \([0-9]*\) process images were decoded while the command ran$/\1/p' "live-$format.err")
	[ -n "$early" ] || fail "$format: hwt flame -v did not say how many images it decoded early: $(cat "live-$format.err")"
	[ "$early" -ge 2 ] || fail "$format: only $early process images decoded while the command ran (expected at least 2 of 6)"
	# Exit status 1: written, with warnings (the killed program).
	"$hwt" report "$format" --stats "$format.hwt" -o "after.$out" 2>"after-$format.err"
	[ $? -le 1 ] && [ -s "after.$out" ] || fail "hwt report $format: $(cat "after-$format.err")"
	cmp "live.$out" "after.$out" ||
		fail "$format: hwt flame's output differs from the decode after the run: $(diff "live.$out" "after.$out" | head -20)"
	messages "live-$format.err" >live.msg
	messages "after-$format.err" >after.msg
	cmp live.msg after.msg ||
		fail "$format: the messages differ from the decode after the run: $(diff live.msg after.msg | head -20)"
	grep -q -e "no exit record" -e "the thread was killed" "after-$format.err" ||
		fail "$format: no warning about the killed program: $(cat "after-$format.err")"
	echo "$format: $early process images decoded while hwt flame ran; the same output and messages"
}

# --- 1. and 2.
check folded folded
grep -q ';main;' live.folded || fail "no stack through main in the folded stacks: $(head -5 live.folded)"
check flame svg

# --- 3. the thread never runs
HWT_DECODE_LIVE=0 "$hwt" flame -v --format folded --keep off.hwt -o off.folded -- sh -c "$suite" \
	>run.out 2>off.err
rc=$?
[ $rc -eq 1 ] || fail "HWT_DECODE_LIVE=0 hwt flame exited with $rc, want 1: $(cat off.err)"
grep -q '^hwt flame: 0 process images were decoded while the command ran$' off.err ||
	fail "HWT_DECODE_LIVE=0: images were decoded early: $(cat off.err)"
"$hwt" report folded off.hwt -o off-after.folded 2>/dev/null
cmp off.folded off-after.folded ||
	fail "HWT_DECODE_LIVE=0: another result than the decode after the run: $(diff off.folded off-after.folded | head)"
echo "PASS: hwt flame's stacks decoded while the command ran are those of the decode after it"
