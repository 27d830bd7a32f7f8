#!/usr/bin/env bash
# What a short hwt run costs in the sanitizer build (ASan+UBSan), leak check
# on and off: CPU-seconds (user+sys) and peak RSS of `hwt --version`, `hwt
# report folded`, `hwt report profile` and `profile_tool report` of an
# aarch64 run (ETMv4, OpenCSD loaded) and an x86-64 run (Intel PT). The
# CI's sanitizer pass runs hundreds of such processes (decode.etm_damage
# about 600): what LeakSanitizer adds at each exit adds up there.
# detect_leaks=0 is only the comparison here; the tests keep the check.
#
# usage: bench/sanitizer/exit_bench.sh [BUILD_DIR]   (default: build-san,
#        configured with -DHWT_SANITIZE=ON -DHWT_TESTS=ON)
# Medians of $RUNS runs (default 5), on and off alternated. Not a test.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
build=${1:-build-san}
runs=${RUNS:-5}
hwt=$(realpath "$build/bin/hwt")
tool=$(realpath "$build/tests/decode/profile_tool")
a64=$(realpath "$build/tests/programs/aarch64/gcc/function_pointers")
x86=$(realpath "$build/tests/programs/recursion")
for t in "$hwt" "$tool" "$a64" "$x86"; do
	[ -x "$t" ] || { echo "no $t: build $build with -DHWT_SANITIZE=ON -DHWT_TESTS=ON" >&2; exit 2; }
done
ldd "$hwt" | grep -q libasan || { echo "$hwt is not a sanitizer build" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

"$hwt" record --root "$root" -o a64.hwt -- "$a64" >/dev/null 2>&1
"$hwt" record --root "$root" -o x86.hwt -- "$x86" >/dev/null 2>&1

# median OPTIONS CMD...: "CPU-s peak-KiB", medians of $runs runs.
median() {
	local options=$1 i
	shift
	for i in $(seq "$runs"); do
		ASAN_OPTIONS=$options /usr/bin/time -f '%U %S %M' "$@" 2>&1 >/dev/null | tail -1
	done | awk '{ c[NR] = $1 + $2; m[NR] = $3 }
		function med(a, n,   i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
			if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }; return a[int((n + 1) / 2)] }
		END { printf "%.2f %d", med(c, NR), med(m, NR) / 1024 }'
}

printf '%-34s %18s %18s\n' "run (sanitizer build)" "leaks checked" "detect_leaks=0"
printf '%-34s %18s %18s\n' "" "CPU-s  MB" "CPU-s  MB"
row() {
	local name=$1 on off
	shift
	on=$(median exitcode=99 "$@")
	off=$(median exitcode=99:detect_leaks=0 "$@")
	printf '%-34s %18s %18s\n' "$name" "$on" "$off"
}
row "hwt --version" "$hwt" --version
for b in a64 x86; do
	row "hwt report folded ($b)" "$hwt" report folded -o out.folded $b.hwt
	row "hwt report profile ($b)" "$hwt" report profile -q -o out.prof $b.hwt
	row "profile_tool report ($b)" "$tool" report $b.hwt -o out.tprof
done
