#!/bin/sh
# Runs the calc example's tests; exits non-zero if any of them failed.
#   run-tests.sh [DIR]    DIR holds the test binaries (default: this script's)
dir=${1:-$(dirname "$0")}
failed=0
for t in test_arith test_parse test_prime; do
	"$dir/$t" || failed=$((failed + 1))
done
if [ "$failed" -ne 0 ]; then
	echo "calc: $failed test(s) failed"
	exit 1
fi
echo "calc: all tests passed"
