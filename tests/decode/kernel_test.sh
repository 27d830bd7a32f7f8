#!/bin/sh
# Kernel-and-user Intel PT decoded as it is: a real run of a program under
# a software unit, its streams written again with libipt's encoder as a PMU
# tracing kernel mode too writes them (tests/perf/hw_packets.c kernel: a TIP
# into the kernel at each system call and a TIP back, interrupts as FUP +
# TIP with a TIP back to where they struck, PSB+ in the kernel, no TIP.PGD
# or TIP.PGE at the ring changes; header pt_streams_kernel=1). Every decoder must
# give the user-only recording's profile (every instruction and edge), with
# no warning of lost trace, and count the kernel-mode trace in --stats.
#
# usage: kernel_test.sh BUILD_DIR HW_PACKETS WORK_DIR PROGRAM...
set -u
build=$1 hw=$2 work=$3
shift 3
hwt=$build/bin/hwt
tool=$build/tests/decode/profile_tool

fail() {
	echo "FAIL: $*"
	exit 1
}

. "$(dirname "$0")/../work_dir.sh"
hwt_test_work_dir "$work"
mkdir -p "$work" || exit 1
cd "$work" || exit 1

# counts PROFILE: its instructions and edges, in files beside it.
counts() {
	"$tool" insns "$1" >"$1.insns" || fail "$1 does not read back"
	grep '^edge' "$1" | sort >"$1.edges"
}

kernel_psb=0
for program in "$@"; do
	name=$(basename "$program")
	"$hwt" record -q -o "$name.hwt" -- "$program" >/dev/null 2>"$name.record.err" ||
		fail "hwt record $name: $(cat "$name.record.err")"
	"$hwt" report profile -q -o "$name.prof" "$name.hwt" 2>"$name.err" ||
		fail "$name: $(cat "$name.err")"
	counts "$name.prof"
	[ -s "$name.prof.edges" ] || fail "$name: no edges in the user-only profile"
	cp -r "$name.hwt" "$name.k.hwt"
	"$hw" "$name.hwt" "$name.k.hwt" kernel >"$name.hw.out" || fail "hw_packets $name"
	sed "s/^/    [$name] /" "$name.hw.out"
	grep -q " [1-9][0-9]* interrupts, " "$name.hw.out" ||
		fail "$name: the kernel-and-user stream has no interrupt"
	grep -q " [1-9][0-9]* PSB+ in the kernel" "$name.hw.out" && kernel_psb=1
	for decoder in edge libipt check; do
		out=$name.k.$decoder
		HWT_DECODER=$decoder "$hwt" report profile --stats -o "$out.prof" "$name.k.hwt" \
			2>"$out.err"
		sed "s/^/    [$out] /" "$out.err"
		# (The summary no longer gives the streams' sizes: that warning only.)
		if grep "warning:" "$out.err" | grep -qv "summary says trace_bytes"; then
			fail "$out: warnings decoding the kernel-and-user streams"
		fi
		grep -q " 0 decode errors (0 bytes skipped), 0 overflows, [1-9][0-9]* kernel-mode trace bytes left out" \
			"$out.err" || fail "$out: --stats does not count the kernel-mode trace apart"
		counts "$out.prof"
		cmp -s "$name.prof.insns" "$out.prof.insns" && cmp -s "$name.prof.edges" "$out.prof.edges" || {
			diff "$name.prof.insns" "$out.prof.insns" | head -5
			diff "$name.prof.edges" "$out.prof.edges" | head -5
			fail "$out: the user-mode profile differs from the user-only recording's"
		}
		echo "ok   $out: the user-only profile ($(wc -l <"$out.prof.insns") instructions, $(wc -l <"$out.prof.edges") edges)"
	done
done
[ $kernel_psb = 1 ] || fail "no stream has a PSB+ in the kernel"

# Damaged: random bytes over a part of a kernel-and-user stream (and a few
# bytes flipped elsewhere) are lost with a warning, never a crash or a hang.
name=$(basename "$1")
stream=$(ls -S "$name.k.hwt"/streams/*.pt | head -1)
size=$(stat -c %s "$stream")
i=0
while [ $i -lt 6 ]; do
	rm -rf bad.hwt
	cp -r "$name.k.hwt" bad.hwt
	python3 -c 'import random, sys
p, seed = sys.argv[1], int(sys.argv[2])
rng = random.Random(seed)
b = bytearray(open(p, "rb").read())
off = rng.randrange(len(b) // 4, len(b) // 2)
n = 64 << seed
b[off:off + n] = bytes(rng.getrandbits(8) for _ in range(min(n, len(b) - off)))
for _ in range(8):
    b[rng.randrange(len(b))] ^= 0xff
open(p, "wb").write(b)' "bad.hwt/streams/$(basename "$stream")" $i
	timeout 120 "$hwt" report profile --stats -o bad.prof bad.hwt 2>bad.err
	rc=$?
	[ $rc -eq 1 ] || { cat bad.err; fail "damaged $i: exit status $rc, wanted 1 (a partial profile)"; }
	grep -q "trace bytes.* of process [0-9]* (.*), thread [0-9]* lost" bad.err ||
		{ cat bad.err; fail "damaged $i: no warning of the trace lost"; }
	i=$((i + 1))
done
echo "ok   6 damaged kernel-and-user streams: warnings, partial profiles"
echo "kernel: ok"
