#!/bin/sh
# What selection costs an exec that it leaves native: a shell loop of N
# `/bin/true` (and N/5 `python3 -S -c pass`, which loads more libraries) natively
# and under `hwt record`, best of RUNS. With OLD_PRELOAD (an older
# libhwt-preload.so, e.g. built before selection by library), the same
# under a copy of the build that uses it, interleaved, for a before/after.
# usage: bench/select/exec_cost.sh BUILD_DIR [N] [RUNS]
set -eu
build=$(cd "$1" && pwd) n=${2:-1000} runs=${3:-7}
W=$(mktemp -d "${TMPDIR:-/tmp}/hwt-bench-exec.XXXXXX") # TMPDIR=/dev/shm keeps the disk out
trap 'rm -rf "$W"' EXIT

variants=new
if [ -n "${OLD_PRELOAD:-}" ]; then
	# hwt finds its library next to its own executable: a copy of the tree.
	mkdir -p "$W/tree/bin" "$W/tree/lib/hwt"
	cp "$build/bin/hwt" "$W/tree/bin/"
	cp -r "$build/lib/hwt/valgrind" "$W/tree/lib/hwt/"
	cp "$OLD_PRELOAD" "$W/tree/lib/hwt/libhwt-preload.so"
	variants="old new"
fi
hwt_of() { if [ "$1" = old ]; then echo "$W/tree/bin/hwt"; else echo "$build/bin/hwt"; fi; }

# loop.sh COUNT CMD...: CMD COUNT times
cat >"$W/loop.sh" <<'LOOP'
n=$1 i=0
shift
while [ $i -lt $n ]; do "$@"; i=$((i + 1)); done
LOOP
now() { date +%s%N; }
best() { sort -n | head -1; }

for prog in /bin/true "/usr/bin/python3 -S -c pass"; do
	case $prog in /bin/true) count=$n ;; *) count=$((n / 5)) ;; esac # python3 is slower
	: >"$W/native"
	for v in $variants; do : >"$W/$v"; done
	r=0
	while [ $r -lt "$runs" ]; do
		t0=$(now); sh "$W/loop.sh" $count $prog; t1=$(now)
		echo $(((t1 - t0) / count)) >>"$W/native"
		for v in $variants; do
			rm -rf "$W/b"
			t0=$(now); "$(hwt_of $v)" record -q -o "$W/b" -- sh "$W/loop.sh" $count $prog \
				2>/dev/null; t1=$(now)
			echo $(((t1 - t0) / count)) >>"$W/$v"
		done
		r=$((r + 1))
	done
	nat=$(best <"$W/native")
	line="$prog: native $((nat / 1000)) us/exec"
	for v in $variants; do
		t=$(best <"$W/$v")
		line="$line, hwt record ($v) $((t / 1000)) us (+$(((t - nat) / 1000)))"
	done
	echo "$line"
done
