#!/bin/sh
# The decode while recording (converters/decode/live.c) gives what the
# decode after the run gives.
#  1. hwt-cov (QEMU unit, then Valgrind) on a shell running several
#     traced programs one after the other (a pause between them, so that the thread gets to decode them
#     while the command runs; one crashes, one is killed with SIGKILL and
#     has no exit record, one is threaded, one forks and execs): it must
#     say that it decoded process images while the command ran, and its
#     lcov file and messages must be those of `hwt report lcov` on the
#     kept bundle, byte for byte.
#  2. profile_tool live: the bundle copied into a new one, image by image,
#     while the thread decodes it: the profile and messages must be those
#     of `hwt report profile`; with a stream grown after its image was
#     decoded, the early work must be thrown away (no image kept) and the
#     result still the same.
#
# usage: live_test.sh BUILD_DIR WORK_DIR
set -u
build=$1
work=$2
hwt=$build/bin/hwt
cov=$build/bin/hwt-cov
tool=$build/tests/decode/profile_tool
programs=$build/tests/programs

fail() {
	echo "FAIL: $*"
	exit 1
}

. "$(dirname "$0")/../work_dir.sh"
hwt_test_work_dir "$work"
mkdir -p "$work" || exit 1
cd "$work" || exit 1

# --- 1. hwt-cov, end to end, under each software trace unit
for unit in qemu valgrind; do
	rm -rf "run-$unit.hwt"
	"$cov" -v --unit "$unit" --keep "run-$unit.hwt" -o "live-$unit.info" -- sh -c "exec 2>run.err
		$programs/loops; sleep 0.4
		$programs/recursion; sleep 0.4
		$programs/crash; sleep 0.4
		$programs/killed; sleep 0.4
		$programs/threads; sleep 0.4
		$programs/fork_exec; sleep 0.4
		$programs/switch_table; true" >run.out 2>"live-$unit.err"
	status=$?
	# 1: a partial result (docs/exit-status.md), for the killed program's warning.
	[ "$status" = 1 ] || fail "$unit: hwt-cov exited with $status, not 1: $(cat "live-$unit.err")"
	early=$(sed -n 's/^hwt-cov: \([0-9]*\) process images\{0,1\} w[a-z]* decoded while the command ran$/\1/p' "live-$unit.err")
	[ -n "$early" ] || fail "$unit: hwt-cov -v did not say how many images it decoded early: $(cat "live-$unit.err")"
	[ "$early" -ge 4 ] || fail "$unit: only $early process images decoded while the command ran (expected at least 4 of its 8)"
	"$hwt" report lcov -v "run-$unit.hwt" -o "after-$unit.info" 2>"after-$unit.err"
	status=$?
	[ "$status" = 1 ] || fail "$unit: hwt report lcov exited with $status, not 1: $(cat "after-$unit.err")"
	[ -s "live-$unit.info" ] || fail "$unit: hwt-cov wrote no lcov file: $(cat "live-$unit.err")"
	cmp "live-$unit.info" "after-$unit.info" ||
		fail "$unit: the lcov file differs from the decode after the run: $(diff "live-$unit.info" "after-$unit.info" | head -20)"
	grep -v -e 'decoded while the command ran$' -e 'trace bundle kept in' -e '^hwt-cov: [a-z]*[a-z ]* ran natively' \
		-e '^hwt-cov: root ' "live-$unit.err" |
		sed -e 's/^hwt-cov: /X: /' -e "s/live-$unit\.info/OUT/" >live.msg
	sed -e 's/^hwt report lcov: /X: /' -e "s/after-$unit\.info/OUT/" "after-$unit.err" >after.msg
	cmp live.msg after.msg ||
		fail "$unit: the messages differ from the decode after the run: $(diff live.msg after.msg | head -20)"
	grep -q -e "no exit record" -e "the thread was killed" "after-$unit.err" ||
		fail "$unit: no warning about the killed program: $(cat "after-$unit.err")"
	echo "$unit: $early process images decoded while hwt-cov ran"
done

# --- 2. the thread against a bundle written piece by piece
# Exit status 1: a profile with warnings (the killed program's image).
"$tool" report run-qemu.hwt -o after.prof 2>after-prof.err
[ $? -le 1 ] && [ -s after.prof ] || fail "profile_tool report: $(cat after-prof.err)"
for mode in plain grow; do
	rm -rf "copy-$mode.hwt"
	if [ "$mode" = grow ]; then
		"$tool" live run-qemu.hwt "copy-$mode.hwt" "$mode.prof" grow >"$mode.out" 2>"$mode.err"
	else
		"$tool" live run-qemu.hwt "copy-$mode.hwt" "$mode.prof" >"$mode.out" 2>"$mode.err"
	fi || fail "profile_tool live ($mode): $(cat "$mode.err")"
	kept=$(sed -n 's/^live-images //p' "$mode.out")
	case $mode in
	plain) [ "${kept:-0}" -ge 4 ] || fail "profile_tool live: only '$kept' images decoded early" ;;
	grow) [ "$kept" = 0 ] || fail "profile_tool live grow: $kept images kept though a stream grew after its decode" ;;
	esac
	"$tool" report "copy-$mode.hwt" -o "$mode-after.prof" 2>"$mode-after.err"
	[ $? -le 1 ] && [ -s "$mode-after.prof" ] ||
		fail "profile_tool report copy-$mode.hwt: $(cat "$mode-after.err")"
	cmp "$mode.prof" "$mode-after.prof" ||
		fail "$mode: the profile differs from the decode after: $(diff "$mode.prof" "$mode-after.prof" | head)"
	sed "s/copy-$mode.hwt/BUNDLE/g" "$mode.err" >"$mode.msg"
	sed "s/copy-$mode.hwt/BUNDLE/g" "$mode-after.err" >"$mode-after.msg"
	cmp "$mode.msg" "$mode-after.msg" ||
		fail "$mode: the messages differ from the decode after: $(diff "$mode.msg" "$mode-after.msg" | head)"
done
cmp plain.prof after.prof || fail "the copied bundle decodes to another profile than the original"
echo "PASS: the copy decoded early, and again after a stream grew; same lcov, profiles and messages"
