#!/bin/bash
# The QEMU unit's record cost against its floor (plain qemu-x86_64), in CPU
# seconds (user+sys: the machine is shared, wall time says little), on two
# CPU-bound programs: the bundled interpreter's training run
# (tests/programs/cpu_interp.c "train") and bench/unit_floor/tokenize.c.
# Each round runs every variant once, in turn (A/B alternation), and the
# medians of RUNS rounds are printed:
#   native     the program alone
#   floor      qemu-x86_64, no plugin
#   unit       qemu-x86_64 with libhwt-qemu.so (what `hwt record --unit qemu` runs)
#   per-block  the same with fast_encode=off (the block-by-block encoder the
#              unit had before the one-pass encoder)
#   filtered   the unit with filter=PROGRAM (libc and ld.so untraced)
#
#   bash bench/record/qemu_unit.sh [BUILD_DIR]      # RUNS=5 by default
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
plugin=$build/lib/hwt/qemu/libhwt-qemu.so
runs=${RUNS:-5}
[ -f "$plugin" ] || { echo "no $plugin: build first (cmake --build $build)" >&2; exit 1; }
command -v qemu-x86_64 >/dev/null || { echo "qemu-x86_64 not found (apt-get install qemu-user)" >&2; exit 1; }
tmp=$(mktemp -d /tmp/hwt-qemu-unit.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
gcc -O2 -g -o "$tmp/cpu_interp" "$root/tests/programs/cpu_interp.c" || exit 1
gcc -O2 -g -o "$tmp/tokenize" "$root/bench/unit_floor/tokenize.c" || exit 1

# cpu NAME CMD...: user+sys seconds of CMD, appended to $tmp/NAME
cpu() {
	local name=$1
	shift
	/usr/bin/time -f "%U %S" -o "$tmp/t" "$@" >/dev/null 2>"$tmp/err" ||
		{ echo "$name failed: $(cat "$tmp/err")" >&2; exit 1; }
	awk '{printf "%.3f\n", $1 + $2}' "$tmp/t" >>"$tmp/$name"
}
bundle() {
	rm -rf "$tmp/b"
	mkdir -p "$tmp/b/streams" "$tmp/b/sideband" "$tmp/b/blocks"
}
median() { sort -n "$tmp/$1" | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }

printf '%-22s %8s %8s %8s %8s %8s   %s\n' program native floor unit per-block filtered \
	"unit/floor per-block/floor filtered/floor, trace MB"
for prog in "cpu_interp train" "tokenize 200"; do
	set -- $prog
	name=$1
	rm -f "$tmp"/{native,floor,unit,slow,filtered}
	for ((i = 0; i < runs; i++)); do
		cpu native "$tmp/$name" "${@:2}"
		cpu floor qemu-x86_64 "$tmp/$name" "${@:2}"
		bundle
		cpu unit qemu-x86_64 -plugin "$plugin,bundle=$tmp/b" "$tmp/$name" "${@:2}"
		mb=$(du -sm "$tmp/b/streams" | cut -f1)
		bundle
		cpu slow qemu-x86_64 -plugin "$plugin,bundle=$tmp/b,fast_encode=off" "$tmp/$name" "${@:2}"
		bundle
		cpu filtered qemu-x86_64 -plugin "$plugin,bundle=$tmp/b,filter=$name" "$tmp/$name" "${@:2}"
		fmb=$(du -sm "$tmp/b/streams" | cut -f1)
	done
	n=$(median native) f=$(median floor) u=$(median unit) s=$(median slow) fi=$(median filtered)
	printf '%-22s %8s %8s %8s %8s %8s   %.2fx %.2fx %.2fx, %s MB (%s MB filtered)\n' "$prog" "$n" "$f" "$u" \
		"$s" "$fi" "$(echo "$u / $f" | bc -l)" "$(echo "$s / $f" | bc -l)" \
		"$(echo "$fi / $f" | bc -l)" "$mb" "$fmb"
done
