#!/usr/bin/env bash
# The builds a user may choose: CMAKE_BUILD_TYPE Release, RelWithDebInfo,
# Debug, MinSizeRel and none, with gcc, clang-19 and Debian's default clang
# (when it is another one), each configured and built with warnings as
# errors (HWT_WERROR=ON) in a directory of its own under build-matrix/,
# removed once it has built. Stops at the first failure with the compiler's
# output. Not built again here: gcc RelWithDebInfo (scripts/test.sh builds
# it) and hwt.ko (HWT_KMOD=OFF: kbuild compiles it with the kernel's own
# compiler whatever CMake's is, and scripts/test.sh builds it).
#   .ci/build-matrix.sh [COMPILER...]   (default: gcc clang-19 clang)
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
root=build-matrix
types="Release RelWithDebInfo Debug MinSizeRel None"

compilers=("$@")
[ ${#compilers[@]} -gt 0 ] || compilers=(gcc clang-19 clang)
seen=
for cc in "${compilers[@]}"; do
	if ! path=$(command -v "$cc"); then
		echo "build matrix: $cc: not installed, skipped"
		continue
	fi
	# Debian's clang may be clang-19 itself: one build of each compiler.
	real=$(readlink -f "$path")
	case " $seen " in *" $real "*)
		echo "build matrix: $cc is $real, built already"
		continue ;;
	esac
	seen="$seen $real"
	case $cc in
	gcc*) cxx=${cc/gcc/g++} ;;
	clang*) cxx=${cc/clang/clang++} ;;
	*) echo "build matrix: $cc: no C++ compiler known for it" >&2; exit 1 ;;
	esac
	for type in $types; do
		[ "$cc/$type" = gcc/RelWithDebInfo ] && continue
		dir=$root/$cc-$type
		rm -rf "$dir"
		mkdir -p "$dir"
		t0=$(date +%s)
		if ! cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE="${type/None/}" -DCMAKE_C_COMPILER="$cc" \
			-DCMAKE_CXX_COMPILER="$cxx" -DHWT_WERROR=ON -DHWT_KMOD=OFF >"$dir.log" 2>&1 ||
		   ! cmake --build "$dir" -j"$jobs" >>"$dir.log" 2>&1; then
			# The first errors, then the end of the log.
			grep -n -A8 -E "(error|Error)[: ]" "$dir.log" | head -80 || true
			tail -n 20 "$dir.log"
			echo "build matrix: FAILED: $cc, build type ${type/None/none} (log: $dir.log, build: $dir)" >&2
			exit 1
		fi
		echo "build matrix: $cc ${type/None/none}: built in $(($(date +%s) - t0)) s"
		rm -rf "$dir" "$dir.log"
	done
done
rmdir "$root" 2>/dev/null || true
