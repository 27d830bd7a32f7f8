#!/bin/sh
# Per-instruction counts of hwt's profile, recorded with the QEMU unit,
# against QEMU's own log of the same run (see qemu_log_compare.py).
#
# usage: qemu_log_test.sh BUILD_DIR WORK_DIR PROG [ARGS...]
set -u
build=$1
work=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
hwt=$build/bin/hwt
tool=$build/tests/decode/profile_tool
prog=$(readlink -f "$1")
shift

fail() {
	echo "FAIL: $*"
	exit 1
}

qemu=$(command -v qemu-x86_64) || fail "qemu-x86_64 not found (apt-get install qemu-user)"
rm -rf "$work"
mkdir -p "$work/bin" || exit 1
# hwt record runs the qemu-x86_64 it finds in PATH: this one also logs.
cat >"$work/bin/qemu-x86_64" <<EOS
#!/bin/sh
exec "$qemu" -d in_asm,exec,nochain -D "$work/qemu.%d.log" "\$@"
EOS
chmod +x "$work/bin/qemu-x86_64"
PATH=$work/bin:$PATH "$hwt" record --unit qemu --trace "$prog" -o "$work/bundle" -- "$prog" "$@" \
	>"$work/record.out" 2>"$work/record.err" ||
	fail "hwt record exited $?: $(cat "$work/record.err")"
logs=$(ls "$work"/qemu.*.log 2>/dev/null)
[ "$(echo "$logs" | wc -w)" = 1 ] || fail "want one QEMU log, got: $logs"

"$tool" report "$work/bundle" -o "$work/profile" --stats 2>"$work/report.err"
rc=$?
cat "$work/report.err"
[ $rc -eq 0 ] || fail "hwt report profile exited $rc"
"$tool" insns "$work/profile" >"$work/insns" || fail "profile_tool insns"
"$tool" maps "$work/bundle" >"$work/maps" || fail "profile_tool maps"
python3 "$here/qemu_log_compare.py" "$work/insns" "$work/maps" $logs --require "$prog" \
	--min-match 50
