#!/bin/sh
# The DT_NEEDED walk against ld.so: for each program, the libraries `ldd`
# lists (canonical paths, the loader and vDSO left out) are what
# needed_check must find; then its robustness checks.
# usage: run_needed.sh NEEDED_CHECK WORKDIR
set -u
check=$1 work=$2
. "$(dirname "$0")/../work_dir.sh"
hwt_test_work_dir "$work"
mkdir -p "$work"
status=0 checked=0
for prog in /usr/bin/python3 /usr/bin/cmake; do
	[ -x "$prog" ] || continue
	checked=$((checked + 1))
	env -i ldd "$prog" | sed -n 's/.*=> \(\/[^ ]*\) (0x.*/\1/p' | xargs -r realpath >"$work/expected"
	echo "$prog: $(wc -l <"$work/expected") libraries by ldd"
	"$check" "$prog" "$work/expected" "$work" || status=1
done
[ $checked -gt 0 ] || { echo "FAIL: neither /usr/bin/python3 nor /usr/bin/cmake to check"; status=1; }
exit $status
