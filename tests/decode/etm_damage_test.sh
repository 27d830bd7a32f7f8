#!/bin/sh
# Damaged ETMv4 streams (an aarch64 program recorded under qemu-aarch64):
# corrupt, cut, garbage, not starting with an A-Sync, and a seeded fuzz
# loop of flipped, zeroed, inserted and deleted bytes. Each must give a
# clear warning naming the stream, exit status 1 (profile written, partial)
# or 0, and the counts that can still be computed; never a crash (the
# sanitizer build runs it too), never a hang. The same for the stacks
# (`hwt report folded`): the rest of the run, gaps as marked frames.
#
# usage: etm_damage_test.sh BUILD_DIR WORK_DIR PROGRAM [ROUNDS]
# Exits 77 (skipped) when PROGRAM (an aarch64 build) is not there.
set -u
build=$1
work=$2
prog=$3
rounds=${4:-200}
hwt=$build/bin/hwt
tool=$build/tests/decode/profile_tool

fail() {
	echo "FAIL: $*"
	exit 1
}

[ -x "$prog" ] || { echo "SKIP: $prog was not built"; exit 77; }

# report NAME: decodes NAME.hwt into NAME.prof; the exit status must be 1.
report() {
	timeout 120 "$tool" report "$1.hwt" -o "$1.prof" 2>"$1.err"
	rc=$?
	sed "s/^/    [$1] /" "$1.err"
	[ $rc -eq 1 ] || fail "$1: hwt report profile exited $rc, wanted 1 (partial profile)"
	[ -s "$1.prof" ] || fail "$1: no profile written"
	"$tool" total "$1.prof" >"$1.total" || fail "$1: the profile does not read back"
}

# stacks NAME: NAME.hwt's folded stacks; exit status 1, fewer instructions than
# the clean run's, and a warning naming the stream.
stacks() {
	timeout 120 "$hwt" report folded -o "$1.folded" "$1.hwt" 2>"$1.ferr"
	rc=$?
	[ $rc -eq 1 ] || fail "$1: hwt report folded exited $rc, wanted 1: $(cat "$1.ferr")"
	grep -q "streams/$name" "$1.ferr" || fail "$1: hwt report folded: no warning names the stream"
	n=$(awk '{ s += $NF } END { print s + 0 }' "$1.folded")
	[ "$n" -lt "$clean_stacks" ] || fail "$1: stacks of $n instructions, clean run $clean_stacks"
}

expect() { # NAME PATTERN
	grep -q -- "$2" "$1.err" || fail "$1: no warning matching '$2'"
}

# fewer NAME: some of the run decoded, not all of it.
fewer() {
	n=$(cat "$1.total")
	[ "$n" -gt 0 ] && [ "$n" -lt "$clean" ] || fail "$1: $n instructions, clean run $clean"
}

. "$(dirname "$0")/flip.sh"

. "$(dirname "$0")/../work_dir.sh"
hwt_test_work_dir "$work"
mkdir -p "$work" || exit 1
cd "$work" || exit 1

"$hwt" record -o clean.hwt -- "$prog" >/dev/null 2>record.err || fail "hwt record: $(cat record.err)"
"$tool" report clean.hwt -o clean.prof 2>clean.err || fail "clean bundle: $(cat clean.err)"
clean=$("$tool" total clean.prof)
"$hwt" report folded -o clean.folded clean.hwt 2>clean.ferr || fail "clean stacks: $(cat clean.ferr)"
clean_stacks=$(awk '{ s += $NF } END { print s + 0 }' clean.folded)
[ "$clean_stacks" -eq "$clean" ] || fail "clean: stacks of $clean_stacks instructions, profile $clean"
stream=$(ls clean.hwt/streams/*.etm)
name=$(basename "$stream")
size=$(stat -c %s "$stream")
[ "$size" -gt 20000 ] || fail "stream too small to damage ($size bytes)"

# Corrupt: 24 bytes inverted in the middle of the stream.
cp -r clean.hwt corrupt.hwt
flip "corrupt.hwt/streams/$name" $((size / 2)) 24
report corrupt
expect corrupt "streams/$name: decode error at offset 0x"
expect corrupt "resynced at the next A-Sync"
fewer corrupt
stacks corrupt
grep -q '\[decode error\];' corrupt.folded || fail "corrupt: no [decode error] frame in the stacks"

# Cut: the stream ends in the middle (probably of a packet).
cp -r clean.hwt cut.hwt
truncate -s $((size / 2 + 3)) "cut.hwt/streams/$name"
report cut
expect cut "streams/$name: "
fewer cut
stacks cut
[ -s cut.folded ] || fail "cut: no stacks"

# The first bytes lost: decoding starts at the next A-Sync.
cp -r clean.hwt headless.hwt
tail -c +1001 "$stream" >"headless.hwt/streams/$name"
report headless
expect headless "does not start with an A-Sync"
fewer headless
stacks headless
grep -q '\[unknown\];' headless.folded || fail "headless: the stacks do not start from [unknown]"

# Garbage: no A-Sync at all.
cp -r clean.hwt garbage.hwt
head -c 65536 /dev/urandom >"garbage.hwt/streams/$name"
report garbage
expect garbage "no A-Sync in the whole stream"
stacks garbage

# Fuzz: seeded damage of every kind; each decodes to something, no crash.
python3 - "$stream" "$rounds" <<'EOF' || fail "fuzz: cannot write the damaged streams"
import random, sys
path, rounds = sys.argv[1], int(sys.argv[2])
clean = open(path, 'rb').read()
rng = random.Random(0x5eed)
for i in range(rounds):
    b = bytearray(clean)
    for _ in range(rng.randint(1, 4)):
        kind = rng.randrange(5)
        at = rng.randrange(len(b))
        n = rng.randint(1, 64)
        if kind == 0:      # flipped bits
            for k in range(at, min(at + n, len(b))):
                b[k] ^= 1 << rng.randrange(8)
        elif kind == 1:    # zeros (half an A-Sync, say)
            b[at:at + n] = bytes(min(n, len(b) - at))
        elif kind == 2:    # random bytes inserted
            b[at:at] = bytes(rng.randrange(256) for _ in range(n))
        elif kind == 3:    # bytes deleted
            del b[at:at + n]
        else:              # cut short
            del b[at:]
            if not b:
                b = bytearray(b'\x00')
    open('fuzz.%d.etm' % i, 'wb').write(b)
EOF
i=0
while [ $i -lt "$rounds" ]; do
	rm -rf fuzz.hwt
	cp -r clean.hwt fuzz.hwt
	mv "fuzz.$i.etm" "fuzz.hwt/streams/$name"
	timeout 120 "$tool" report fuzz.hwt -o fuzz.prof 2>fuzz.err
	rc=$?
	[ $rc -le 1 ] || fail "fuzz $i: exit status $rc: $(cat fuzz.err)"
	if [ $rc -eq 1 ]; then
		grep -q "streams/$name\|summary" fuzz.err || fail "fuzz $i: no warning names the stream"
	fi
	timeout 120 "$hwt" report folded -o fuzz.folded fuzz.hwt 2>fuzz.ferr
	frc=$?
	[ $frc -eq $rc ] || fail "fuzz $i: hwt report folded exited $frc, the profile's decode $rc: $(cat fuzz.ferr)"
	if [ $rc -eq 0 ]; then
		n=$(awk '{ s += $NF } END { print s + 0 }' fuzz.folded)
		[ "$n" -eq "$("$tool" total fuzz.prof)" ] || fail "fuzz $i: stacks of $n instructions, profile $("$tool" total fuzz.prof)"
	fi
	i=$((i + 1))
done
echo "etm damage: corrupt, cut, headless, garbage and $rounds fuzzed streams decoded (profile and stacks), clean run $clean instructions"
