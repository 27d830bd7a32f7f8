#!/bin/bash
# What the software SPE unit costs (hwt record --spe, aarch64 guests under
# the QEMU unit), in CPU seconds (user+sys: the machine is shared, wall time
# says little), against ETMv4 recording alone and against qemu-aarch64 with
# no plugin, on CPU-bound aarch64 builds (gcc -O2 -g): the bundled
# interpreter's training run (tests/programs/cpu_interp.c "train", about
# 1.5 billion instructions) and bench/unit_floor/tokenize.c (2 rounds, about
# 7 million: spe=1 writes some 33 bytes per instruction, so only this one
# runs it). Each round runs every variant once, in turn (A/B alternation);
# the medians of RUNS rounds are printed:
#   floor      qemu-aarch64, no plugin
#   etm        qemu-aarch64 with libhwt-qemu.so (ETMv4 streams only)
#   spe1024    the same with spe=1024 (ETMv4 and SPE, hwt record --spe)
#   spe100     spe=100
#   spe1       spe=1 (every operation sampled)
# and the MB of SPE records each run wrote.
#
#   bash bench/record/spe.sh [BUILD_DIR]      # RUNS=3 by default
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
plugin=$build/lib/hwt/qemu/libhwt-qemu.so
runs=${RUNS:-3}
sysroot=${QEMU_LD_PREFIX:-/usr/aarch64-linux-gnu}
[ -f "$plugin" ] || { echo "no $plugin: build first (cmake --build $build)" >&2; exit 1; }
for t in qemu-aarch64 aarch64-linux-gnu-gcc; do
	command -v $t >/dev/null || { echo "$t not found (scripts/setup.sh --tests)" >&2; exit 1; }
done
tmp=$(mktemp -d /tmp/hwt-spe-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
aarch64-linux-gnu-gcc -O2 -g -o "$tmp/cpu_interp" "$root/tests/programs/cpu_interp.c" || exit 1
aarch64-linux-gnu-gcc -O2 -g -o "$tmp/tokenize" "$root/bench/unit_floor/tokenize.c" || exit 1

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

printf '%-16s %7s %7s %7s %7s %7s   %s\n' program floor etm spe1024 spe100 spe1 \
	"etm/floor spe1024/etm spe100/etm spe1/etm; SPE MB at 1024, 100, 1"
for prog in "cpu_interp train" "tokenize 2"; do
	set -- $prog
	name=$1
	intervals="1024 100"
	[ "$name" = tokenize ] && intervals="1024 100 1"
	rm -f "$tmp"/{floor,etm,spe1024,spe100,spe1}
	echo 0 >"$tmp/spe1"
	mb1=-
	for ((i = 0; i < runs; i++)); do
		cpu floor qemu-aarch64 -L "$sysroot" "$tmp/$name" "${@:2}"
		bundle
		cpu etm qemu-aarch64 -L "$sysroot" -plugin "$plugin,bundle=$tmp/b" "$tmp/$name" "${@:2}"
		for n in $intervals; do
			bundle
			cpu spe$n qemu-aarch64 -L "$sysroot" -plugin "$plugin,bundle=$tmp/b,spe=$n" "$tmp/$name" "${@:2}"
			eval "mb$n=\$(du -sk \"\$tmp/b/spe\" | awk '{printf \"%.1f\", \$1 / 1024}')"
		done
	done
	f=$(median floor) e=$(median etm) a=$(median spe1024) b=$(median spe100)
	[ "$name" = tokenize ] && sed -i '1d' "$tmp/spe1"
	c=$(median spe1)
	printf '%-16s %7s %7s %7s %7s %7s   %.2fx %.2fx %.2fx %.2fx; %s, %s, %s MB\n' "$prog" \
		"$f" "$e" "$a" "$b" "$c" "$(echo "$e / $f" | bc -l)" "$(echo "$a / $e" | bc -l)" \
		"$(echo "$b / $e" | bc -l)" "$(echo "$c / $e" | bc -l)" "$mb1024" "$mb100" "$mb1"
done
