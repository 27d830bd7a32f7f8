#!/bin/sh
# What the stacks must get right, on real traces (docs/flame.md):
#   tail       tail calls replace the frame (nest in callgrind's convention)
#   deep       a 100,000-deep recursion: tracked whole, timelines nest, folded
#              and flame cut it into a marked [deeper] frame with a warning
#   longjmp    longjmp and C++ exceptions cut the stack back (no staircase)
#   signal     handlers on top of the interrupted stack, gone after sigreturn
#   processes  fork and exec: stacks rooted at command names; --merge, --pid;
#              threads: --tid splits the whole into its threads
#   time       --weight time needs a clock; with one (clock=tsc), ticks add up
#   diff       hwt report flame --diff A B; two runs matched by command and
#              thread order, not pid
#   plt        PLT entries and PLT0 (lazy binding) named as Linux perf names them
#   debuginfo  names from separate debug files: libc6-dbg's, a debug link's,
#              --debug-dir (skipped without libc6-dbg)
#   inline     --inline: inlined frames, the same total
#   damage     a corrupt or cut stream: a partial graph, the gap marked, a
#              warning, exit status 1
#   command    hwt flame -- CMD: records, writes, passes CMD's exit status
#   svg        the flame graph's options (--width, --inverted, --min-width,
#              --colors, --title) in the boxes drawn; --progress
#   etm        aarch64 runs (ETMv4, OpenCSD's decode): tail calls, longjmp,
#              exceptions, signals, fork and exec as on x86-64 (skipped when
#              the aarch64 test programs are not built)
#
# usage: stacks_test.sh BUILD_DIR WORK_DIR CASE
set -u
build=$1
work=$2
case=$3
here=$(cd "$(dirname "$0")" && pwd)
hwt=$build/bin/hwt
programs=$build/tests/programs
export HWT_VALGRIND_LIB="$build/lib/hwt/valgrind"

fail() {
	echo "FAIL: $*"
	exit 1
}

record() { # NAME PROG [ARGS]: NAME.hwt with the Valgrind unit, every process traced
	name=$1
	shift
	"$hwt" record --unit valgrind --trace-all -o "$name.hwt" -- "$@" >"$name.out" 2>"$name.rec" ||
		fail "hwt record $*: $(cat "$name.rec")"
}

has() { # FILE REGEX
	grep -Eq -- "$2" "$1" || fail "$1: no line matching '$2'"
}

hasnt() { # FILE REGEX
	! grep -Eq -- "$2" "$1" || fail "$1: a line matches '$2': $(grep -E -m1 -- "$2" "$1" | cut -c1-300)"
}

total() { # FOLDED: the sum of its counts
	awk '{ s += $NF } END { print s + 0 }' "$1"
}

# The most frames named NAME in one line of FILE.
most() {
	awk -F';' -v n="$2" '{ c = 0; for (i = 1; i <= NF; i++) { f = $i; if (i == NF) sub(/ [0-9]+$/, "", f); if (f == n) c++ } if (c > m) m = c } END { print m + 0 }' "$1"
}

. "$(dirname "$0")/../work_dir.sh"
hwt_test_work_dir "$work"
mkdir -p "$work" || exit 1
cd "$work" || exit 1

case $case in
tail)
	record t "$programs/tail_calls_o2"
	"$hwt" report folded -o t.folded t.hwt || fail "report"
	"$hwt" report folded --callgrind -o tc.folded t.hwt || fail "report --callgrind"
	# top jumps to middle, middle to leaf: leaf's frame replaces theirs.
	has t.folded ';main;leaf [0-9]+$'
	hasnt t.folded ';top;middle'
	hasnt t.folded ';middle;leaf'
	# indirect's jump through a pointer is a tail call too.
	hasnt t.folded ';indirect;middle'
	has t.folded ';main;indirect [0-9]+$'
	# callgrind's convention nests them.
	has tc.folded ';main;top;middle;leaf [0-9]+$'
	has tc.folded ';main;indirect;middle;leaf [0-9]+$'
	# The tail recursion is a loop: one frame.
	n=$(grep -o 'count_down[^; ]*' t.folded | sort -u)
	[ -n "$n" ] && [ "$(most t.folded "$n")" -eq 1 ] || fail "$n is $(most t.folded "$n") deep"
	[ "$(total t.folded)" -eq "$(total tc.folded)" ] || fail "the conventions count differently"
	echo "ok: tail calls replace frames (nested with --callgrind), $(total t.folded) instructions"
	;;
deep)
	record d "$programs/deep_recursion"
	"$hwt" report folded --stats -o d.folded d.hwt 2>d.err || fail "report: $(cat d.err)"
	cat d.err
	grep -q "deepest stack 10000[0-9] frames" d.err || fail "the stack was not 100,000 deep"
	grep -Eq "[0-9]+ stacks? deeper than 2048 frames ends? in a \[deeper\] frame" d.err ||
		fail "no warning about the cut"
	has d.folded ';\[deeper\] [0-9]+$'
	"$hwt" report folded --max-depth 3000 -o d3.folded d.hwt 2>/dev/null || fail "report"
	[ "$(total d.folded)" -eq "$(total d3.folded)" ] || fail "the cut lost counts"
	[ "$(most d.folded down)" -le 2048 ] || fail "deeper than the cut"
	"$hwt" report chrome -o d.trace.json d.hwt || fail "report chrome"
	"$hwt" report speedscope -o d.speedscope.json d.hwt || fail "report speedscope"
	"$hwt" report folded --max-depth 0 -o d0.folded --pid 1 d.hwt 2>/dev/null # nothing: no pid 1
	[ ! -s d0.folded ] || fail "--pid 1 kept stacks"
	# Whole (no cut) for the timelines' check: only the deep part, as a tree.
	python3 - d.trace.json <<'EOF' || exit 1
import json, sys
depth = best = 0
for e in json.load(open(sys.argv[1]))['traceEvents']:
    if e['ph'] == 'B':
        depth += 1
        best = max(best, depth)
    elif e['ph'] == 'E':
        depth -= 1
if best < 100000 or depth:
    sys.exit(f'FAIL: chrome trace nests {best} deep, ends at {depth}')
print(f'ok: the Chrome trace nests {best} slices deep')
EOF
	echo "ok: 100,000-deep recursion"
	;;
longjmp)
	record l "$programs/longjmp"
	"$hwt" report folded -o l.folded l.hwt || fail "report"
	# descend recurses 10-14 deep per round; a stack that missed the longjmps
	# would grow round after round.
	n=$(most l.folded descend)
	[ "$n" -ge 10 ] && [ "$n" -le 15 ] || fail "descend is $n deep"
	has l.folded ';main;descend'
	record x "$programs/cxx_exceptions"
	"$hwt" report folded --stats -o x.folded x.hwt 2>x.err || fail "report"
	grep -q "[1-9][0-9]* unwinds" x.err || fail "no unwinds seen: $(cat x.err)"
	has x.folded ';main;'
	hasnt x.folded '\[unknown\]'
	# C++ names demangled (libstdc++'s demangler, loaded when first needed)
	has x.folded ';\(anonymous namespace\)::level1\(int, std::vector<int, std::allocator<int> >&, int&\);'
	# PLT entries too, their "@plt" kept ("_ZNSt...@plt" was left mangled)
	has x.folded '[;]std::[^;]*\)( const)?@plt[; ]'
	hasnt x.folded '[;]_Z'
	echo "ok: longjmp (descend at most $n deep) and exceptions cut the stack back"
	;;
signal)
	record s "$programs/signal_handler"
	"$hwt" report folded -o s.folded s.hwt || fail "report"
	has s.folded ';main;raise;.*;\[signal\];on_signal [0-9]+$'
	has s.folded ';main;touch;touch;touch;\[signal\];on_segv'
	# After the handlers: main goes on with no [signal] below it.
	has s.folded '^signal_handler-[0-9]+;_start;__libc_start_main;__libc_start_call_main;main;printf'
	# siglongjmp out of the SIGSEGV handler: main is never above a [signal].
	hasnt s.folded '\[signal\];.*;main;'
	hasnt s.folded '\[unknown\]'
	echo "ok: signal handlers on the interrupted stack, gone after sigreturn and siglongjmp"
	;;
processes)
	record p "$programs/fork_exec"
	"$hwt" report folded -o p.folded p.hwt || fail "report"
	has p.folded '^fork_exec-[0-9]+;_start;'
	has p.folded '^loops-[0-9]+;.*;main;collatz'
	# The fork child that computes and exits: under its parent's command,
	# from an [unknown] root (the trace starts in it after the fork).
	[ "$(cut -d';' -f1 p.folded | sort -u | grep -c '^fork_exec-')" -ge 2 ] || fail "no fork child"
	has p.folded '^fork_exec-[0-9]+;\[unknown\];'
	"$hwt" report folded --merge -o m.folded p.hwt || fail "report --merge"
	has m.folded '^fork_exec;'
	has m.folded '^loops;'
	[ "$(cut -d';' -f1 m.folded | sort -u | wc -l)" -eq 2 ] || fail "--merge: $(cut -d';' -f1 m.folded | sort -u)"
	[ "$(total p.folded)" -eq "$(total m.folded)" ] || fail "--merge changed the total"
	pid=$(sed -n 's/^loops-\([0-9]*\);.*/\1/p' p.folded | head -1)
	"$hwt" report folded --pid "$pid" -o one.folded p.hwt || fail "report --pid"
	# The pid that execs loops: its image before the exec and loops.
	[ "$(cut -d';' -f1 one.folded | sed 's/.*-//' | sort -u)" = "$pid" ] || fail "--pid $pid kept others"
	has one.folded "^loops-$pid;"
	# Threads: each --tid (the tids as speedscope's profile names give them)
	# is one thread's part; together they are the whole.
	record t "$programs/threads"
	"$hwt" report folded -o t.folded t.hwt || fail "report threads"
	"$hwt" report speedscope -o t.json t.hwt || fail "report speedscope"
	tids=$(python3 -c 'import json,sys; print(" ".join(p["name"].split("/")[-1] for p in json.load(open(sys.argv[1]))["profiles"]))' t.json)
	[ "$(echo $tids | wc -w)" -eq 5 ] || fail "threads: not 5 threads: $tids"
	sum=0
	for tid in $tids; do
		"$hwt" report folded --tid "$tid" -o "tid$tid.folded" t.hwt || fail "report --tid $tid"
		[ -s "tid$tid.folded" ] || fail "--tid $tid: nothing"
		sum=$((sum + $(total "tid$tid.folded")))
	done
	[ "$sum" -eq "$(total t.folded)" ] || fail "--tid parts add up to $sum, the whole is $(total t.folded)"
	# The main thread's tid is the pid; the others run worker.
	tpid=$(sed -n 's/^threads-\([0-9]*\);.*/\1/p' t.folded | head -1)
	for tid in $tids; do
		if [ "$tid" = "$tpid" ]; then
			has "tid$tid.folded" ';main;'
			hasnt "tid$tid.folded" ';start_thread;worker'
		else
			has "tid$tid.folded" '^threads-[0-9]+;\[unknown\];__clone;start_thread;worker;'
			hasnt "tid$tid.folded" ';main;'
		fi
	done
	has "tid$tpid.folded" ';main;'
	echo "ok: processes rooted at their commands, --merge, --pid, --tid"
	;;
time)
	record c "$programs/recursion"
	"$hwt" report folded --weight time -o c.folded c.hwt 2>c.err && fail "--weight time worked without a clock"
	grep -q "has no timing" c.err || fail "no message: $(cat c.err)"
	# The same trace with its clock said to be a time stamp counter (the
	# units' TSC packets then count as ticks): the plumbing of timed traces.
	cp -r c.hwt t.hwt
	sed -i 's/^clock=.*/clock=tsc/' t.hwt/hwt-bundle
	"$hwt" report folded --weight time -q -o t.folded t.hwt || fail "report --weight time"
	ticks=$(total t.folded)
	[ "$ticks" -gt 0 ] || fail "no ticks"
	"$hwt" report speedscope --weight time -q -o t.json t.hwt || fail "speedscope --weight time"
	echo "ok: --weight time: $ticks ticks"
	;;
diff)
	record a "$programs/recursion"
	record b "$programs/loops"
	"$hwt" report folded -o a.folded a.hwt && "$hwt" report folded -o b.folded b.hwt || fail "report"
	"$hwt" report flame --diff a.folded b.hwt -o d.svg || fail "report flame --diff"
	grep -q 'Differential Flame Graph' d.svg || fail "not a differential graph"
	grep -q '; before [0-9]*, [+-][0-9]*)</title>' d.svg || fail "no before/after in the tooltips"
	echo "ok: --diff"
	# Two runs of one program: other pids, the same command and threads.
	# --diff matches them by command and thread order (two_threads for the
	# first thread, two_threads#2 for the second), not by pid.
	record t1 "$programs/two_threads"
	record t2 "$programs/two_threads"
	"$hwt" report flame --diff t1.hwt t2.hwt -o t.svg || fail "report flame --diff t1 t2"
	has t.svg '<title>two_threads \([0-9,]+ instructions[^;]*; before [1-9][0-9]*, [+-][0-9]+\)</title>'
	has t.svg '<title>two_threads#2 \([0-9,]+ instructions[^;]*; before [1-9][0-9]*, [+-][0-9]+\)</title>'
	hasnt t.svg '<title>two_threads-[0-9]+ '
	# Folded stacks written with --thread-order line up with a bundle too.
	"$hwt" report folded --thread-order -o t1.folded t1.hwt || fail "report folded --thread-order"
	has t1.folded '^two_threads#2;'
	hasnt t1.folded '^two_threads-[0-9]+;'
	"$hwt" report flame --diff t1.folded t2.hwt -o tf.svg || fail "report flame --diff t1.folded t2.hwt"
	has tf.svg '<title>two_threads#2 \([0-9,]+ instructions[^;]*; before [1-9][0-9]*, [+-][0-9]+\)</title>'
	# The thread's own function ran in the second thread in both runs.
	has t.svg '<title>other \([0-9,]+ instructions[^;]*; before [1-9][0-9]*, [+-][0-9]+\)</title>'
	echo "ok: --diff matches threads by command and order"
	;;
plt)
	# PLT stubs as Linux perf (6.3 and later) names them: SYMBOL@plt for an
	# entry (.plt, .plt.sec with IBT, .plt.got), .plt for the lazy-binding
	# header PLT0 (perf 6.1 calls it _init+0x20). Lazy binding: PLT0 runs.
	cat >plt.c <<'EOF_C'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv)
{
	char b[32];

	(void)argv;
	snprintf(b, sizeof(b), "%d", argc);
	puts(b);
	return (int)strlen(b) + abs(argc) - 2;
}
EOF_C
	gcc -O0 -Wl,-z,lazy -o plt plt.c || fail "gcc"
	for v in plt plt_ibt; do
		if [ $v = plt_ibt ]; then
			gcc -O0 -fcf-protection=full -Wl,-z,ibtplt -Wl,-z,lazy -o plt_ibt plt.c || fail "gcc ibt"
			readelf -SW plt_ibt | grep -q '\.plt\.sec' || fail "no .plt.sec in plt_ibt"
		fi
		env -u LD_BIND_NOW "$hwt" record --unit valgrind --trace-all -o $v.hwt -- ./$v >/dev/null 2>$v.rec ||
			fail "record $v: $(cat $v.rec)"
		"$hwt" report folded --merge -o $v.folded $v.hwt || fail "report $v"
		has $v.folded "^$v;_start;__libc_start_main;__libc_start_call_main;main;puts@plt [0-9]+$"
		has $v.folded "^$v;_start;__libc_start_main;__libc_start_call_main;main;snprintf@plt [0-9]+$"
		# PLT0, reached from the stub the first call goes through.
		has $v.folded "^$v;_start;__libc_start_main;__libc_start_call_main;main;\.plt [0-9]+$"
		hasnt $v.folded ";main;_init [0-9]+$"
		# The .plt.got stub of a PIE's __cxa_finalize.
		has $v.folded ";__do_global_dtors_aux;__cxa_finalize@plt [0-9]+$"
	done
	echo "ok: PLT entries and PLT0 named as perf names them"
	;;
debuginfo)
	# Function names from separate debug files where gdb finds them: libc's
	# local functions from libc6-dbg (/usr/lib/debug/.build-id); a program
	# stripped of every symbol, its debug file found through its debug link
	# beside it or under --debug-dir, which replaces /usr/lib/debug.
	libc=$(ldd "$programs/recursion" | sed -n 's/.*libc\.so\.6 => \([^ ]*\).*/\1/p')
	id=$(readelf -n "$libc" | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p')
	rest=${id#??}
	if [ -z "$id" ] || [ ! -r "/usr/lib/debug/.build-id/${id%"$rest"}/$rest.debug" ]; then
		echo "SKIP: libc6-dbg is not installed (no debug file for $libc)"
		exit 77
	fi
	cat >dbg.c <<'EOF_C'
#include <stdio.h>
static int __attribute__((noinline)) twice(int x) { return 2 * x; }
int main(int argc, char **argv)
{
	(void)argv;
	printf("%d\n", twice(argc));
	return 0;
}
EOF_C
	gcc -O0 -g -o full dbg.c || fail "gcc"
	mkdir -p split/bin root
	cp full split/bin/prog
	objcopy --only-keep-debug split/bin/prog split/bin/prog.debug || fail "objcopy"
	strip -s split/bin/prog || fail "strip"
	(cd split/bin && objcopy --add-gnu-debuglink=prog.debug prog) || fail "debuglink"
	record d ./split/bin/prog
	"$hwt" report folded --merge -o d.folded d.hwt || fail "report"
	# printf's work in libc's own (local) function: only libc6-dbg names it.
	has d.folded ';main;(__)?printf;__vfprintf_internal'
	# The program's static function, from prog.debug beside it.
	has d.folded ';main;twice [0-9]+$'
	# Under --debug-dir ROOT as ROOT + the program's directory; ROOT replaces
	# /usr/lib/debug: libc's local names go.
	mkdir -p "root$work/split/bin"
	mv split/bin/prog.debug "root$work/split/bin/prog.debug"
	"$hwt" report folded --merge --debug-dir "$work/root" -o r.folded d.hwt || fail "report --debug-dir"
	has r.folded ';main;twice [0-9]+$'
	hasnt r.folded '__vfprintf_internal'
	# Both: the program's and libc's.
	"$hwt" report folded --merge --debug-dir "$work/root" --debug-dir /usr/lib/debug -o b.folded d.hwt ||
		fail "report --debug-dir twice"
	has b.folded ';main;twice [0-9]+$'
	has b.folded '__vfprintf_internal'
	# Nowhere: the stripped program's function has no name.
	"$hwt" report folded --merge -o n.folded d.hwt || fail "report without the debug file"
	hasnt n.folded ';twice [0-9]+$'
	# A debug file whose CRC is not the link's is not used, and said.
	cp "root$work/split/bin/prog.debug" split/bin/prog.debug
	printf 'x' >>split/bin/prog.debug
	"$hwt" report folded --merge -o c.folded d.hwt 2>c.err
	hasnt c.folded ';twice [0-9]+$'
	has c.err 'separate debug files were not used: their CRC32 is not'
	echo "ok: names from separate debug files"
	;;
inline)
	record i "$programs/recursion_o2"
	"$hwt" report folded -o plain.folded i.hwt && "$hwt" report folded --inline -o inl.folded i.hwt ||
		fail "report"
	[ "$(total plain.folded)" -eq "$(total inl.folded)" ] || fail "--inline changed the total"
	[ "$(wc -l <inl.folded)" -gt "$(wc -l <plain.folded)" ] || fail "--inline added no frames"
	echo "ok: --inline: $(wc -l <plain.folded) stacks, $(wc -l <inl.folded) with inlined frames"
	;;
damage)
	. "$here/../decode/flip.sh"
	record clean "$programs/function_pointers"
	"$hwt" report folded -o clean.folded clean.hwt || fail "clean"
	stream=$(ls clean.hwt/streams/*.pt)
	size=$(stat -c %s "$stream")
	cp -r clean.hwt corrupt.hwt
	flip corrupt.hwt/streams/*.pt $((size / 2)) 24
	timeout 120 "$hwt" report folded -o corrupt.folded corrupt.hwt 2>corrupt.err
	rc=$?
	cat corrupt.err
	[ $rc -eq 1 ] || fail "corrupt: exit status $rc, wanted 1"
	grep -q "decode error" corrupt.err || fail "corrupt: no warning"
	has corrupt.folded '\[decode error\];'
	[ "$(total corrupt.folded)" -lt "$(total clean.folded)" ] || fail "corrupt: nothing lost?"
	timeout 120 "$hwt" report flame -o corrupt.svg corrupt.hwt 2>corrupt.flame.err
	rc=$?
	[ $rc -eq 1 ] && grep -q 'data-n="\[decode error\]"' corrupt.svg ||
		fail "corrupt: no marked frame in the SVG (hwt report flame: exit $rc, $(cat corrupt.flame.err))"
	grep 'data-n="\[decode error\]"' corrupt.svg | grep -q 'stroke' || fail "corrupt: the gap is not outlined"
	cp -r clean.hwt cut.hwt
	truncate -s $((size / 2 + 3)) cut.hwt/streams/*.pt
	rm -f cut.hwt/summary
	timeout 120 "$hwt" report folded -o cut.folded cut.hwt 2>cut.err
	rc=$?
	cat cut.err
	[ $rc -eq 1 ] || fail "cut: exit status $rc, wanted 1"
	[ -s cut.folded ] || fail "cut: nothing written"
	timeout 120 "$hwt" report speedscope -o cut.json cut.hwt 2>/dev/null
	[ $? -eq 1 ] && python3 -c 'import json,sys; json.load(open(sys.argv[1]))' cut.json ||
		fail "cut: speedscope file"
	# Garbage for a stream: nothing of it, a warning, no crash.
	cp -r clean.hwt junk.hwt
	head -c 20000 /dev/urandom >junk.hwt/streams/$(basename "$stream")
	timeout 120 "$hwt" report chrome -o junk.json junk.hwt 2>junk.err
	rc=$?
	[ $rc -eq 1 ] || fail "junk: exit status $rc: $(cat junk.err)"
	python3 -c 'import json,sys; json.load(open(sys.argv[1]))' junk.json || fail "junk: chrome file"
	echo "ok: damaged bundles give partial graphs, gaps marked, warnings"
	;;
command)
	"$hwt" flame --unit valgrind --trace-all -q -o l.svg -- "$programs/loops" >l.out ||
		fail "hwt flame exited $?"
	grep -q 'class="f" data-n="main"' l.svg || fail "no main in the graph"
	"$hwt" flame --unit valgrind --trace-all -q --format folded --keep k.hwt -o k.folded \
		-- "$programs/abort" >/dev/null 2>&1
	rc=$?
	[ $rc -eq 134 ] || fail "hwt flame exited $rc, the command 134 (SIGABRT)"
	has k.folded ';main;.*abort'
	[ -d k.hwt/streams ] || fail "--keep kept nothing"
	"$hwt" report folded -q -o again.folded k.hwt
	cmp -s k.folded again.folded || fail "hwt report folded of the kept bundle differs"
	echo "ok: hwt flame records and draws, exit status passed through, --keep"
	;;
svg)
	record r "$programs/recursion"
	"$hwt" report flame -o plain.svg r.hwt || fail "report flame"
	"$hwt" report flame --width 800 --inverted --min-width 5 --colors mem --title 'an icicle' \
		--progress -o ice.svg r.hwt 2>ice.err || fail "report flame with options"
	grep -q 'decoding 100%' ice.err || fail "--progress: no progress on stderr: $(cat ice.err)"
	"$hwt" report flame --colors kind -o kind.svg r.hwt || fail "report flame --colors kind"
	python3 "$here/svg_check.py" plain.svg ice.svg kind.svg || exit 1
	;;
etm)
	a64=$programs/aarch64/gcc
	[ -x "$a64/tail_calls_o2" ] || { echo "SKIP: $a64/tail_calls_o2 was not built"; exit 77; }
	arecord() { # NAME PROG: NAME.hwt with the QEMU unit (aarch64, ETMv4)
		"$hwt" record -o "$1.hwt" -- "$2" >"$1.out" 2>"$1.rec" || fail "hwt record $2: $(cat "$1.rec")"
		"$hwt" report folded -o "$1.folded" "$1.hwt" 2>"$1.err" || fail "report $1: $(cat "$1.err")"
	}
	# Tail calls (b, br): the frame replaced, as on x86-64.
	arecord t "$a64/tail_calls_o2"
	has t.folded ';main;leaf [0-9]+$'
	hasnt t.folded ';top;middle'
	hasnt t.folded ';middle;leaf'
	has t.folded ';main;indirect [0-9]+$'
	# longjmp and exceptions cut the stack back.
	arecord l "$a64/longjmp"
	n=$(most l.folded descend)
	[ "$n" -ge 10 ] && [ "$n" -le 15 ] || fail "descend is $n deep"
	arecord x "$a64/cxx_exceptions"
	has x.folded ';main;'
	hasnt x.folded '\[unknown\]'
	# Signal handlers on the interrupted stack, gone after sigreturn.
	arecord s "$a64/signal_handler"
	has s.folded ';main;raise;.*\[signal\];on_signal [0-9]+$'
	has s.folded ';main;touch;touch;touch;\[signal\];on_segv'
	hasnt s.folded '\[signal\];.*;main;'
	hasnt s.folded '\[unknown\]'
	# fork and exec: the exec'd image under its own command.
	arecord p "$a64/fork_exec"
	has p.folded '^fork_exec-[0-9]+;_start;'
	has p.folded '^loops-[0-9]+;.*;main;collatz'
	[ "$(cut -d';' -f1 p.folded | sort -u | grep -c '^fork_exec-')" -ge 2 ] || fail "no fork child"
	echo "ok: aarch64 (ETMv4): tail calls, longjmp, exceptions, signals, fork and exec"
	;;
*)
	fail "unknown case $case"
	;;
esac
