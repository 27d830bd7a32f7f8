#!/bin/sh
# Hardware's packets: records a program with a software trace unit, writes its
# streams again with libipt's encoder as a PMU with return compression, MTC,
# CYC, power events and PTW would (hw_packets), exports that as perf.data,
# imports it and checks that the import's profile counts what the original
# bundle's does: every instruction and every edge (libipt cuts blocks where
# PSB+ events come: split blocks count the same instructions); and that Linux
# perf's decoder gives every thread the original's branches.
# usage: run_hw_packets.sh HWT HW_PACKETS CHECK PROFILE_TOOL WORKDIR STATUS UNIT PROGRAM ARGS...
set -u
hwt=$1 hw=$2 check=$3 profile_tool=$4 work=$5 expected=$6 unit=$7
shift 7
. "$(dirname "$0")/../work_dir.sh"
hwt_test_work_dir "$work" "$work.*"
mkdir -p "$(dirname "$work")"
"$hwt" record -q --unit "$unit" -o "$work" -- "$@" >"$work.out" 2>"$work.err"
status=$?
[ "$status" = "$expected" ] || { echo "FAIL: exit status $status, expected $expected"; exit 1; }
# HW_PACKETS_KERNEL=1: the trace goes on into the kernel, which the import cuts out.
kernel=
[ "${HW_PACKETS_KERNEL:-0}" = 1 ] && kernel=kernel
cp -r "$work" "$work.hw" && "$hw" "$work" "$work.hw" $kernel || { echo "FAIL: hw_packets"; exit 1; }
# (The altered streams no longer have the size the summary says: exit status 1.)
# HW_PACKETS_ONE_CPU=1: every thread on one CPU (per-CPU AUX data).
one_cpu=
[ "${HW_PACKETS_ONE_CPU:-0}" = 1 ] && one_cpu=--one-cpu
"$hwt" export -q $one_cpu -o "$work.data" "$work.hw" 2>/dev/null
[ $? -le 1 ] || { echo "FAIL: export"; exit 1; }
"$hwt" import -o "$work.imp" "$work.data" 2>"$work.imp.log"
[ $? -le 1 ] || { cat "$work.imp.log"; echo "FAIL: import"; exit 1; }
cat "$work.imp.log"
failed=0
if [ -n "$kernel" ]; then
	if ! grep -q " of kernel-mode trace skipped" "$work.imp.log" ||
		! grep -q "^pt_kernel=1$" "$work.imp/hwt-bundle"; then
		echo "FAIL: no kernel-mode trace was cut out"
		failed=1
	else
		echo "ok   kernel-mode trace cut out:$(grep -o ': [^:]* of kernel-mode trace skipped' "$work.imp.log" | sed 's/^://')"
	fi
fi
# The TSC:CTC ratio grows by the export's clock scale (one CTC tick stays one
# step of the bundle's clock).
grep -q "^pt_mtc_freq=0$" "$work.imp/hwt-bundle" && grep -q "^pt_ret_compression=1$" "$work.imp/hwt-bundle" &&
	grep -q "^pt_cyc=1$" "$work.imp/hwt-bundle" && grep -q "^pt_tsc_ctc=[0-9]*/1$" "$work.imp/hwt-bundle" ||
	{ echo "FAIL: the import's header does not carry the PMU's configuration"; failed=1; }
"$hwt" report profile -o "$work.prof" "$work" 2>"$work.err"
"$hwt" report profile -o "$work.imp.prof" "$work.imp" 2>"$work.imp.err"
for p in "$work.prof" "$work.imp.prof"; do
	"$profile_tool" insns "$p" >"$p.insns"
	grep '^edge' "$p" | sort >"$p.edges"
done
if cmp -s "$work.prof.insns" "$work.imp.prof.insns" && cmp -s "$work.prof.edges" "$work.imp.prof.edges" &&
	[ -s "$work.prof.edges" ]; then
	echo "ok   the import counts what the bundle does: $(wc -l <"$work.prof.insns") instructions," \
		"$(wc -l <"$work.prof.edges") edges"
else
	echo "FAIL: the import's counts differ from the bundle's"
	diff "$work.prof.insns" "$work.imp.prof.insns" | head -5
	diff "$work.prof.edges" "$work.imp.prof.edges" | head -5
	failed=1
fi
# The same warnings as the bundle's (offsets aside: the streams differ).
sed -E "s|$work.imp|BUNDLE|g; s|$work|BUNDLE|g; s/0x[0-9a-f]+/N/g" "$work.err" >"$work.w1"
sed -E "s|$work.imp|BUNDLE|g; s|$work|BUNDLE|g; s/0x[0-9a-f]+/N/g" "$work.imp.err" >"$work.w2"
if ! cmp -s "$work.w1" "$work.w2"; then
	echo "FAIL: the import decodes with other warnings than the bundle"
	diff "$work.w1" "$work.w2"
	failed=1
fi
# The check can fail: without the keys that give libipt the MTC frequency and
# the TSC:CTC ratio, time stands still between PSBs and a library mapped in
# between (dlopen_lib) is not there when its code runs.
if [ "${HW_PACKETS_TIMING_CHECK:-0}" = 1 ]; then
	rm -rf "$work.nocfg" && cp -r "$work.imp" "$work.nocfg"
	sed -i '/^pt_tsc_ctc=/d; /^pt_mtc_freq=/d' "$work.nocfg/hwt-bundle"
	"$hwt" report profile -o "$work.nocfg.prof" "$work.nocfg" 2>"$work.nocfg.err"
	"$profile_tool" insns "$work.nocfg.prof" >"$work.nocfg.insns"
	if cmp -s "$work.prof.insns" "$work.nocfg.insns"; then
		echo "FAIL: without the PMU's MTC configuration the decode is the same: the check tests nothing"
		failed=1
	else
		echo "ok   without the PMU's MTC configuration the decode differs ($(wc -l <"$work.nocfg.err") warnings)"
	fi
fi
# Linux perf's decoder lists the original's branches; with kernel-mode trace
# its user-mode ones (it cannot read the kernel's code here).
if command -v perf >/dev/null; then
	python3 "$(dirname "$0")/branches_vs_perf.py" "$check" "$work" "$work.data" \
		${kernel:+user} || failed=1
fi
[ "$failed" = 0 ]
