#!/bin/sh
# In the QEMU guest, chrooted into the host's file system (run_qemu.sh, init.sh):
# records with the kernel unit what the host checks afterwards
# (check_records.sh), and checks here what only the guest can see: attach and
# detach, a collector killed mid-trace. Prints "KTEST name PASS|FAIL ...".
#   guest_record.sh BUILD OUT
set -u
build=$1 out=$2
hwt=$build/bin/hwt
P=$build/tests/programs
spin=$build/tests/kmod/spin
cd "$out" || exit 1

result() { # name, 0 = pass, detail...
	name=$1 rc=$2
	shift 2
	if [ "$rc" -eq 0 ]; then echo "KTEST $name PASS $*"; else echo "KTEST $name FAIL $*"; fi
}

# Round trip: every program of tests/programs, its stepped blocks logged.
# name:expected status
for entry in loops:0 loops_o2:0 switch_table:0 recursion:0 function_pointers:0 plt_calls:0 \
	     dlopen_lib:0 threads:0 threads_o2:0 fork_exec:0 signal_handler:0 signal_handler_o2:0 \
	     longjmp:0 syscalls:0 string_ops:0 vdso_calls:0 close_fds:0 crash:139 killed:137 \
	     abort:134 loops_static:0 raw_execve:0 cxx_virtual:0 cxx_exceptions:0; do
	prog=${entry%:*} want=${entry#*:}
	t0=$(date +%s)
	"$hwt" record --unit kmod -q --trace-all --debug-blocks -o "rt.$prog" -- "$P/$prog" \
		> "rt.$prog.out" 2> "rt.$prog.err"
	st=$?
	result "record.$prog" $([ "$st" = "$want" ] && echo 0 || echo 1) "status $st ($(($(date +%s) - t0)) s)"
done

# Selection as by default: a static program and a raw execve child are traced.
"$hwt" record --unit kmod -q -o sel.raw_execve -- "$P/raw_execve" > sel.raw_execve.out 2>&1
result record.select_raw_execve $? ""

# Filters: only one function stepped.
for f in loops:nested_for recursion:fib function_pointers:cmp_int; do
	"$hwt" record --unit kmod -q --trace-all --debug-blocks --filter "$f" -o "flt.${f#*:}" \
		-- "$P/${f%:*}" > "flt.${f#*:}.out" 2>&1
	result "record.filter_${f#*:}" $? ""
done

# A buffer that fills while the collector is stopped: written over (--wrap,
# the loss recorded), or the thread waits (the default: nothing lost). The
# collector is stopped once the target runs (spin's .ready mark), and with
# --wrap only let go after the target's end (.done): however slowly the guest
# steps, the target's whole run has no one draining (under load a fixed sleep
# once let the target run after the collector was let go, and nothing was lost).
# Every wait here is for a state (a mark, a process state, a slab count);
# its limit only catches hangs.
# The waits count in "tick", not "i": callers loop with i.
wait_mark() { # file, seconds: 0 once it exists
	tick=0
	while [ ! -s "$1" ] && [ $tick -lt $(($2 * 10)) ]; do
		sleep 0.1
		tick=$((tick + 1))
	done
	[ -s "$1" ]
}
# spin writes its pid into MARK.ready; 0 once that process sleeps (S or D):
# spin never does by itself, so it is paused in the kernel.
wait_asleep() { # ready mark, seconds
	pid=$(cat "$1") tick=0
	while [ $tick -lt $(($2 * 10)) ]; do
		case $(sed 's/.*) \(.\).*/\1/' "/proc/$pid/stat" 2>/dev/null) in
		S | D) return 0 ;;
		esac
		sleep 0.1
		tick=$((tick + 1))
	done
	return 1
}
for mode in wrap pause; do
	rm -f "$mode.mark.ready" "$mode.mark.done"
	"$hwt" record --unit kmod -q --trace-all --buffer-size 4096 \
		$([ $mode = wrap ] && echo --wrap || echo --debug-blocks) \
		-o "$mode.spin" -- "$spin" 2 "$PWD/$mode.mark" > "$mode.out" 2>&1 &
	collector=$!
	wait_mark "$mode.mark.ready" 120
	kill -STOP $collector
	# pause: the target waits for the stopped collector, so it cannot end:
	# wait until it sleeps, its buffer full.
	waited=0
	if [ $mode = wrap ]; then
		wait_mark "$mode.mark.done" 120 || waited=1
	else
		wait_asleep "$mode.mark.ready" 120 || waited=1
	fi
	kill -CONT $collector
	wait $collector
	st=$?
	result "record.full_buffer_$mode" $([ $st = 0 ] && [ $waited = 0 ] && echo 0 || echo 1) \
		"status $st, $([ $waited = 0 ] && echo "the state reached" || echo "the target never $([ $mode = wrap ] && echo ended || echo paused) in 120 s") $(cat "$mode.out")"
done

# examples/calc's suite under hwt-cov (the host compares with the Valgrind unit's lcov).
"$build/bin/hwt-cov" --unit kmod -q -o calc.kmod.info --keep calc.kmod.hwt -- \
	sh "$build/examples/calc/run-tests.sh" > calc.kmod.out 2>&1
result hwt_cov_calc $? ""

# The slab caches of hwt.ko and hwt_sw.ko: "name active" lines, per-CPU slabs flushed.
caches="hwt_context hwt_thread hwt_buffer hwt_cpus hwt_select hwt_sw_thread"
slabs() {
	for c in $caches; do
		echo 1 > "/sys/kernel/slab/$c/shrink" 2>/dev/null
		awk -v c="$c" '$1 == c { print c, $2 }' /proc/slabinfo
	done
}
# The target no longer runs out its 10 s before the counts are taken: the
# wait is as long as that and the 5 s after it were.
slabs_settle() { # waits (up to 15 s) for the counts to equal $1
	tick=0
	while [ $tick -lt 150 ]; do
		now=$(slabs | tr '\n' ' ')
		[ "$now" = "$1" ] && break
		sleep 0.1
		tick=$((tick + 1))
	done
	echo "$now"
}
before=$(slabs | tr '\n' ' ')

# Attach: a running process traced for 2 s, then detached; it goes on and ends
# well. spin runs until it is let go (SIGUSR1) once seen running on (its
# SECONDS, 600, only bound a hang), here and below; the attach waits for its
# ready mark, not for a time.
rm -f attach.mark.ready
"$spin" 600 attach.mark > attach.spin.out 2>&1 &
target=$!
wait_mark attach.mark.ready 120
"$hwt" record --unit kmod -q -p "$target" --duration 2 -o attach.spin > attach.out 2>&1
st=$?
alive=1
kill -0 "$target" 2>/dev/null && alive=0
kill -USR1 "$target" 2>/dev/null
wait "$target"
spin_st=$?
result attach $([ $st = 0 ] && [ $alive = 0 ] && [ $spin_st = 0 ] && echo 0 || echo 1) \
	"record $st, alive after detach $alive, target $spin_st: $(cat attach.spin.out)"

# Attach to a thread alone on its CPU, which nothing switches out: START
# sends it into the kernel to enable its unit (hwt_context_kick_threads),
# rather than at its next switch-in, seconds later or never. The recorder
# on the other CPU; the host checks each has trace (that the kick enabled
# it is the guest case attach_kick, on states).
for i in 1 2 3; do
	rm -f "attach.pinned.$i.mark.ready"
	taskset -c 1 "$spin" 600 "attach.pinned.$i.mark" > "attach.pinned.$i.out" 2>&1 &
	target=$!
	wait_mark "attach.pinned.$i.mark.ready" 120
	taskset -c 0 "$hwt" record --unit kmod -q -p "$target" --duration 1 -o "attach.pinned.$i" \
		>> "attach.pinned.$i.out" 2>&1
	st=$?
	kill -USR1 "$target" 2>/dev/null
	wait "$target"
	spin_st=$?
	result "attach.pinned.$i" $([ $st = 0 ] && [ $spin_st = 0 ] && echo 0 || echo 1) \
		"record $st, target $spin_st: $(tr '\n' ' ' < "attach.pinned.$i.out")"
done

# CPU mode (-a): everything that runs on every CPU, cut into threads. A
# deterministic program, one of threads that move between the CPUs, two
# programs at once (the host compares each with the Valgrind unit's counts),
# and 2 s of whatever runs with a spinning process among it.
for entry in loops:loops threads:threads two:"$P/loops & $P/recursion; wait"; do
	name=${entry%%:*} cmd=${entry#*:}
	t0=$(date +%s)
	case $name in
	two) "$hwt" record --unit kmod -q -a -o "cpu.$name" -- sh -c "$cmd" > "cpu.$name.out" 2>&1;;
	*) "$hwt" record --unit kmod -q -a -o "cpu.$name" -- "$P/$cmd" > "cpu.$name.out" 2>&1;;
	esac
	result "cpu.$name" $? "($(($(date +%s) - t0)) s)"
done
rm -f cpu.mark.ready
"$spin" 600 cpu.mark > cpu.spin.out 2>&1 &
target=$!
wait_mark cpu.mark.ready 120
"$hwt" record --unit kmod -q -a --duration 2 -o cpu.duration > cpu.duration.out 2>&1
st=$?
kill -USR1 "$target" 2>/dev/null
wait "$target"
spin_st=$?
result cpu.duration $([ $st = 0 ] && [ $spin_st = 0 ] && echo 0 || echo 1) \
	"record $st, target $spin_st: $(cat cpu.spin.out)"

# The collector killed while it traces: the target runs on, untraced (it
# must be running when the collector dies, and end well). The collector is
# killed once its context exists (one more hwt_context object than before),
# however long the guest takes to start it; the target runs until let go.
slab_count() { # cache
	echo 1 > "/sys/kernel/slab/$1/shrink" 2>/dev/null
	awk -v c="$1" '$1 == c { print $2 }' /proc/slabinfo
}
collector_killed() { # name, bundle, what to trace (-p PID is filled in: "-p")
	name=$1 bundle=$2
	shift 2
	rm -f "$bundle.mark.ready"
	"$spin" 600 "$bundle.mark" > "$bundle.spin.out" 2>&1 &
	target=$!
	wait_mark "$bundle.mark.ready" 120
	if [ "$1" = -p ]; then set -- -p "$target"; fi
	ctx0=$(slab_count hwt_context)
	"$hwt" record --unit kmod -q "$@" -o "$bundle" > "$bundle.out" 2>&1 &
	collector=$!
	i=0
	while [ "$(slab_count hwt_context)" -le "$ctx0" ] && [ $i -lt 1200 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	alive=1
	kill -0 "$target" 2>/dev/null && alive=0
	kill -9 "$collector"
	wait "$collector" 2>/dev/null
	kill -USR1 "$target" 2>/dev/null
	wait "$target"
	spin_st=$?
	after=$(slabs_settle "$before")
	result "$name" $([ $alive = 0 ] && [ $spin_st = 0 ] && [ "$after" = "$before" ] && \
		echo 0 || echo 1) "alive when the collector died $alive, target $spin_st: $(cat "$bundle.spin.out"); slabs before: $before; after: $after"
}
collector_killed collector_killed killed.collector -p
collector_killed cpu.collector_killed cpu.killed -a
