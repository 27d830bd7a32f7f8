#!/bin/sh
# A shell-driven suite: many short processes, most of them system utilities.
set -e
B=$1
for i in 1 2 3 4 5 6; do
	$B/test_calc gcd $i | grep -q ok
	echo "fib $i" | sed 's/^/x /' | cut -d' ' -f2- | xargs $B/test_calc >/dev/null
done
env -i PATH=/usr/bin:/bin $B/test_calc prime 50 >/dev/null
/usr/bin/python3 - "$B" <<'PY'
import subprocess, sys, os
b = sys.argv[1]
for n in (5, 6):
    subprocess.run([os.path.join(b, "test_calc"), "fib", str(n)], check=True, stdout=subprocess.DEVNULL)
PY
ls $B >/dev/null
