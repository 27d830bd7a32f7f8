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
echo "kernel: ok"
