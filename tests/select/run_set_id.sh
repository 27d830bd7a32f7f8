#!/bin/sh
# Set-ID programs run natively with their privileges, with an UNTRACED
# record, under --trace-all too (docs/select.md, rule 2): the Valgrind
# unit, which follows every exec itself under --trace-all, failed their
# exec (status 126). The program's exit status passes through; hwt-cov
# names it once and does not suggest --trace-all for it. Needs root (to
# make a file set-user-ID to another user): skipped otherwise.
# usage: run_set_id.sh BUILD_DIR WORKDIR
set -u
build=$1 work=$2
hwt=$build/bin/hwt cov=$build/bin/hwt-cov
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok   $*"; }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }

if [ "$(id -u)" != 0 ]; then
	echo "SKIP: making a set-user-ID program needs root"; exit 77
fi
nobody=$(id -u nobody 2>/dev/null) || { echo "SKIP: no user nobody"; exit 77; }
. "$(dirname "$0")/../work_dir.sh"
hwt_test_work_dir "$work"
mkdir -p "$work"
W=$(cd "$work" && pwd)
cat >"$W/setid.c" <<'EOF2'
#include <stdio.h>
#include <unistd.h>

int main(void)
{
	printf("setid euid=%d\n", (int)geteuid());
	return 7;
}
EOF2
cc -g -O0 "$W/setid.c" -o "$W/setid" && chown nobody "$W/setid" && chmod 4755 "$W/setid" ||
	{ echo "FAIL build"; exit 1; }
# A nosuid mount would not honour the bit: nothing to test there.
"$W/setid" >"$W/native.out"
if ! grep -q "euid=$nobody" "$W/native.out"; then
	echo "SKIP: $W is on a nosuid file system"; exit 77
fi

why="setuid or setgid: the trace unit cannot run it with its privileges"
for unit in valgrind qemu; do
	if [ $unit = qemu ] && ! command -v qemu-x86_64 >/dev/null; then
		echo "skip qemu: no qemu-x86_64"; continue
	fi
	rm -rf "$W/$unit.hwt"
	HWT_UNIT=$unit "$hwt" record -o "$W/$unit.hwt" --trace-all -- \
		sh -c "'$W/setid'; exit \$?" >"$W/$unit.out" 2>"$W/$unit.err"
	st=$?
	if [ $st = 7 ] && grep -q "euid=$nobody" "$W/$unit.out"; then
		ok "$unit --trace-all: the set-ID program ran with its privileges, status 7 kept"
	else
		bad "$unit --trace-all: status $st (want 7)"; cat "$W/$unit.out" "$W/$unit.err"
	fi
	if "$hwt" dump "$W/$unit.hwt" 2>/dev/null | grep -q "untraced .*path=\"$W/setid\" reason=\"$why\""; then
		ok "$unit --trace-all: an UNTRACED record says why"
	else
		bad "$unit --trace-all: no UNTRACED record for it"
	fi
done

# hwt-cov: the note, once, and no --trace-all hint for it.
rm -rf "$W/cov.hwt"
HWT_UNIT=valgrind "$cov" --trace-all --keep "$W/cov.hwt" -o "$W/cov.info" -- \
	sh -c "'$W/setid'; '$W/setid'; exit 0" >"$W/cov.out" 2>"$W/cov.err"
st=$?
if [ $st = 0 ] && [ "$(grep -c "not traced: $W/setid ($why)" "$W/cov.err")" = 1 ] &&
   ! grep -q -- "--trace-all every process" "$W/cov.err"; then
	ok "hwt-cov: the set-ID program named once, no --trace-all hint"
else
	bad "hwt-cov: status $st, messages:"; cat "$W/cov.err"
fi
# and without --trace-all, the same
rm -rf "$W/sel.hwt"
"$cov" --keep "$W/sel.hwt" -o "$W/sel.info" -- sh -c "'$W/setid'; exit 0" \
	>"$W/sel.out" 2>"$W/sel.err"
if grep -q "not traced: $W/setid ($why)" "$W/sel.err" && grep -q "euid=$nobody" "$W/sel.out" &&
   ! grep -q -- "--trace-all" "$W/sel.err"; then
	ok "hwt-cov (selection): the set-ID program named, no --trace-all hint"
else
	bad "hwt-cov (selection): messages:"; cat "$W/sel.err"
fi

echo "$pass passed, $fail failed"
[ $fail -eq 0 ] && [ $pass -gt 0 ]
