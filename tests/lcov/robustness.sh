#!/bin/sh
# hwt-cov and `hwt report lcov` on what goes wrong in real life: a stripped
# binary, a binary without DWARF, a binary deleted or replaced after the
# run, a corrupt bundle, a directory that is not a bundle. Each must give a
# clear warning (naming the file) and all the coverage that can still be
# computed: the other image's source file with lines hit, in an lcov file
# that lcov and genhtml read without a word. Also: options and the exit
# status pass-through.
#   robustness.sh HWT_COV REPORT_LCOV SRC_DIR WORK_DIR
set -u
hwt_cov=$1
report=$2
src=$3
work=$4
. "$(dirname "$0")/../work_dir.sh"
hwt_test_work_dir "$work"
mkdir -p "$work"
cd "$work" || exit 1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
pass() { echo "ok: $*"; }

# lcov file $1 has source $2 with at least one line hit, and reads cleanly.
covers() {
	awk -v want="$2" '
		/^SF:/ { cur = ($0 ~ want "$") }
		cur && /^DA:/ { split($0, a, ","); if (a[2] > 0) hit++ }
		END { exit !(hit > 0) }' "$1" || return 1
	[ -z "$(lcov --summary "$1" 2>&1 >/dev/null)" ] || return 1
	[ -z "$(genhtml --quiet -o "$1.html" "$1" 2>&1)" ] || return 1
}

gcc -O0 -g -fPIC -shared -o libcovlib.so "$src/cov_lib.c" || exit 1
build_main() { # build_main OUT [extra flags]
	out=$1
	shift
	gcc -O0 "$@" -I"$src" -o "$out" "$src/cov_main.c" -L. -lcovlib -Wl,-rpath,"$work"
}
build_main cov_main -g || exit 1

# 1. Stripped main binary: selected by default for the library it loads (which
#    has debug info), and hwt-cov says so; with that library --no-trace, not
#    selected, and hwt-cov says why; traced anyway (--trace-all), warned, the
#    library still covered.
strip -s -o stripped cov_main
"$hwt_cov" -o default.info ./stripped 3000 >/dev/null 2>default.err
if grep -qF "traced for a library it loads: $work/stripped ($work/libcovlib.so)" default.err &&
   covers default.info cov_lib.c; then
	pass "stripped binary traced for its library by default, and said so"
else
	fail "stripped binary not traced for its library"; cat default.err
fi
"$hwt_cov" --no-trace libcovlib.so -o notrace.info ./stripped 3000 >/dev/null 2>notrace.err
if grep -q "not traced: $work/stripped (no debug info)" notrace.err; then
	pass "stripped binary not selected when its library is --no-trace, and said so"
else
	fail "stripped binary not selected: no note"; cat notrace.err
fi
"$hwt_cov" --trace-all -o stripped.info ./stripped 3000 >/dev/null 2>stripped.err
rc=$?
if [ $rc -eq 0 ] && grep -q "warning: no debug info: $work/stripped (build-id [0-9a-f]*, stripped): not in the report" stripped.err &&
   covers stripped.info cov_lib.c; then
	pass "stripped binary"
else
	fail "stripped binary (status $rc)"; cat stripped.err
fi

# 2. Built without -g: warned, the library still covered.
build_main nodwarf
"$hwt_cov" --trace-all -o nodwarf.info ./nodwarf 3000 >/dev/null 2>nodwarf.err
rc=$?
if [ $rc -eq 0 ] && grep -q "warning: no debug info: $work/nodwarf (build-id [0-9a-f]*): not in the report" nodwarf.err &&
   covers nodwarf.info cov_lib.c; then
	pass "binary without DWARF"
else
	fail "binary without DWARF (status $rc)"; cat nodwarf.err
fi

# 3. Deleted after the run (a long run: the trace resyncs past the hole).
build_main gone -g
"$hwt_cov" -q --keep gone.hwt -o /dev/null ./gone 3000 >/dev/null 2>&1
rm -f gone
"$report" gone.hwt -o gone.info >/dev/null 2>gone.err
rc=$?
if [ $rc -eq 1 ] && grep -q "warning: $work/gone (build-id [0-9a-f]*): deleted" gone.err &&
   covers gone.info cov_lib.c; then
	pass "binary deleted after the run"
else
	fail "binary deleted after the run (status $rc)"; cat gone.err
fi

# -o /dev/null above must leave /dev/null a device (no temporary file and
# rename over it).
if [ -c /dev/null ]; then
	pass "-o /dev/null leaves the device alone"
else
	fail "-o /dev/null replaced /dev/null with a regular file"
fi

# 4. Replaced after the run: another build at the same path.
build_main changed -g
"$hwt_cov" -q --keep changed.hwt -o /dev/null ./changed 3000 >/dev/null 2>&1
build_main changed -g -DCOV_MAIN_VARIANT=1 -O1
"$report" changed.hwt -o changed.info >/dev/null 2>changed.err
rc=$?
if [ $rc -eq 1 ] && grep -q "warning: $work/changed (build-id [0-9a-f]*): replaced since the run" changed.err &&
   covers changed.info cov_lib.c; then
	pass "binary replaced after the run"
else
	fail "binary replaced after the run (status $rc)"; cat changed.err
fi

# 5. Corrupt bundle: a sideband file cut inside a record, garbage in the
#    middle of a stream. Warnings, and what can be decoded still is; exit
#    status 1, a partial report (docs/exit-status.md), as for 3 and 4.
"$hwt_cov" -q --keep bad.hwt -o good.info ./cov_main 3000 >/dev/null 2>&1
sb=$(ls bad.hwt/sideband/*.sb | head -1)
size=$(stat -c %s "$sb")
truncate -s $((size - 13)) "$sb"
pt=$(ls -S bad.hwt/streams/*.pt | head -1)
size=$(stat -c %s "$pt")
dd if=/dev/urandom of="$pt" bs=1 seek=$((size / 3)) count=600 conv=notrunc 2>/dev/null
"$report" bad.hwt -o bad.info >/dev/null 2>bad.err
rc=$?
if [ $rc -eq 1 ] && grep -q "warning:" bad.err && covers bad.info cov_main.c; then
	pass "corrupt bundle: $(grep -c warning: bad.err) warning(s), report written"
else
	fail "corrupt bundle (status $rc)"; cat bad.err
fi
# Streams of nothing but garbage, and empty ones: no crash, a report.
for f in bad.hwt/streams/*.pt; do head -c 5000 /dev/urandom >"$f"; done
"$report" bad.hwt -o worse.info >/dev/null 2>worse.err
rc=$?
if [ $rc -eq 1 ] && grep -q "warning:" worse.err && [ -z "$(lcov --summary worse.info 2>&1 >/dev/null | grep -v 'no data found')" ]; then
	pass "garbage streams: warned, status 1 (partial)"
else
	fail "garbage streams (status $rc)"; cat worse.err
fi

# 6. Not a bundle at all: a clear error, status 2, no report.
mkdir notabundle
"$report" notabundle -o none.info >/dev/null 2>none.err
rc=$?
if [ $rc -eq 2 ] && [ ! -e none.info ] && grep -q "notabundle" none.err; then
	pass "not a bundle: status 2"
else
	fail "not a bundle (status $rc)"; cat none.err
fi

# 7. Exit status passes through; --include/--exclude; default output name.
cat >exit3.c <<'EOS'
int main(void) { return 3; }
EOS
gcc -O0 -g -o exit3 exit3.c
"$hwt_cov" -q ./exit3 >/dev/null 2>&1
rc=$?
if [ $rc -eq 3 ] && [ -s hwt-cov.info ]; then
	pass "exit status 3 passed through, default output hwt-cov.info"
else
	fail "exit status (got $rc) or no hwt-cov.info"
fi
"$hwt_cov" -q -o inc.info --include '*/cov_lib.c' ./cov_main >/dev/null 2>&1
"$hwt_cov" -q -o exc.info --exclude '*/cov_lib.c' ./cov_main >/dev/null 2>&1
if [ "$(grep -c '^SF:' inc.info)" = 1 ] && grep -q '^SF:.*cov_lib.c$' inc.info &&
   [ "$(grep -c '^SF:' exc.info)" = 1 ] && grep -q '^SF:.*cov_main.c$' exc.info; then
	pass "--include and --exclude"
else
	fail "--include/--exclude"
fi
"$hwt_cov" -q -o html.info --html html ./cov_main >/dev/null 2>html.err
if [ -s html/index.html ] && [ ! -s html.err ]; then
	pass "--html"
else
	fail "--html"; cat html.err
fi
"$hwt_cov" --help | grep -q -- "--exclude GLOB" && pass "--help" || fail "--help"
"$hwt_cov" >/dev/null 2>&1
[ $? -eq 2 ] && pass "no command: status 2" || fail "no command"
# The same report from the kept bundle as from hwt-cov directly.
"$hwt_cov" -q --keep again.hwt -o direct.info ./cov_main 3000 >/dev/null 2>&1
"$report" -q again.hwt -o again.info
cmp -s direct.info again.info && pass "hwt report lcov on a kept bundle = hwt-cov" ||
	fail "hwt report lcov on a kept bundle differs from hwt-cov's report"

echo "robustness: $fails failure(s)"
[ $fails -eq 0 ]
