#!/bin/sh
# Runs each test of the mini suite, counts passes and failures, and exits
# non-zero if any test failed.
#   run-tests.sh [DIR]    DIR holds the test binaries (default: this script's)
dir=${1:-$(dirname "$0")}
pass=0
fail=0
for t in test_expr_basic test_expr_errors test_strutil test_checked \
         test_number_theory test_mixed; do
	if "$dir/$t" >/dev/null; then
		pass=$((pass + 1))
		echo "PASS: $t"
	else
		fail=$((fail + 1))
		echo "FAIL: $t"
	fi
done
echo "mini_suite: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
