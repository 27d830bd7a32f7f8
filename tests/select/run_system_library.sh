#!/bin/sh
# A system binary traced for a library two levels down: ls loads
# libselinux.so.1 (a system library), which loads libpcre2-8.so.0; a copy of
# that one, put first by LD_LIBRARY_PATH and named by --trace, selects ls;
# the same ls without LD_LIBRARY_PATH runs natively (docs/select.md, step 8).
# Skipped (exit 77) where /bin/ls does not load libpcre2-8.so.0.
# usage: run_system_library.sh BUILD_DIR WORKDIR
set -u
build=$1 work=$2
hwt=$build/bin/hwt
pcre=/lib/x86_64-linux-gnu/libpcre2-8.so.0
if [ ! -e "$pcre" ] || ! ldd /bin/ls 2>/dev/null | grep -q libpcre2-8.so.0; then
	echo "skipped: /bin/ls does not load $pcre"
	exit 77
fi
. "$(dirname "$0")/../work_dir.sh"
hwt_test_work_dir "$work"
mkdir -p "$work/shadow" && cp "$(realpath "$pcre")" "$work/shadow/libpcre2-8.so.0" || exit 1
W=$(cd "$work" && pwd)
summary() { sed -n "s/^$1=//p" "$W/lib_sys/summary"; }
"$hwt" record -q -o "$W/lib_sys" --trace '*/shadow/*' -- sh -c \
	'LD_LIBRARY_PATH="$0" ls "$0" >/dev/null; ls "$0" >/dev/null' "$W/shadow" >/dev/null 2>&1
"$hwt" dump "$W/lib_sys" >"$W/lib_sys.dump" 2>&1
if [ "$(summary processes)" = 1 ] && [ "$(summary untraced)" = 2 ] &&
   grep -q 'process-start .*path="/usr/bin/ls"' "$W/lib_sys.dump" &&
   grep -q 'untraced .*path="/usr/bin/ls" reason="system binary"' "$W/lib_sys.dump"; then
	echo "ok   a system binary is traced for a library two levels down, found through LD_LIBRARY_PATH"
else
	echo "FAIL system binary with LD_LIBRARY_PATH: processes $(summary processes), untraced $(summary untraced)"
	exit 1
fi
