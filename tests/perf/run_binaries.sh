#!/bin/sh
# Where the import finds the recorded binaries (docs/perf.md, "Binaries"):
# at their path when the build-id matches, under --symfs, in perf's
# build-id cache (--buildid-dir, $PERF_BUILDID_DIR; filled here by perf
# buildid-cache itself). The program is recorded from a copy that is then
# moved away: each place must give the recording's profile (compared per
# build-id: the bundle names the file where it was found); with the file
# nowhere, or another file at its path, the import must name it and exit
# 1, and the report must name it with the trace it cost.
# usage: run_binaries.sh HWT WORKDIR UNIT PROGRAM
set -u
hwt=$1 work=$2 unit=$3 program=$4
. "$(dirname "$0")/../work_dir.sh"
hwt_test_work_dir "$work"
mkdir -p "$work/bin" "$work/elsewhere" "$work/empty"
failed=0
fail() { echo "FAIL $*"; failed=1; }
# A profile with its images named by build-id, for profiles whose paths differ.
by_id() {
	awk '$1 == "image" { id[$2] = $4; next }
	     $1 == "block" { print id[$2], $3, $4, $5, $6 }' "$1" | sort
}
same_profile() { # BUNDLE WHAT
	"$hwt" report profile -q -o "$work/$1.prof" "$work/$1" 2>"$work/$1.report.err"
	by_id "$work/$1.prof" >"$work/$1.ids"
	cmp -s "$work/ref.ids" "$work/$1.ids" && echo "ok   $2: the recording's profile" ||
		fail "$2: the profile differs"
}
prog=$work/bin/prog
cp "$program" "$prog"
"$hwt" record -q --unit "$unit" -o "$work/ref" -- "$prog" >/dev/null 2>&1 || fail "record"
"$hwt" export -q -o "$work/ref.data" "$work/ref" || fail "export"
"$hwt" report profile -q -o "$work/ref.prof" "$work/ref" || fail "the recording's profile"
by_id "$work/ref.prof" >"$work/ref.ids"
if command -v perf >/dev/null 2>&1; then
	perf --buildid-dir "$work/cache" buildid-cache -a "$prog" 2>/dev/null ||
		fail "perf buildid-cache -a"
else # the layout perf buildid-cache makes
	id=$(readelf -n "$prog" | awk '/Build ID/ { print $3 }')
	mkdir -p "$work/cache$prog/$id" "$work/cache/.build-id/$(echo "$id" | cut -c1-2)"
	cp "$prog" "$work/cache$prog/$id/elf"
	ln -s "../..$prog/$id" "$work/cache/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-)"
fi
mv "$prog" "$work/elsewhere/prog"

# Nowhere: named by the import, and by the report with what it cost.
"$hwt" import --buildid-dir "$work/empty" -o "$work/missing" "$work/ref.data" 2>"$work/missing.err"
status=$?
cat "$work/missing.err"
[ $status = 1 ] && grep -q "$prog: not found with the recorded build-id .*trace in it will not decode" \
	"$work/missing.err" && echo "ok   a missing binary is named (exit 1)" ||
	fail "missing binary: exit $status"
"$hwt" report profile -o "$work/missing.prof" "$work/missing" 2>"$work/missing.report"
status=$?
grep "$prog" "$work/missing.report"
[ $status = 1 ] && grep -q "$prog.*trace entered it [0-9]* times in [0-9]* streams and could not be decoded there" \
	"$work/missing.report" && echo "ok   the report names it with the trace it cost" ||
	fail "the report of the bundle without the binary (exit $status)"

# perf's build-id cache.
"$hwt" import -q --buildid-dir "$work/cache" -o "$work/cache_b" "$work/ref.data" ||
	fail "import with --buildid-dir"
same_profile cache_b "--buildid-dir (perf buildid-cache's layout)"
PERF_BUILDID_DIR="$work/cache" "$hwt" import -q -o "$work/env_b" "$work/ref.data" ||
	fail "import with \$PERF_BUILDID_DIR"
same_profile env_b "\$PERF_BUILDID_DIR"

# --symfs.
mkdir -p "$work/symfs$work/bin"
cp "$work/elsewhere/prog" "$work/symfs$prog"
"$hwt" import -q --symfs "$work/symfs" --buildid-dir "$work/empty" -o "$work/symfs_b" \
	"$work/ref.data" || fail "import with --symfs"
same_profile symfs_b "--symfs"

# Another file at the path: not it.
cp /bin/true "$prog"
"$hwt" import --buildid-dir "$work/empty" -o "$work/other" "$work/ref.data" 2>"$work/other.err"
status=$?
[ $status = 1 ] && grep -q "$prog: not found with the recorded build-id" "$work/other.err" &&
	echo "ok   a file with another build-id at the path is not taken" ||
	fail "another file at the path: exit $status"

# At its path again.
cp "$work/elsewhere/prog" "$prog"
"$hwt" import -q --buildid-dir "$work/empty" -o "$work/path_b" "$work/ref.data" ||
	fail "import with the binary at its path"
same_profile path_b "at its path"
[ "$failed" = 0 ]
