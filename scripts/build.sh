#!/usr/bin/env bash
# Installs what hwt and its tests need (scripts/setup.sh --tests) and builds
# everything into build/: the commands, hwt.ko, the test and benchmark
# programs. Extra arguments go to cmake's configure step.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --tests
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHWT_TESTS=ON -DHWT_KMOD=ON "$@" >/dev/null
cmake --build build -j"$(nproc)"
