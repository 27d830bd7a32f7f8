#!/usr/bin/env bash
# Builds hwt and runs every test: once in a normal build (including the
# hwt.ko tests, which boot a kernel under QEMU), once more with
# AddressSanitizer and UndefinedBehaviorSanitizer on all user-space code.
# This is what CI runs (.ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)

bash scripts/build.sh
echo "== tests (build/)"
(cd build && ctest --output-on-failure -j"$jobs")

echo "== tests under ASan+UBSan (build-sanitize/)"
cmake -S . -B build-sanitize -DCMAKE_BUILD_TYPE=Debug -DHWT_SANITIZE=ON -DHWT_KMOD_TESTS=OFF >/dev/null
cmake --build build-sanitize -j"$jobs"
(cd build-sanitize && ctest --output-on-failure -j"$jobs")
