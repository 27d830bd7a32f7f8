#!/bin/sh
# OpenCSD is loaded when a command first needs it (perfdata/hwt_opencsd.h):
# where it cannot be loaded, an ETMv4 bundle gets a clear warning naming
# the stream and why (decode, listing) or a clear error (export), and an
# Intel PT bundle decodes as before. "Cannot be loaded" is a stand-in
# libopencsd_c_api.so.1 without OpenCSD's functions, found first through
# LD_LIBRARY_PATH.
#
# usage: opencsd_missing_test.sh BUILD_DIR WORK_DIR AARCH64_PROGRAM X86_PROGRAM
# Exits 77 (skipped) when the aarch64 program was not built.
set -u
build=$1
work=$2
a64=$3
x86=$4
hwt=$build/bin/hwt

fail() {
	echo "FAIL: $*"
	exit 1
}

[ -x "$a64" ] || { echo "SKIP: $a64 was not built"; exit 77; }

. "$(dirname "$0")/../work_dir.sh"
hwt_test_work_dir "$work"
mkdir -p "$work/fake" || exit 1
cd "$work" || exit 1

"$hwt" record -o etm.hwt -- "$a64" >/dev/null 2>record.err || fail "hwt record: $(cat record.err)"
"$hwt" record -o pt.hwt -- "$x86" >/dev/null 2>record.err || fail "hwt record: $(cat record.err)"
"$hwt" report profile -o etm.prof etm.hwt 2>etm.err || fail "with OpenCSD: $(cat etm.err)"
"$hwt" report profile -o pt.prof pt.hwt 2>pt.err || fail "with OpenCSD: $(cat pt.err)"
grep -q '^block ' etm.prof || fail "with OpenCSD: no blocks in the ETMv4 profile"
stream=$(basename "$(ls etm.hwt/streams/*.etm)")

echo 'int hwt_not_opencsd;' >fake/fake.c
cc -shared -fPIC -Wl,-soname,libopencsd_c_api.so.1 -o fake/libopencsd_c_api.so.1 fake/fake.c ||
	fail "cannot build the stand-in library"
why="libopencsd_c_api.so.1 has no ocsd_create_dcd_tree"

# The decode: a warning per ETMv4 stream, exit status 1, a profile with no blocks.
LD_LIBRARY_PATH=$work/fake "$hwt" report profile -o missing.prof etm.hwt 2>missing.err
rc=$?
cat missing.err
[ $rc -eq 1 ] || fail "decode without OpenCSD: exit status $rc, wanted 1 (warnings)"
grep -q "streams/$stream: not decoded: ETMv4 trace needs OpenCSD ($why)" missing.err ||
	fail "decode without OpenCSD: no warning naming the stream and why"
! grep -q '^block ' missing.prof || fail "decode without OpenCSD: blocks counted"

# The listing: the sideband as ever, the packets not listed, and why.
LD_LIBRARY_PATH=$work/fake "$hwt" dump --packets etm.hwt >dump.out 2>dump.err
rc=$?
[ $rc -eq 1 ] || fail "dump without OpenCSD: exit status $rc, wanted 1 (warnings)"
grep -q "packets not listed: ETMv4 trace needs OpenCSD ($why)" dump.err ||
	fail "dump without OpenCSD: no warning saying why: $(cat dump.err)"
grep -q "mmap" dump.out || fail "dump without OpenCSD: no sideband records listed"

# The export: an error.
LD_LIBRARY_PATH=$work/fake "$hwt" export -o etm.data etm.hwt 2>export.err
rc=$?
cat export.err
[ $rc -ne 0 ] || fail "export without OpenCSD: exit status 0"
grep -q "ETMv4 streams need OpenCSD (libopencsd_c_api.so.1), which cannot be loaded" export.err ||
	fail "export without OpenCSD: no error saying why"

# Intel PT needs no OpenCSD: the same profile.
LD_LIBRARY_PATH=$work/fake "$hwt" report profile -o pt2.prof pt.hwt 2>pt2.err ||
	fail "Intel PT without OpenCSD: $(cat pt2.err)"
cmp -s pt.prof pt2.prof || fail "Intel PT without OpenCSD: another profile"
echo "PASS: without OpenCSD, ETMv4 trace is reported not decoded; Intel PT decodes the same"
