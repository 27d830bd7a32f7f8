#!/bin/bash
# On the host, after the guest recorded with the kernel unit (guest_record.sh):
# checks the bundles against oracles that no one here wrote. Prints
# "CHECK name PASS|FAIL ..." lines (run_qemu.sh counts them).
#   check_records.sh SRC_ROOT BUILD_DIR OUT_DIR [ORACLE_DIR]
# ORACLE_DIR: what oracles.sh wrote (the CTest test kmod.oracles); without
# it (or when it has no "done"), oracles.sh is run into OUT_DIR/host.
# - libipt's decode of every stream equals the backend's log of what it
#   stepped (roundtrip_check);
# - per-instruction counts of each program's own image equal those of the
#   Valgrind unit for the same deterministic run;
# - the stepped instructions of a --filter'ed function equal callgrind's;
# - a static program and a raw-execve child are traced (the Valgrind unit's
#   preloaded selection misses them);
# - hwt-cov's lcov of examples/calc equals the Valgrind unit's;
# - a wrapped buffer records its loss; attach and killed-collector bundles decode;
# - an attach to a thread alone on its CPU has trace;
# - CPU mode (-a): each program's counts equal the Valgrind unit's (two
#   programs at once too), the per-thread streams cut out of the CPUs'
#   buffers decode with no error.
set -u
root=$1 build=$2 out=$3
hwt=$build/bin/hwt
P=$build/tests/programs
rt_check=$build/tests/roundtrip/roundtrip_check
same=$build/tests/kmod/insn_counts_same
vg=$out/host
oracle=${4:-$vg}
rm -rf "$vg"
[ -f "$oracle/done" ] || "$root/tests/kmod/oracles.sh" "$build" "$oracle"
mkdir -p "$vg"

check() { # name, 0 = pass, detail
	if [ "$2" -eq 0 ]; then echo "CHECK $1 PASS ${3:-}"; else echo "CHECK $1 FAIL ${3:-}"; fi
}

# Decode equals what ran: the backend's block log.
for b in "$out"/rt.*; do
	[ -d "$b" ] || continue
	name=${b##*/rt.}
	res=$("$rt_check" "$b" 2>"$vg/rt.$name.err" | tail -1)
	check "roundtrip.$name" $([ "${res% 0 failed}" != "$res" ] && echo 0 || echo 1) "$res"
done

# The Valgrind unit's per-instruction counts, image by image (the program's own images).
# program:status:images (besides the program). Not crash: the Valgrind unit
# reports its fault at the start of the faulting block (one instruction
# short); the block log check above covers it.
for entry in loops:0: switch_table:0: recursion:0: function_pointers:0: \
	     plt_calls:0:$P/libhwtprobe.so dlopen_lib:0:$P/libhwtplugin.so threads:0: \
	     fork_exec:0:$P/loops signal_handler:0: longjmp:0: syscalls:0: string_ops:0: \
	     abort:134: loops_o2:0: threads_o2:0: signal_handler_o2:0: cxx_virtual:0: \
	     cxx_exceptions:0:; do
	prog=${entry%%:*} rest=${entry#*:} want=${rest%%:*} libs=${rest#*:}
	[ -d "$out/rt.$prog" ] || { check "valgrind_counts.$prog" 1 "no kmod bundle"; continue; }
	st=$(cat "$oracle/$prog.status" 2>/dev/null)
	"$hwt" report profile -q "$out/rt.$prog" -o "$vg/rt.$prog.prof" 2>/dev/null
	res=$("$same" "$vg/rt.$prog.prof" "$oracle/vg.$prog.prof" "$P/$prog" $libs 2>"$vg/same.$prog.err")
	rc=$?
	[ "$st" = "$want" ] || rc=1
	check "valgrind_counts.$prog" $rc "$(echo "$res" | tr '\n' ';')"
done

# --filter: the instructions stepped (the block log) against callgrind's of the function.
for f in loops:nested_for recursion:fib function_pointers:cmp_int; do
	fn=${f#*:}
	ir=$(cat "$oracle/cg.$fn" 2>/dev/null)
	n=$("$root/tests/kmod/stepped.py" "$out/flt.$fn" 2>/dev/null)
	check "filter.$fn" $([ -n "$ir" ] && [ "$n" = "$ir" ] && echo 0 || echo 1) \
		"stepped ${n:-?}, callgrind ${ir:-?}"
done

# A static program and a raw execve child, traced under the default selection;
# the Valgrind unit's preloaded selection does not see that exec.
static_pids() { # bundle: pids of its images of loops_static
	"$hwt" dump --sideband-only "$1" 2>/dev/null |
		sed -n 's|.* \([0-9]*\)/[0-9]* process-start .*path="[^"]*/loops_static".*|\1|p'
}
pids=$(static_pids "$out/sel.raw_execve")
streams=0
for pid in $pids; do
	n=$(ls "$out/sel.raw_execve/streams/" 2>/dev/null | grep -c "^$pid\.")
	streams=$((streams + n))
done
check select.raw_execve_static $([ -n "$pids" ] && [ $streams -gt 0 ] && echo 0 || echo 1) \
	"images of loops_static: ${pids:-none}, their streams: $streams"
vpids=$(static_pids "$oracle/vg.sel.raw_execve")
check select.valgrind_misses_raw_execve $([ -z "$vpids" ] && [ -f "$oracle/vg.sel.raw_execve/summary" ] &&
	echo 0 || echo 1) "images of loops_static under the Valgrind unit: ${vpids:-none}"

# hwt-cov on examples/calc: the same lcov as the Valgrind unit's.
cmp -s "$out/calc.kmod.info" "$oracle/calc.valgrind.info"
rc=$?
[ -s "$out/calc.kmod.info" ] || rc=1
check hwt_cov_calc_same_lcov $rc "$(grep -c '^DA:' "$out/calc.kmod.info" 2>/dev/null) DA lines"

# A full buffer while the collector was stopped: --wrap records the loss and
# what is left decodes; by default the thread waits and nothing is lost.
lost=$(sed -n 's/^lost_bytes=//p' "$out/wrap.spin/summary" 2>/dev/null)
"$hwt" report profile -q "$out/wrap.spin" -o "$vg/wrap.prof" >/dev/null 2>&1
st=$?
check full_buffer.wrap $([ "${lost:-0}" -gt 0 ] && [ $st -le 1 ] && [ -s "$vg/wrap.prof" ] && echo 0 || echo 1) \
	"lost_bytes=${lost:-?}, profile status $st"
lost=$(sed -n 's/^lost_bytes=//p' "$out/pause.spin/summary" 2>/dev/null)
res=$("$rt_check" "$out/pause.spin" 2>&1 | tail -1)
check full_buffer.pause $([ "${lost:-x}" = 0 ] && [ "${res% 0 failed}" != "$res" ] && echo 0 || echo 1) \
	"lost_bytes=${lost:-?}, $res"

# Attach for 2 s: its trace decodes with no error (it ends without an exit
# record, which the decoder says).
for b in attach.spin; do
	"$hwt" report profile --stats "$out/$b" -o "$vg/$b.prof" >"$vg/$b.err" 2>&1
	st=$?
	errors=$(sed -n 's/.* \([0-9]*\) decode errors.*/\1/p' "$vg/$b.err")
	insns=$(awk '$1 == "block" { n += $5 * $6 } END { print n + 0 }' "$vg/$b.prof" 2>/dev/null)
	check "decode.$b" $([ $st -le 1 ] && [ "${errors:-x}" = 0 ] && [ "${insns:-0}" -gt 0 ] &&
		echo 0 || echo 1) "status $st, ${errors:-?} decode errors, $insns instructions"
done

# Attached to a thread alone on its CPU: each run has trace. That START's
# kick, not a later switch-in, enabled it is the guest case attach_kick
# (hwt_ktest.c, on states); here the thread is switched in often during
# the recording, so that cannot be told from the bundle without a clock.
seen=
rc=0
for i in 1 2 3; do
	tsc=$("$hwt" dump --packets "$out/attach.pinned.$i" 2>/dev/null | awk '$2 == "tsc" { n++ } END { print n + 0 }')
	seen="$seen run $i: $tsc TSC packets,"
	[ "$tsc" -gt 0 ] || rc=1
done
check attach.pinned_trace $rc "${seen%,}"

# CPU mode: the per-thread streams cut out of the CPUs' buffers decode with
# no error, and each program's counts are the Valgrind unit's.
for entry in loops:loops threads:threads two:loops two:recursion; do
	b=${entry%%:*} prog=${entry#*:}
	"$hwt" report profile --stats "$out/cpu.$b" -o "$vg/cpu.$b.prof" >"$vg/cpu.$b.err" 2>&1
	res=$("$same" "$vg/cpu.$b.prof" "$oracle/vg.$prog.prof" "$P/$prog" 2>"$vg/cpu.same.$b.err")
	check "cpu.valgrind_counts.$b.$prog" $? "$(echo "$res" | tr '\n' ';')"
done
for b in loops threads two duration; do
	"$hwt" report profile --stats "$out/cpu.$b" -o "$vg/cpu.$b.prof" >"$vg/cpu.$b.err" 2>&1
	st=$?
	errors=$(sed -n 's/.* \([0-9]*\) decode errors.*/\1/p' "$vg/cpu.$b.err")
	# the streams decoded, by either decoder (not the edge decoder's count,
	# the last on the line: it hands some CPU-mode streams to libipt)
	streams=$(sed -n 's/^hwt report profile: \([0-9]*\) streams.*/\1/p' "$vg/cpu.$b.err")
	check "cpu.decode.$b" $([ $st -le 1 ] && [ "${errors:-x}" = 0 ] && [ "${streams:-0}" -gt 0 ] &&
		echo 0 || echo 1) "status $st, ${streams:-?} streams, ${errors:-?} decode errors"
done
# threads: its five threads (main and four) each have a stream.
n=$(ls "$out/cpu.threads/streams" 2>/dev/null | grep -c "^$(ls "$out/cpu.threads/streams" 2>/dev/null |
	sed -n 's/^\([0-9]*\)\..*/\1/p' | sort | uniq -c | sort -n | tail -1 | awk '{ print $2 }')\.")
check cpu.threads_split $([ "$n" -ge 5 ] && echo 0 || echo 1) "$n streams of the threads process"

# Both decoders on every bundle the kernel unit wrote, whose PSB+ can come
# in the middle of a block (the other units write it between blocks):
# --decoder check decodes each stream with both, warns where they disagree
# and writes libipt's profile, which the edge decoder with streams split at
# PSBs into parts of 1 KiB on 8 threads must give too. The edge decoder must
# decode the clean bundles' streams itself (as tests/decode/edge_test.sh
# asks of the other units' bundles); a bundle with lost or cut trace may
# go to libipt.
all=0 own=0 handed=0 disagree=0 bundles=0 parts=0 split_differ=
for b in "$out"/*/; do
	b=${b%/} name=${b##*/}
	[ -f "$b/hwt-bundle" ] || continue
	bundles=$((bundles + 1))
	"$hwt" report profile --stats --decoder check "$b" -o "$vg/check.$name.ipt" \
		>"$vg/check.$name.err" 2>&1
	disagree=$((disagree + $(grep -c 'disagree' "$vg/check.$name.err")))
	HWT_DECODE_SEGMENT=1024 "$hwt" report profile -q --stats -j8 --decoder edge "$b" \
		-o "$vg/check.$name.split" 2>"$vg/check.$name.split.err"
	n=$(sed -n 's/.* \([0-9]*\) parts on threads of their own.*/\1/p' "$vg/check.$name.split.err")
	parts=$((parts + ${n:-0}))
	cmp -s "$vg/check.$name.ipt" "$vg/check.$name.split" && [ -s "$vg/check.$name.ipt" ] ||
		split_differ="$split_differ $name"
	line=$(grep 'edge decoder:' "$vg/check.$name.err")
	e=$(echo "$line" | sed -n 's/.*edge decoder: \([0-9]*\) streams.*/\1/p')
	f=$(echo "$line" | sed -n 's/.*edge decoder: [0-9]* streams, \([0-9]*\) handed.*/\1/p')
	all=$((all + ${e:-0} + ${f:-0}))
	case $name in
	rt.* | cpu.loops | cpu.threads | cpu.two | cpu.duration | flt.* | sel.*)
		own=$((own + ${e:-0} + ${f:-0}))
		handed=$((handed + ${f:-0}));;
	esac
done
check edge_equals_libipt $([ $bundles -gt 0 ] && [ $all -gt 0 ] && [ $disagree = 0 ] && echo 0 || echo 1) \
	"$bundles bundles, $all streams, $disagree where the decoders disagree"
check edge_split_equals_libipt $([ $parts -gt 0 ] && [ -z "$split_differ" ] && echo 0 || echo 1) \
	"split at PSBs, $parts parts kept:${split_differ:- all equal}"
check edge_decodes_clean $([ $own -gt 0 ] && [ $((handed * 10)) -le $own ] && echo 0 || echo 1) \
	"$handed of the $own streams of clean bundles handed to libipt"
