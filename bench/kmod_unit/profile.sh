#!/usr/bin/env bash
# Where the kernel unit's stepping time goes, in a QEMU guest as the tests
# boot it (profile_guest.sh). Not a test.
#   bench/kmod_unit/profile.sh [BUILD_DIR]     (default: build; HWT_KVER as for the tests)
set -euo pipefail
cd "$(dirname "$0")/../.."
build=$(cd "${1:-build}" && pwd)
work=$build/bench-kmod-profile
mkdir -p "$work"
HWT_GUEST_SCRIPT=bench/kmod_unit/profile_guest.sh HWT_KTEST=0 \
	tests/kmod/run_qemu.sh "$PWD" "$work" "$build" > "$work.log" 2>&1 || true
cat "$work/out/profile.txt" 2>/dev/null || { tail -30 "$work.log"; exit 1; }
