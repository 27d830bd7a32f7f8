#!/usr/bin/env bash
# Are two builds of the Valgrind tool's trace the same? Records each program
# below once with each tool (HWT_VALGRIND_LIB=A, then B) and compares, byte
# for byte: the streams (as a multiset of file contents: names hold pids),
# and the lcov, profile and folded-stacks reports of the two bundles.
#
# usage: bench/record/valgrind_same.sh LIB_A LIB_B [BUILD_DIR]
#   LIB_A, LIB_B: directories like BUILD_DIR/lib/hwt/valgrind (copy one aside
#   before rebuilding); BUILD_DIR defaults to build.
# Prints one line per program and exits 1 when anything differs. Not a CTest
# test: it needs two builds of the tool.
set -uo pipefail
cd "$(dirname "$0")/../.."
lib_a=$(realpath "$1") lib_b=$(realpath "$2") build=${3:-build}
hwt=$(realpath "$build/bin/hwt")
progs=$(realpath "$build/tests/programs")
work=$(mktemp -d /tmp/valgrind_same.XXXXXX)
trap 'rm -rf "$work"' EXIT

# name|reports|command: the interpreter, C++ exceptions, threads, signals,
# fork/exec, longjmp, a crash, a process killed by a signal, REP string
# instructions, a suite of processes. The interpreter's 400 MB of trace get
# no folded stacks (minutes of decoding); equal streams imply equal reports
# anyway, as the sideband is the same.
all="lcov profile folded"
cases=(
	"cpu_interp|lcov profile|$progs/cpu_interp train"
	"cxx_exceptions|$all|$progs/cxx_exceptions"
	"threads|$all|$progs/threads"
	"signal_handler|$all|$progs/signal_handler"
	"fork_exec|$all|$progs/fork_exec"
	"longjmp|$all|$progs/longjmp_o2"
	"crash|$all|$progs/crash"
	"killed|$all|$progs/killed"
	"string_ops|$all|$progs/string_ops_o2"
	"mini_suite|$all|sh tests/programs/mini_suite/run-tests.sh $progs/mini_suite"
)

# Valgrind switches threads also when one blocks in the kernel, so the
# threads program's streams, and libc's counts in its reports (futex
# retries), vary from run to run even with one build: it is recorded with
# both (a crash would show) but not compared; roundtrip.threads checks it.
unrepeatable="threads"

# The contents of a bundle's streams, one hash per stream, sorted.
stream_hashes() {
	for f in "$1"/streams/*; do sha256sum <"$f"; done | sort
}

status=0
for c in "${cases[@]}"; do
	name=${c%%|*} rest=${c#*|}
	formats=${rest%%|*} cmd=${rest#*|}
	for side in a b; do
		lib=$lib_a
		[ $side = b ] && lib=$lib_b
		# shellcheck disable=SC2086
		HWT_VALGRIND_LIB=$lib "$hwt" record -q --unit valgrind -o "$work/$name.$side" \
			-- $cmd >/dev/null 2>"$work/$name.$side.err"
		stream_hashes "$work/$name.$side" >"$work/$name.$side.streams"
		# Folded stacks name threads program-TID: pids differ from run to run.
		for fmt in $formats; do
			"$hwt" report "$fmt" -q -o "$work/$name.$side.$fmt" "$work/$name.$side" \
				2>>"$work/$name.$side.err" || echo "report $fmt failed" >>"$work/$name.$side.err"
			# Reports name the tool's own image (the signal trampoline): its path.
			sed -i "s|$lib|LIB|g" "$work/$name.$side.$fmt"
			if [ "$fmt" = folded ]; then
				sed -E 's/^([^;]*)-[0-9]+;/\1-TID;/' "$work/$name.$side.folded" | sort \
					>"$work/$name.$side.f" && mv "$work/$name.$side.f" "$work/$name.$side.folded"
			fi
		done
	done
	diffs=
	for what in streams $formats; do
		cmp -s "$work/$name.a.$what" "$work/$name.b.$what" || diffs="$diffs $what"
	done
	bytes=$(du -cb "$work/$name.b"/streams/* | tail -n 1 | cut -f1)
	if [[ " $unrepeatable " == *" $name "* ]]; then
		printf '%-16s recorded, not compared (varies from run to run)\n' "$name"
	elif [ -z "$diffs" ]; then
		printf '%-16s same   (%s stream bytes)\n' "$name" "$bytes"
	else
		printf '%-16s DIFFER:%s\n' "$name" "$diffs"
		status=1
	fi
	rm -rf "$work/$name".[ab]
done
exit $status
