#!/bin/sh
# Nothing lost silently: random bytes over a part of one stream of a real
# bundle (its middle, its start, all of it). With every Intel PT decoder
# (edge, libipt, check) each report command must warn naming the stream,
# its process and the bytes lost, count a decode error in --stats, and give
# a partial result (hwt report profile: exit status 1). The bytes said lost
# must cover the bytes overwritten (the decode resumes at a PSB after them).
#
# usage: lost_test.sh BUILD_DIR WORK_DIR
set -u
build=$1
work=$2
hwt=$build/bin/hwt
programs=$build/tests/programs

fail() {
	echo "FAIL: $*"
	exit 1
}

. "$(dirname "$0")/../work_dir.sh"
hwt_test_work_dir "$work"
mkdir -p "$work" || exit 1
cd "$work" || exit 1

# randomize FILE OFFSET COUNT SEED: COUNT random bytes (seeded) from OFFSET.
randomize() {
	python3 -c 'import random, sys
p, off, n, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
rng = random.Random(seed)
b = bytearray(open(p, "rb").read())
n = min(n, len(b) - off)
b[off:off + n] = bytes(rng.getrandbits(8) for _ in range(n))
open(p, "wb").write(b)' "$@"
}

"$hwt" record -o clean.hwt -- "$programs/fork_exec" >/dev/null 2>record.err ||
	fail "hwt record: $(cat record.err)"
"$hwt" report profile -q -o clean.prof clean.hwt 2>clean.err || fail "clean bundle: $(cat clean.err)"
# The largest stream is damaged; the others must decode as before.
stream=$(ls -S clean.hwt/streams/*.pt | head -1)
name=$(basename "$stream")
pid=${name%%.*}
size=$(stat -c %s "$stream")
[ "$size" -gt 15000 ] || fail "stream too small to damage ($size bytes)"

# case NAME OFFSET COUNT: a copy of the bundle with COUNT random bytes at
# OFFSET of that stream, reported by every decoder.
case_() {
	c=$1 off=$2 count=$3
	rm -rf "$c.hwt"
	cp -r clean.hwt "$c.hwt"
	randomize "$c.hwt/streams/$name" "$off" "$count" 33
	for decoder in edge libipt check; do
		out=$c.$decoder
		HWT_DECODER=$decoder timeout 120 "$hwt" report profile --stats -o "$out.prof" \
			"$c.hwt" 2>"$out.err"
		rc=$?
		sed "s/^/    [$out] /" "$out.err"
		[ $rc -eq 1 ] || fail "$out: exit status $rc, wanted 1 (a partial profile)"
		line=$(grep "warning: $c.hwt/streams/$name: .* trace bytes.* of process $pid (/.*), thread [0-9]* lost" "$out.err" | head -1)
		[ -n "$line" ] || fail "$out: no warning naming the stream, its process and the bytes lost"
		errors=$(sed -n 's/.* \([0-9]*\) decode errors (.*/\1/p' "$out.err")
		[ "${errors:-0}" -gt 0 ] || fail "$out: --stats counts no decode error"
		# The lost stretch reaches past the damage: every byte overwritten is in it.
		python3 - "$out.err" "$off" "$count" "$size" <<'PY' || fail "$out: the bytes said lost do not cover those overwritten"
import re, sys
text = open(sys.argv[1]).read()
off, n, size = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
end = min(off + n, size)
spans = []
for m in re.finditer(r"decode error at offset 0x([0-9a-f]+) .*?(\d+) trace bytes skipped", text):
    spans.append((int(m.group(1), 16), int(m.group(2))))
for m in re.finditer(r"(does not start with a PSB|no PSB in the whole stream).*?: (\d+) trace bytes", text):
    spans.append((0, int(m.group(2))))
# The decode fails inside the damage and resumes at a PSB after it.
covered = [s for s in spans if s[0] < end and s[0] + s[1] >= end]
print("    lost (offset, bytes) %s; overwritten [%d, %d)" % (spans, off, end))
sys.exit(0 if covered else 1)
PY
	done
}

case_ middle $((size / 3)) 3000
case_ start 0 2000
case_ whole 0 "$size"

# The other report commands carry the same warning (the decode's diagnostics).
for format in lcov flame afdo; do
	case $format in
	lcov) o=lost.info ;;
	flame) o=lost.svg ;;
	afdo) o=lost.afdo ;;
	esac
	timeout 120 "$hwt" report $format -o "$o" whole.hwt >/dev/null 2>"$format.err"
	grep -q "warning: whole.hwt/streams/$name: no PSB in the whole stream.*: $size trace bytes of process $pid" "$format.err" ||
		fail "hwt report $format: no warning about the lost stream: $(cat "$format.err")"
done

echo "lost: ok"
