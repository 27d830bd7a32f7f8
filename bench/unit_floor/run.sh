#!/usr/bin/env bash
# bench/unit_floor/run.sh - the per-process floor of a trace unit: would a
# QEMU user-mode TCG plugin (tb_log_plugin.c: callback per executed block,
# 16 KiB per-vCPU log, PT-shaped encoding, write(2)) fit a 31 ms budget per
# traced process, where Valgrind (hwt's unit today) needs ~90 ms?
#
# usage: bench/unit_floor/run.sh [--no-facts]
#   RUNS=N    runs per measurement (default 20); prints mean and min, in ms
#   HWT=PATH  the hwt binary (default build/bin/hwt; its column is skipped
#             with a note when missing: bash scripts/build.sh builds it)
#   BUDGET=MS per-process budget for the verdict (default 31)
#   JSON_PROCESS=PATH JSON_CASE=DIR  also measure a real test process:
#             jansson's test/bin/json_process on one test/suites/valid case
# Fails loudly when the plugin does not load or its block log is wrong.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
runs=${RUNS:-20}
budget=${BUDGET:-31}
hwt=${HWT:-$root/build/bin/hwt}
facts=1
[ "${1:-}" = --no-facts ] && facts=0

die() { echo "run.sh: $*" >&2; exit 1; }
need() { command -v "$1" >/dev/null 2>&1 || die "$1 not found: $2"; }
need qemu-x86_64 "apt-get install qemu-user"
need valgrind "apt-get install valgrind"
need gcc "apt-get install gcc"
need g++ "apt-get install g++"

work=$(mktemp -d /tmp/unit_floor.XXXXXX)
trap 'rm -rf "$work"' EXIT

# ---- build ----
cflags="-Wall -Wextra -Werror"
so=$work/tb_log_plugin.so
gcc -shared -fPIC -O2 $cflags -I"$here/../../collector/qemu" -o "$so" "$here/tb_log_plugin.c"
gcc -O2 $cflags -o "$work/timeit" "$here/timeit.c"
gcc -g -O0 $cflags -o "$work/hello" "$here/hello.c"
gcc -static -O2 $cflags -o "$work/hello_static" "$here/hello.c" ||
	die "static link failed (libc6-dev ships libc.a)"
g++ -O2 $cflags -o "$work/hello_cxx" "$here/hello_cxx.cc"
gcc -O0 $cflags -o "$work/loop" "$here/loop.c"
gcc -O2 $cflags -o "$work/tokenize" "$here/tokenize.c"
gcc -O0 -g $cflags -pthread -o "$work/facts" "$here/facts.c"
gcc -shared -fPIC -O2 $cflags -o "$work/marker.so" "$here/marker.c"
timeit=$work/timeit

# One plugin run of "$@" with statistics into $work/st; prints the line.
plugin_stats() {
	rm -f "$work/st"
	qemu-x86_64 -plugin "file=$so,stats=$work/st,out=$work/one" "$@" \
		>/dev/null 2>"$work/qemu.err" ||
		die "qemu-x86_64 with the plugin failed on $*: $(cat "$work/qemu.err")"
	rm -f "$work"/one.*
	[ -s "$work/st" ] || die "the plugin wrote no statistics for $*: did it load? $(cat "$work/qemu.err")"
	tail -n 1 "$work/st"
}
field() { sed -n "s/.* $1=\([0-9]*\).*/\1/p" <<<"$2"; }

# ---- the plugin loads, and its block log is right ----
qemu-x86_64 -plugin "file=$so,stats=$work/st" /bin/true 2>"$work/qemu.err" ||
	die "FATAL: qemu-x86_64 could not load the plugin: $(cat "$work/qemu.err")"
grep -q '^tb_log ' "$work/st" || die "FATAL: the plugin loaded but reported nothing"

s0=$(plugin_stats "$work/loop" 100000)
s1=$(plugin_stats "$work/loop" 200000)
dex=$(( $(field tb_executed "$s1") - $(field tb_executed "$s0") ))
dtnt=$(( $(field tnt_bits "$s1") - $(field tnt_bits "$s0") ))
dbytes=$(( $(field pt_bytes "$s1") - $(field pt_bytes "$s0") ))
echo "self-check: loop 200000 vs loop 100000 (-O0: one block, one conditional per iteration;"
echo "  same argument length, so the start-up and atol blocks are the same):"
echo "  executed blocks +$dex, TNT bits +$dtnt, PT bytes +$dbytes (6 TNT bits per byte: ~16667)"
[ "$dex" -ge 99990 ] && [ "$dex" -le 100010 ] ||
	die "FATAL: executed blocks grew by $dex, expected 100000"
[ "$dtnt" -ge 99990 ] && [ "$dtnt" -le 100010 ] ||
	die "FATAL: TNT bits grew by $dtnt, expected 100000"
[ "$dbytes" -ge 15000 ] && [ "$dbytes" -le 25000 ] ||
	die "FATAL: PT bytes grew by $dbytes, expected ~16667"
[ "$(field pt_bytes "$s0")" -gt 0 ] || die "FATAL: no PT bytes for loop 100000"
echo "  ok"
echo

# ---- timings ----
nodebug=0
nodebug_note=""
if [ "$(id -u)" != 0 ]; then
	nodebug_note="valgrind with /usr/lib/debug hidden: skipped (needs root for unshare -m)"
elif ! command -v unshare >/dev/null; then
	nodebug_note="valgrind with /usr/lib/debug hidden: skipped (no unshare)"
elif [ ! -d /usr/lib/debug ]; then
	nodebug_note="no /usr/lib/debug: the vg-nodebug column equals vg"
	nodebug=2
else
	mkdir "$work/empty"
	nodebug=1
fi
if [ ! -x "$hwt" ]; then
	hwt_note="no $hwt: hwt column skipped (bash scripts/build.sh builds it)"
else
	hwt_note=""
fi

progs="hello hello_static hello_cxx true tokenize tokenize_1"
if [ -n "${JSON_PROCESS:-}" ]; then
	[ -x "$JSON_PROCESS" ] && [ -d "${JSON_CASE:-}" ] ||
		die "JSON_PROCESS must be an executable and JSON_CASE a test case directory"
	progs="$progs json_process"
fi
path_of() {
	case $1 in
	true) echo /bin/true ;;
	tokenize_1) echo "$work/tokenize 1" ;; # 1 round instead of 20
	json_process) echo "$JSON_PROCESS $JSON_CASE" ;;
	*) echo "$work/$1" ;;
	esac
}

echo "per-process wall time in ms, mean/min of $runs runs (fork to reap)"
fmt="%-13s %-11s %-11s %-11s %-11s %-11s %-11s %7s %8s %8s %8s\n"
printf "$fmt" program native qemu qemu+plugin vg-none vg-nodebug "hwt record" TB-trans TB-exec PT-bytes VG-trans
verdicts=""
for p in $progs; do
	read -ra prog <<<"$(path_of "$p")"
	m() { read -r mean min fails <<<"$("$timeit" "$runs" "$@")"
		[ "$fails" = 0 ] || echo "warning: $fails failed runs of $*" >&2
		echo "$mean/$min"; }
	t_nat=$(m "${prog[@]}")
	t_qemu=$(m qemu-x86_64 "${prog[@]}")
	plug=$(m qemu-x86_64 -plugin "file=$so,out=$work/tr" "${prog[@]}")
	rm -f "$work"/tr.*
	t_vg=$(m valgrind --tool=none "${prog[@]}")
	case $nodebug in
	1) t_nd=$(unshare -m sh -c 'mount --bind "$1" /usr/lib/debug && shift && exec "$@"' \
		sh "$work/empty" "$timeit" "$runs" valgrind --tool=none "${prog[@]}")
	   read -r a b f <<<"$t_nd"; t_nd="$a/$b" ;;
	2) t_nd=$t_vg ;;
	*) t_nd=- ;;
	esac
	if [ -z "$hwt_note" ]; then
		t_hwt=$(m "$hwt" record --trace-all -q -o "$work/b.$p.{}" -- "${prog[@]}")
		rm -rf "$work"/b.*
	else
		t_hwt=-
	fi
	st=$(plugin_stats "${prog[@]}")
	vgt=$(valgrind --tool=none --stats=yes "${prog[@]}" 2>&1 >/dev/null |
		sed -n 's/.*translate: .* \([0-9,]*\) traces.*/\1/p' | tr -d ,)
	printf "$fmt" "$p" "$t_nat" "$t_qemu" "$plug" "$t_vg" "$t_nd" "$t_hwt" \
		"$(field tb_translated "$st")" "$(field tb_executed "$st")" \
		"$(field pt_bytes "$st")" "${vgt:--}"
	pm=${plug%/*}
	if awk -v a="$pm" -v b="$budget" 'BEGIN { exit !(a <= b) }'; then
		v="fits"
	else
		v="does NOT fit"
	fi
	verdicts+="$p: QEMU plugin unit $pm ms per process (min ${plug#*/}) $v the ${budget} ms budget (Valgrind floor ${t_nd%/*} ms, hwt record ${t_hwt%/*} ms)"$'\n'
done
[ -z "$nodebug_note" ] || echo "note: $nodebug_note"
[ -z "$hwt_note" ] || echo "note: $hwt_note"
echo
echo "where the plugin's cost goes, mean/min ms: plugin loaded but registering nothing (noop),"
echo "translation callback only (trans: QEMU 7.2 instruments every TB for the plugin), full unit"
fmt2="%-13s %-11s %-11s %-11s %-11s\n"
printf "$fmt2" program qemu noop trans full
for p in $progs; do
	read -ra prog <<<"$(path_of "$p")"
	row=()
	for m in none noop trans full; do
		if [ $m = none ]; then
			r=$("$timeit" "$runs" qemu-x86_64 "${prog[@]}")
		else
			r=$("$timeit" "$runs" qemu-x86_64 -plugin "file=$so,mode=$m,out=$work/tr" "${prog[@]}")
		fi
		rm -f "$work"/tr.*
		read -r a b f <<<"$r"
		row+=("$a/$b")
	done
	printf "$fmt2" "$p" "${row[@]}"
done
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) CPUs; other work on the machine shows as mean >> min)"
echo
echo "verdict (mean qemu+plugin vs ${budget} ms):"
printf '%s' "$verdicts"

[ "$facts" = 1 ] || exit 0

# ---- facts a QEMU-based unit depends on ----
echo
echo "facts (qemu-x86_64 $(qemu-x86_64 --version | sed -n '1s/.*version \([^ ]*\).*/\1/p')):"
f="$work/facts"
rm -f "$work/st"
qemu-x86_64 -plugin "file=$so,stats=$work/st,out=$work/fk" "$f" fork >/dev/null
echo "- fork: plugin statistics lines (one per process that ran under QEMU):"
sed 's/^/    /' "$work/st"
echo "    trace files: $(cd "$work" && ls fk.* | tr '\n' ' ')"
rm -f "$work"/fk.*

rm -f "$work/st"
out=$(qemu-x86_64 -plugin "file=$so,stats=$work/st" "$f" exec "$f" addr)
echo "- execve: the new image reports (no QEMU if it has a host vDSO and a random load address):"
sed -n '1p' <<<"$out" | sed 's/^/    /'
if [ -s "$work/st" ]; then
	echo "    the pre-exec image's atexit callback ran: $(cat "$work/st")"
else
	echo "    no plugin statistics at all: the pre-exec image's atexit callback did not run (its unflushed log is lost)"
fi

s=$(plugin_stats "$f" threads)
echo "- threads (main + 2 created): distinct vcpu indexes=$(field vcpus "$s") vcpu_init callbacks=$(field vcpu_inits "$s") vcpu_exit callbacks=$(field vcpu_exits "$s") clone/clone3 syscall entries=$(field sc_fork "$s")"

s0=$(plugin_stats "$f" nosignal)
s=$(plugin_stats "$f" signal)
echo "- signal: a SIGUSR1 handler looping 30000 times, raised once: executed blocks $(field tb_executed "$s") vs $(field tb_executed "$s0") without raising it (+$(( $(field tb_executed "$s") - $(field tb_executed "$s0") ))); TIPs $(field tips "$s") vs $(field tips "$s0")"

echo "- addresses: native vs under QEMU (guest view), then the host's /proc/PID/maps of the QEMU process:"
"$f" addr | sed -n '1p' | sed 's/^/    native: /'
qemu-x86_64 "$f" addr >"$work/addr.out" &
qpid=$!
sleep 0.5
sed -n '1p' "$work/addr.out" | sed 's/^/    guest:  /'
sed -n '2,$p' "$work/addr.out" | sed 's/^/    /'
grep -E 'facts|vdso|qemu-x86_64' "/proc/$qpid/maps" | sed 's/^/    host:   /' || true
wait "$qpid"

echo "- LD_PRELOAD given to qemu-x86_64 (where a preload library's constructor runs):"
LD_PRELOAD=$work/marker.so qemu-x86_64 "$work/hello" 2>&1 >/dev/null | sed 's/^/    env LD_PRELOAD:    /'
qemu-x86_64 -E "LD_PRELOAD=$work/marker.so" "$work/hello" 2>&1 >/dev/null | sed 's/^/    -E LD_PRELOAD=: /'
