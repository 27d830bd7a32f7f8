#!/usr/bin/env bash
# The builds a user may choose, each configured and built with warnings as
# errors (HWT_WERROR=ON) in a directory of its own under build-matrix/,
# removed once it has built. Stops at the first failure with the compiler's
# output.
#
# CI's set (the default): every build type with gcc, less the two that
# scripts/test.sh has built already (gcc RelWithDebInfo in build/, gcc Debug
# with the sanitizers in build-sanitize/), and clang-19 unoptimised (none,
# what a plain `cmake -B build` makes) and optimised (Release). gcc's
# warnings change with the optimiser (-Wmaybe-uninitialized, the object
# size checks), so each of its types is built; clang's come from its front
# end, so Debug adds to none, and RelWithDebInfo to Release, only -g.
# clang-19 Debug and RelWithDebInfo, MinSizeRel, and Debian's default clang
# (14) are left to --all: a build takes about a minute here, and CI must
# stay under 30 minutes.
#
# hwt.ko is not built (HWT_KMOD=OFF): kbuild compiles it with the kernel's
# own compiler whatever CMake's is, and scripts/test.sh builds it. Nor are
# the aarch64 test programs (HWT_A64_PROGRAMS=OFF): the cross compilers
# build them with fixed flags whatever the compiler and build type here,
# scripts/test.sh builds them too, and they took half a minute of CPU of
# each build.
#
# With ccache installed (scripts/setup.sh --tests), the builds go through it,
# keyed by the source root's relative paths (CCACHE_BASEDIR, and no working
# directory in the key), so a fresh clone reuses the objects of the clone
# before it: a file that did not change is not compiled again, and its
# warnings are replayed from the cache, so a warning still fails the build.
# The objects are thrown away after each build, so where their debug
# information says they were compiled does not matter here (it would in
# build/, whose programs the tests read: scripts/test.sh does not use it).
#   .ci/build-matrix.sh           CI's set
#   .ci/build-matrix.sh --all     every build type with gcc, clang-19 and clang
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
root=build-matrix

if [ "${1:-}" = --all ]; then
	builds=()
	compilers=(gcc clang-19)
	# Debian's clang may be clang-19 itself: then it is built once.
	if command -v clang >/dev/null &&
	   [ "$(readlink -f "$(command -v clang)")" != "$(readlink -f "$(command -v clang-19 || true)")" ]; then
		compilers+=(clang)
	fi
	for cc in "${compilers[@]}"; do
		for type in Release RelWithDebInfo Debug MinSizeRel None; do
			builds+=("$cc:$type")
		done
	done
else
	builds=(gcc:Release gcc:None clang-19:Release clang-19:None)
fi

launcher=()
if command -v ccache >/dev/null; then
	export CCACHE_BASEDIR=$PWD CCACHE_NOHASHDIR=1
	launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi

for build in "${builds[@]}"; do
	cc=${build%%:*} type=${build#*:}
	if ! command -v "$cc" >/dev/null; then
		echo "build matrix: $cc: not installed, skipped"
		continue
	fi
	case $cc in
	gcc*) cxx=${cc/gcc/g++} ;;
	clang*) cxx=${cc/clang/clang++} ;;
	*) echo "build matrix: $cc: no C++ compiler known for it" >&2; exit 1 ;;
	esac
	dir=$root/$cc-$type
	rm -rf "$dir"
	mkdir -p "$dir"
	t0=$(date +%s)
	if ! cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE="${type/None/}" -DCMAKE_C_COMPILER="$cc" \
		-DCMAKE_CXX_COMPILER="$cxx" -DHWT_WERROR=ON -DHWT_TESTS=ON -DHWT_KMOD=OFF \
		-DHWT_A64_PROGRAMS=OFF "${launcher[@]}" >"$dir.log" 2>&1 ||
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
rmdir "$root" 2>/dev/null || true
