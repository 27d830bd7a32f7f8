#!/usr/bin/env bash
# Benchmark of the kernel unit (hwt.ko's sw backend), in a QEMU guest as the
# tests run it (tests/kmod/run_qemu.sh): stepped instructions per second
# against native, and the cost per short process against the QEMU and
# Valgrind units in the same guest (TCG: everything there runs slower than
# on the host, by the same emulator). Not a test: no pass/fail.
#   bench/kmod_unit/run.sh [BUILD_DIR]     (default: build; HWT_KVER as for the tests)
set -euo pipefail
cd "$(dirname "$0")/../.."
build=$(cd "${1:-build}" && pwd)
work=$build/bench-kmod-unit
HWT_GUEST_SCRIPT=bench/kmod_unit/guest.sh HWT_KTEST=0 \
	tests/kmod/run_qemu.sh "$PWD" "$work" "$build" > "$work.log" 2>&1 || true
cat "$work/out/bench.txt" 2>/dev/null || { tail -30 "$work.log"; exit 1; }
