#!/usr/bin/env bash
# Builds hwt and runs every test: once in a normal build (including the
# hwt.ko tests, which boot a kernel under QEMU), once more with
# AddressSanitizer and UndefinedBehaviorSanitizer on all user-space code.
# This is what CI runs (.ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)

# Warnings are errors here (HWT_WERROR), not in a user's own build.
bash scripts/build.sh -DHWT_WERROR=ON
echo "== tests (build/)"
(cd build && ctest --output-on-failure -j"$jobs")

echo "== tests under ASan+UBSan (build-sanitize/)"
cmake -S . -B build-sanitize -DCMAKE_BUILD_TYPE=Debug -DHWT_SANITIZE=ON -DHWT_TESTS=ON -DHWT_KMOD=OFF -DHWT_KMOD_TESTS=OFF \
      -DHWT_WERROR=ON >/dev/null
cmake --build build-sanitize -j"$jobs"
(cd build-sanitize && ctest --output-on-failure -j"$jobs")
