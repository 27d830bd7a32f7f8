#!/usr/bin/env bash
# Benchmark of the Arm path: the QEMU unit's aarch64 guests (ETMv4) and
# OpenCSD's decode.
#
# 1. Slowdown of `hwt record --unit qemu` against plain qemu-aarch64 (same
#    sysroot) on aarch64 builds: a CPU-bound program (cpu_interp train), a
#    short one (loops) and examples/calc's suite (three processes).
# 2. Decode throughput, OpenCSD (ETMv4) against libipt (Intel PT), on
#    comparable traces: the same program and input (cpu_interp train) built
#    for aarch64 and for x86-64 (both gcc -O2 -g), recorded by the QEMU unit,
#    decoded with -j1: MB of trace, million instructions and blocks per
#    second of wall time.
#
# usage: bench/etm/etm_bench.sh [BUILD_DIR]     (default: build)
# Medians of $RUNS runs (default 3). Not a test: no pass/fail.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
runs=${RUNS:-3}
hwt=$(realpath "$build/bin/hwt")
tool=$(realpath "$build/tests/decode/profile_tool")
sysroot=${QEMU_LD_PREFIX:-/usr/aarch64-linux-gnu}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

for t in "$hwt" "$tool"; do
	[ -x "$t" ] || { echo "no $t: build first (scripts/build.sh)" >&2; exit 2; }
done
for t in aarch64-linux-gnu-gcc qemu-aarch64 qemu-x86_64 gcc; do
	command -v "$t" >/dev/null || { echo "no $t: run scripts/setup.sh --tests" >&2; exit 2; }
done

# Median wall time in seconds of running "$@" $runs times.
median() {
	local times=()
	for _ in $(seq "$runs"); do
		local start end
		start=$(date +%s.%N)
		"$@" >/dev/null 2>&1 || true
		end=$(date +%s.%N)
		times+=("$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }')")
	done
	printf '%s\n' "${times[@]}" | sort -n | sed -n "$(( (runs + 1) / 2 ))p"
}

# Builds.
a64=$work/a64
x86=$work/x86
mkdir -p "$a64" "$x86"
aarch64-linux-gnu-gcc -O2 -g -o "$a64/cpu_interp" tests/programs/cpu_interp.c
aarch64-linux-gnu-gcc -O0 -g -o "$a64/loops" tests/programs/loops.c
gcc -O2 -g -o "$x86/cpu_interp" tests/programs/cpu_interp.c
aarch64-linux-gnu-gcc -O0 -g -shared -fPIC -o "$a64/libcalc.so" examples/calc/calc.c
for t in test_arith test_parse test_prime; do
	aarch64-linux-gnu-gcc -O0 -g -Iexamples/calc -o "$a64/$t" "examples/calc/$t.c" \
		-L"$a64" -lcalc -Wl,-rpath,"$a64"
done

# A shell script running the calc tests under plain qemu-aarch64 (the host
# cannot run them): what the suite costs without hwt.
cat >"$work/plain-calc.sh" <<EOF
#!/bin/sh
for t in test_arith test_parse test_prime; do
	qemu-aarch64 -L "$sysroot" "$a64/\$t" || exit 1
done
EOF

plain() { qemu-aarch64 -L "$sysroot" "$@"; }
traced() { rm -rf "$work/b"; "$hwt" record -q --unit qemu -o "$work/b" -- "$@"; }

echo "== the QEMU unit on aarch64 programs: hwt record against plain qemu-aarch64 (s, median of $runs)"
printf '%-22s %9s %9s %9s\n' program plain traced slowdown
row() {
	local name=$1 p t
	shift
	p=$(median "${plain_cmd[@]}")
	t=$(median traced "$@")
	printf '%-22s %9s %9s %8.2fx\n' "$name" "$p" "$t" "$(awk -v p="$p" -v t="$t" 'BEGIN { print t / p }')"
}
plain_cmd=(plain "$a64/cpu_interp" train)
row "cpu_interp train" "$a64/cpu_interp" train
plain_cmd=(plain "$a64/loops")
row "loops" "$a64/loops"
plain_cmd=(sh "$work/plain-calc.sh")
row "calc suite (3 tests)" sh examples/calc/run-tests.sh "$a64"

echo
echo "== decode, -j1: OpenCSD (ETMv4, aarch64 build) against libipt (Intel PT, x86-64 build), cpu_interp train"
rm -rf "$work/etm" "$work/pt"
"$hwt" record -q --unit qemu -o "$work/etm" -- "$a64/cpu_interp" train >/dev/null
"$hwt" record -q --unit qemu -o "$work/pt" -- "$x86/cpu_interp" train >/dev/null
printf '%-8s %10s %12s %10s %8s %10s %12s %12s\n' format "trace MB" "M insns" "M blocks" \
	"s" "MB/s" "M insns/s" "M blocks/s"
for f in etm pt; do
	"$tool" report -j 1 --stats "$work/$f" -o "$work/$f.prof" 2>"$work/$f.stats"
	s=$(median "$tool" report -j 1 "$work/$f" -o "$work/$f.prof")
	# "... N streams, B trace bytes, K blocks, I instructions, ..."
	awk -v f="$f" -v s="$s" '/trace bytes/ {
		for (i = 1; i <= NF; i++) {
			if ($(i + 1) == "trace") b = $i
			if ($(i + 1) == "blocks,") k = $i
			if ($(i + 1) == "instructions,") n = $i
		}
		printf "%-8s %10.1f %12.1f %10.1f %8s %10.1f %12.1f %12.1f\n", f == "etm" ? "ETMv4" : "Intel PT",
			b / 1e6, n / 1e6, k / 1e6, s, b / 1e6 / s, n / 1e6 / s, k / 1e6 / s
	}' "$work/$f.stats"
done
