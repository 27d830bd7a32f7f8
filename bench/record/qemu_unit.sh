#!/bin/bash
# The QEMU unit's record cost against its floor (plain qemu-x86_64), in
# wall seconds and in CPU seconds (user+sys), on two CPU-bound programs: the
# bundled interpreter's training run (tests/programs/cpu_interp.c "train")
# and bench/unit_floor/tokenize.c. The unit encodes on a second thread
# (async_encode), so its wall time and its CPU time differ: compare walls
# only on an idle machine, CPU times anywhere. Each round runs every variant
# once, in turn (A/B alternation), and the medians of RUNS rounds are printed:
#   native     the program alone
#   floor      qemu-x86_64, no plugin
#   unit       qemu-x86_64 with libhwt-qemu.so (what `hwt record --unit qemu` runs)
#   in-place   the same with async_encode=off (every log encoded by the
#              vCPU's thread, as before the encoder thread)
#   per-block  fast_encode=off,async_encode=off (the block-by-block encoder
#              the unit had before the one-pass encoder)
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

# cpu NAME CMD...: user+sys seconds of CMD, appended to $tmp/NAME, and its
# wall seconds to $tmp/NAME.wall
cpu() {
	local name=$1
	shift
	/usr/bin/time -f "%U %S %e" -o "$tmp/t" "$@" >/dev/null 2>"$tmp/err" ||
		{ echo "$name failed: $(cat "$tmp/err")" >&2; exit 1; }
	awk '{printf "%.3f\n", $1 + $2}' "$tmp/t" >>"$tmp/$name"
	awk '{printf "%.3f\n", $3}' "$tmp/t" >>"$tmp/$name.wall"
}
bundle() {
	rm -rf "$tmp/b"
	mkdir -p "$tmp/b/streams" "$tmp/b/sideband" "$tmp/b/blocks"
}
median() { sort -n "$tmp/$1" | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }

ratio() { echo "$1 / $2" | bc -l | xargs printf '%.2fx'; }
printf '%-18s %-5s %7s %7s %7s %8s %9s %8s   %s\n' program time native floor unit in-place per-block \
	filtered "unit, in-place, per-block, filtered against the floor"
for prog in "cpu_interp train" "tokenize 200"; do
	set -- $prog
	name=$1
	rm -f "$tmp"/{native,floor,unit,inplace,slow,filtered}{,.wall}
	for ((i = 0; i < runs; i++)); do
		cpu native "$tmp/$name" "${@:2}"
		cpu floor qemu-x86_64 "$tmp/$name" "${@:2}"
		bundle
		cpu unit qemu-x86_64 -plugin "$plugin,bundle=$tmp/b" "$tmp/$name" "${@:2}"
		mb=$(du -sm "$tmp/b/streams" | cut -f1)
		bundle
		cpu inplace qemu-x86_64 -plugin "$plugin,bundle=$tmp/b,async_encode=off" "$tmp/$name" "${@:2}"
		bundle
		cpu slow qemu-x86_64 -plugin "$plugin,bundle=$tmp/b,fast_encode=off,async_encode=off" \
			"$tmp/$name" "${@:2}"
		bundle
		cpu filtered qemu-x86_64 -plugin "$plugin,bundle=$tmp/b,filter=$name" "$tmp/$name" "${@:2}"
		fmb=$(du -sm "$tmp/b/streams" | cut -f1)
	done
	for kind in wall cpu; do
		sfx=; [ $kind = wall ] && sfx=.wall
		n=$(median native$sfx) f=$(median floor$sfx) u=$(median unit$sfx) ip=$(median inplace$sfx)
		s=$(median slow$sfx) fi=$(median filtered$sfx)
		printf '%-18s %-5s %7s %7s %7s %8s %9s %8s   %s %s %s %s, %s MB (%s MB filtered)\n' "$prog" \
			$kind "$n" "$f" "$u" "$ip" "$s" "$fi" "$(ratio "$u" "$f")" "$(ratio "$ip" "$f")" \
			"$(ratio "$s" "$f")" "$(ratio "$fi" "$f")" "$mb" "$fmb"
	done
done
