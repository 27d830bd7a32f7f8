#!/bin/sh
# Damaged bundles: a corrupt stream, a cut stream, a stream of garbage, an
# image deleted and an image replaced after the recording. Each must give a
# clear warning, exit status 1 (profile written, partial) and the counts
# that can still be computed; never a crash or a hang.
#
# usage: damage_test.sh BUILD_DIR WORK_DIR
set -u
build=$1
work=$2
hwt=$build/bin/hwt
tool=$build/tests/decode/profile_tool
programs=$build/tests/programs

fail() {
	echo "FAIL: $*"
	exit 1
}

# report NAME: decodes NAME.hwt into NAME.prof; the exit status must be 1.
report() {
	timeout 120 "$tool" report "$1.hwt" -o "$1.prof" 2>"$1.err"
	rc=$?
	sed "s/^/    [$1] /" "$1.err"
	[ $rc -eq 1 ] || fail "$1: hwt report profile exited $rc, wanted 1 (partial profile)"
	[ -s "$1.prof" ] || fail "$1: no profile written"
	"$tool" total "$1.prof" >"$1.total" || fail "$1: the profile does not read back"
}

expect() { # NAME PATTERN
	grep -q -- "$2" "$1.err" || fail "$1: no warning matching '$2'"
}

. "$(dirname "$0")/flip.sh"

. "$(dirname "$0")/../work_dir.sh"
hwt_test_work_dir "$work"
mkdir -p "$work/bin" || exit 1
cd "$work" || exit 1

"$hwt" record -o clean.hwt -- "$programs/function_pointers" >/dev/null 2>record.err ||
	fail "hwt record: $(cat record.err)"
"$tool" report clean.hwt -o clean.prof 2>clean.err || fail "clean bundle: $(cat clean.err)"
clean=$("$tool" total clean.prof)
stream=$(ls clean.hwt/streams/*.pt)
size=$(stat -c %s "$stream")
[ "$size" -gt 20000 ] || fail "stream too small to damage ($size bytes)"

# Corrupt: 24 bytes inverted in the middle of the stream.
cp -r clean.hwt corrupt.hwt
flip corrupt.hwt/streams/*.pt $((size / 2)) 24
report corrupt
expect corrupt "decode error at offset 0x"
expect corrupt "resynced at the next PSB"
n=$(cat corrupt.total)
[ "$n" -gt 0 ] && [ "$n" -lt "$clean" ] || fail "corrupt: $n instructions, clean run $clean"

# Cut: the stream ends in the middle (probably of a packet).
cp -r clean.hwt cut.hwt
truncate -s $((size / 2 + 3)) cut.hwt/streams/*.pt
report cut
expect cut "streams/.*\.pt: "
n=$(cat cut.total)
[ "$n" -gt 0 ] && [ "$n" -lt "$clean" ] || fail "cut: $n instructions, clean run $clean"

# Garbage: no PSB at all.
cp -r clean.hwt garbage.hwt
head -c 65536 /dev/urandom >garbage.hwt/streams/$(basename "$stream")
timeout 120 "$tool" report garbage.hwt -o garbage.prof 2>garbage.err
rc=$?
[ $rc -le 1 ] || fail "garbage: exit status $rc"

# Many small corruptions: every one decodes to something without a crash.
i=0
while [ $i -lt 12 ]; do
	rm -rf fuzz.hwt
	cp -r clean.hwt fuzz.hwt
	flip fuzz.hwt/streams/*.pt $((size * i / 12 + 17 * i)) $((1 + i % 5))
	timeout 120 "$tool" report fuzz.hwt -o fuzz.prof 2>fuzz.err
	rc=$?
	[ $rc -le 1 ] || fail "fuzz $i: exit status $rc: $(cat fuzz.err)"
	i=$((i + 1))
done

# Missing: the program is deleted after the recording.
cp "$programs/loops" bin/loops_copy
"$hwt" record -o missing.hwt -- "$work/bin/loops_copy" >/dev/null 2>record.err ||
	fail "hwt record: $(cat record.err)"
rm bin/loops_copy
report missing
expect missing "loops_copy: trace entered it [0-9]* times in 1 streams and could not be decoded there .*file missing"
grep -q "^image [0-9]* missing [0-9a-f]* [0-9]* .*/bin/loops_copy$" missing.prof ||
	fail "missing: the image is not marked missing in the profile"
grep -q "ld-linux-x86-64.so.2$" missing.prof || fail "missing: the loader's counts are gone too"

# Replaced: the program is rebuilt (other code, other build-id) after the recording.
cat >prog.c <<'C'
#include <stdio.h>
int main(void) { unsigned s = 0; for (unsigned i = 0; i < 1000; i++) s += i * i; printf("%u\n", s); return 0; }
C
gcc -O0 -g -o bin/prog prog.c || fail "gcc"
"$hwt" record -o replaced.hwt -- "$work/bin/prog" >/dev/null 2>record.err ||
	fail "hwt record: $(cat record.err)"
sed -i 's/i \* i/i * 3 + 1/' prog.c
gcc -O0 -g -o bin/prog prog.c || fail "gcc"
report replaced
expect replaced "bin/prog: trace entered it .* file replaced since the recording (build-id"
grep -q "^image [0-9]* replaced [0-9a-f]* [0-9]* .*/bin/prog$" replaced.prof ||
	fail "replaced: the image is not marked replaced in the profile"
grep -q "libc.so.6$" replaced.prof || fail "replaced: libc's counts are gone too"

echo "damage: ok"
