#!/usr/bin/env bash
# The main job on the bundled example: installs what the commands need
# (scripts/setup.sh, without --tests), builds the commands, the trace units
# and the example (a user's build: no hwt.ko, no test programs), then
# measures the coverage of examples/calc's test suite from its branch trace,
# without rebuilding the example with --coverage.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# The options a build/ configured already has (scripts/build.sh's) are kept.
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)"
out=build/demo
rm -rf "$out"
mkdir -p "$out"
if [ -x build/bin/hwt-cov ]; then
	build/bin/hwt-cov -o "$out/calc.info" --html "$out/html" --keep "$out/calc.hwt" \
		-- sh examples/calc/run-tests.sh build/examples/calc
	echo
	echo "lcov: $out/calc.info   report: $out/html/index.html   trace: $out/calc.hwt"
else
	build/bin/hwt record -o "$out/calc.hwt" -- sh examples/calc/run-tests.sh build/examples/calc
	build/bin/hwt dump --sideband-only "$out/calc.hwt" | head -n 40
fi
