#!/bin/sh
# Per-instruction counts of hwt's profile, recorded with the QEMU unit,
# against QEMU's own log of the same run (see qemu_log_compare.py).
#
# usage: [QEMU=qemu-aarch64] [STATUS=N] qemu_log_test.sh BUILD_DIR WORK_DIR PROG [ARGS...]
# QEMU names the QEMU the program runs under: qemu-x86_64 (the default), or
# qemu-aarch64 for an aarch64 program (ETMv4 streams, decoded by OpenCSD).
# STATUS is the exit status hwt record must return (0 by default). Each
# QEMU process logs to qemu.PID.log (a fork child goes on in its parent's
# log); each log is compared in the layout of the last image of its pid.
# Exits 77 (skipped) when PROG was not built (no cross compiler).
set -u
build=$1
work=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
hwt=$build/bin/hwt
tool=$build/tests/decode/profile_tool
prog=$(readlink -f "$1")
shift
if [ ! -x "$prog" ]; then
	echo "SKIP: $prog was not built"
	exit 77
fi

fail() {
	echo "FAIL: $*"
	exit 1
}

name=${QEMU:-qemu-x86_64}
qemu=$(command -v "$name") || fail "$name not found (apt-get install qemu-user)"
. "$(dirname "$0")/../work_dir.sh"
hwt_test_work_dir "$work"
mkdir -p "$work/bin" || exit 1
# hwt record runs the QEMU it finds in PATH: this one also logs.
cat >"$work/bin/$name" <<EOS
#!/bin/sh
exec "$qemu" -d in_asm,exec,nochain -D "$work/qemu.%d.log" "\$@"
EOS
chmod +x "$work/bin/$name"
PATH=$work/bin:$PATH "$hwt" record --unit qemu --trace "$prog" -o "$work/bundle" -- "$prog" "$@" \
	>"$work/record.out" 2>"$work/record.err"
rc=$?
[ $rc -eq "${STATUS:-0}" ] || fail "hwt record exited $rc, not ${STATUS:-0}: $(cat "$work/record.err")"
logs=$(ls "$work"/qemu.*.log 2>/dev/null)
[ -n "$logs" ] || fail "no QEMU log"

"$tool" report "$work/bundle" -o "$work/profile" --stats 2>"$work/report.err"
rc=$?
cat "$work/report.err"
# A process killed by SIGKILL leaves no exit record: a warning (status 1).
[ $rc -eq 0 ] || { [ $rc -eq 1 ] && [ "${STATUS:-0}" -gt 128 ]; } ||
	fail "hwt report profile exited $rc"
# A fault (SIGILL, SIGBUS, SIGFPE, SIGSEGV) kills the process inside a block.
died=
case ${STATUS:-0} in 132|135|136|139) died=--died ;; esac
"$tool" insns "$work/profile" >"$work/insns" || fail "profile_tool insns"
pairs=
for log in $logs; do
	pid=${log##*/qemu.}
	pid=${pid%.log}
	"$tool" maps "$work/bundle" "$pid" >"$work/maps.$pid" || fail "profile_tool maps"
	pairs="$pairs $log:$work/maps.$pid"
done
python3 "$here/qemu_log_compare.py" "$work/insns" $pairs --require "$prog" --min-match 50 $died
