#!/bin/sh
# The choice of trace unit (--unit, HWT_UNIT, auto) and the QEMU unit's
# command line, without QEMU's plugin: a stand-in for qemu-x86_64 first in
# PATH (suite/fake_qemu.c) logs its argv and environment and runs the
# program natively, as QEMU runs a guest. Checks that the preloaded
# library rewrites a selected exec into exactly `qemu-x86_64 -plugin
# PLUGIN,bundle=DIR -0 ARGV0 -- PATH ARGS` (no --hwt-unfollowed, no
# HWT_SELECT_ARGV0, no VALGRIND_LIB, LD_PRELOAD kept), also from a
# program run under the unit and through posix_spawn(p) and execveat, that
# the unit itself is never traced, and what --unit refuses.
# usage: run_unit.sh BUILD_DIR WORKDIR
set -u
build=$(cd "$1" && pwd) work=$2
hwt=$build/bin/hwt cov=$build/bin/hwt-cov pgo=$build/bin/hwt-pgo
preload=$(realpath "$build/lib/hwt/libhwt-preload.so")
src=$(cd "$(dirname "$0")" && pwd)/suite
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok   $*"; }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }

. "$(dirname "$0")/../work_dir.sh"
hwt_test_work_dir "$work"
mkdir -p "$work/fakebin" "$work/qemulib" "$work/noqemu"
W=$(cd "$work" && pwd -P)
log=$W/fake.log
fake=$W/fakebin/qemu-x86_64
cc -g -O0 -fPIC -shared "$src/calc.c" -o "$W/libcalc.so" &&
cc -g -O0 -I"$src" "$src/test_calc.c" -L"$W" -lcalc -Wl,-rpath,"$W" -o "$W/test_calc" &&
cc -g0 -O1 "$src/launcher.c" -o "$W/launcher" &&
cc -g -O0 -static "$src/static_runner.c" -o "$W/static_runner" &&
cc -g -O0 -DLOG="\"$log\"" "$src/fake_qemu.c" -o "$fake" || { echo "FAIL build"; exit 1; }
# The plugin as far as hwt record looks: a file of that name.
: >"$W/qemulib/libhwt-qemu.so"
unset VALGRIND_LIB HWT_UNIT HWT_SELECT_ARGV0
PATH=$W/fakebin:$PATH
HWT_QEMU_LIB=$W/qemulib
export PATH HWT_QEMU_LIB
plugin=$W/qemulib/libhwt-qemu.so
tab=$(printf '\t')

unit_of() { sed -n 's/^unit=//p' "$1/hwt-bundle"; }
# The argv lines of the log, tab-separated.
argvs() { sed -n 's/^argv\t//p' "$log"; }
expect_argv() { # description expected-line (tab-separated)
	if argvs | grep -qxF "$2"; then
		ok "$1"
	else
		bad "$1: no argv line '$2'"; cat "$log"
	fi
}

# ---- what --unit refuses (a): exit status 2 and a message ----
# (the QEMU unit filters whole images, not functions)
"$hwt" record -o "$W/r1" --unit qemu --filter x:f -- true >"$W/r1.out" 2>&1
st=$?
if [ $st -eq 2 ] && grep -q "qemu trace unit filters whole images" "$W/r1.out" && [ ! -e "$W/r1" ]; then
	ok "--unit qemu --filter IMAGE:FUNCTION: exit 2, said why, no bundle"
else
	bad "--unit qemu --filter IMAGE:FUNCTION: status $st"; cat "$W/r1.out"
fi
# (b) an unknown unit, from the option and from HWT_UNIT, in each front end
for cmd in "$hwt record" "$cov" "$pgo -o $W/p"; do
	$cmd --unit bogus -- true >"$W/r2.out" 2>&1
	st=$?
	if [ $st -eq 2 ] && grep -q "unknown trace unit 'bogus'" "$W/r2.out"; then
		ok "${cmd%% *} --unit bogus: exit 2, said why"
	else
		bad "${cmd%% *} --unit bogus: status $st"; cat "$W/r2.out"
	fi
done
HWT_UNIT=bogus "$hwt" record -o "$W/r3" -- true >"$W/r3.out" 2>&1
st=$?
if [ $st -eq 2 ] && grep -q "HWT_UNIT: unknown trace unit 'bogus'" "$W/r3.out"; then
	ok "HWT_UNIT=bogus: exit 2, said why"
else
	bad "HWT_UNIT=bogus: status $st"; cat "$W/r3.out"
fi
# Nothing to run the unit with: named.
HWT_QEMU_LIB=$W/noqemu "$hwt" record -o "$W/r4" --unit qemu -- true >"$W/r4.out" 2>&1
st=$?
if [ $st -eq 2 ] && grep -qF "the QEMU trace unit is missing: no $W/noqemu/libhwt-qemu.so" "$W/r4.out"; then
	ok "--unit qemu without the plugin: exit 2, names the missing file"
else
	bad "--unit qemu without the plugin: status $st"; cat "$W/r4.out"
fi
if PATH=$W/noqemu "$hwt" record -o "$W/r6" --unit qemu -- /bin/true >"$W/r6.out" 2>&1; then
	bad "--unit qemu without qemu-x86_64 in PATH succeeded"
elif grep -q "cannot run qemu-x86_64: not found in PATH (install it: apt-get install qemu-user)" "$W/r6.out"; then
	ok "--unit qemu without qemu-x86_64: says apt-get install qemu-user"
else
	bad "--unit qemu without qemu-x86_64"; cat "$W/r6.out"
fi

# ---- (c) the rewrite for QEMU ----
: >"$log"
(cd "$W" && "$hwt" record -q -o "$W/q1" --unit qemu -- sh -c './test_calc argv0 ./test_calc') \
	>"$W/q1.out" 2>&1
st=$?
expect_argv "a selected exec becomes qemu-x86_64 -plugin PLUGIN,bundle=DIR -0 ARGV0 -- PATH ARGS" \
	"$fake${tab}-plugin${tab}$plugin,bundle=$W/q1${tab}-0${tab}./test_calc${tab}--${tab}$W/test_calc${tab}argv0${tab}./test_calc"
if [ $st -eq 0 ] && grep -q "argv0 ok" "$W/q1.out" && [ "$(unit_of "$W/q1")" = qemu ] &&
   [ "$(argvs | wc -l)" = 1 ]; then
	ok "the program runs with its argv[0] (-0), exit status kept, the header says unit=qemu"
else
	bad "under the stand-in: status $st, unit $(unit_of "$W/q1"), $(argvs | wc -l) unit runs"; cat "$W/q1.out"
fi
envs=$(sed -n 's/^env\t//p' "$log")
if echo "$envs" | grep -q "^LD_PRELOAD=$preload\(:\|$\)" && echo "$envs" | grep -qx "HWT_SELECT_UNIT_KIND=qemu" &&
   ! echo "$envs" | grep -q "^HWT_SELECT_ARGV0=" && ! echo "$envs" | grep -q "^VALGRIND_LIB="; then
	ok "its environment: LD_PRELOAD with the library, HWT_SELECT_UNIT_KIND=qemu, no HWT_SELECT_ARGV0 or VALGRIND_LIB"
else
	bad "the unit's environment"; echo "$envs"
fi

# The command itself, plugin options, a comma in the bundle's path (doubled for QEMU).
: >"$log"
"$hwt" record -q -o "$W/q,2" --unit qemu --psb-period 8192 --debug-blocks -- "$W/test_calc" gcd 3 \
	>"$W/q2.out" 2>&1
expect_argv "the command itself; psb_period, debug_blocks; ',' doubled" \
	"$fake${tab}-plugin${tab}$plugin,bundle=$W/q,,2,psb_period=8192,debug_blocks=on${tab}-0${tab}$W/test_calc${tab}--${tab}$W/test_calc${tab}gcd${tab}3"

# A static program: no --hwt-unfollowed (the plugin sees it itself).
: >"$log"
"$hwt" record -q -o "$W/q3" --unit qemu -- "$W/static_runner" >/dev/null 2>&1
expect_argv "a static program: no --hwt-unfollowed" \
	"$fake${tab}-plugin${tab}$plugin,bundle=$W/q3${tab}-0${tab}$W/static_runner${tab}--${tab}$W/static_runner"

# A program run under the unit (--trace forces the launcher) starts selected
# ones through posix_spawn, posix_spawnp and execveat: the library in it
# knows the kind from the environment it was given.
: >"$log"
"$hwt" record -q -o "$W/q4" --unit qemu --trace launcher -- "$W/launcher" "$W/test_calc" >"$W/q4.out" 2>&1
st=$?
n=0
for want in "-0${tab}$W/launcher${tab}--${tab}$W/launcher${tab}$W/test_calc" \
	"-0${tab}test_calc${tab}--${tab}$W/test_calc${tab}gcd${tab}7" \
	"-0${tab}test_calc${tab}--${tab}$W/test_calc${tab}fib${tab}9" \
	"-0${tab}test_calc${tab}--${tab}$W/test_calc${tab}prime${tab}30"; do
	argvs | grep -qxF "$fake${tab}-plugin${tab}$plugin,bundle=$W/q4${tab}$want" && n=$((n + 1))
done
if [ $st -eq 0 ] && [ $n = 4 ] && [ "$(argvs | wc -l)" = 4 ] && grep -q "launcher ok" "$W/q4.out" &&
   [ "$(grep -c '^env	HWT_SELECT_ARGV0=' "$log")" = 0 ]; then
	ok "from a program under the unit: posix_spawn, posix_spawnp, execveat rewritten for QEMU"
else
	bad "children of a program under the unit: status $st, $n of 4 command lines"; cat "$log" "$W/q4.out"
fi

# The unit's executable is never traced (it would be: built with -g, out of
# the system directories), nor recorded as untraced.
: >"$log"
"$hwt" record -q -o "$W/q5" --unit qemu -- sh -c '"$0" -0 mine -- "$1" argv0 mine' "$fake" "$W/test_calc" \
	>"$W/q5.out" 2>&1
if [ "$(argvs)" = "$fake${tab}-0${tab}mine${tab}--${tab}$W/test_calc${tab}argv0${tab}mine" ] &&
   grep -q "argv0 ok" "$W/q5.out" && ! "$hwt" dump "$W/q5" 2>/dev/null | grep -qF "path=\"$fake\""; then
	ok "qemu-x86_64 started by the command runs as is: not traced under itself, not in the bundle"
else
	bad "the unit's own executable"; cat "$log" "$W/q5.out"
fi

# --trace-all under QEMU: selection that selects every x86-64 executable (sh and true too).
: >"$log"
"$hwt" record -q -o "$W/q6" --unit qemu --trace-all -- sh -c '/bin/true; "$0" gcd 2' "$W/test_calc" \
	>"$W/q6.out" 2>&1
st=$?
sh_real=$(realpath /bin/sh) true_real=$(realpath /bin/true)
if [ $st -eq 0 ] && [ "$(argvs | wc -l)" = 3 ] &&
   argvs | grep -qF "${tab}--${tab}$sh_real${tab}-c${tab}" &&
   argvs | grep -qxF "$fake${tab}-plugin${tab}$plugin,bundle=$W/q6${tab}-0${tab}/bin/true${tab}--${tab}$true_real" &&
   argvs | grep -qF "${tab}--${tab}$W/test_calc${tab}gcd${tab}2"; then
	ok "--trace-all under QEMU: sh, true and test_calc all under the unit"
else
	bad "--trace-all under QEMU: status $st"; cat "$log" "$W/q6.out"
fi

# ---- (d) the choice: auto, HWT_UNIT, the option over the variable ----
: >"$log"
"$hwt" record -q -o "$W/a1" --unit auto --filter 'test_calc:main' -- "$W/test_calc" gcd 3 >/dev/null 2>&1
if [ "$(unit_of "$W/a1")" = valgrind ] && [ ! -s "$log" ] &&
   [ "$(sed -n 's/^processes=//p' "$W/a1/summary")" = 1 ]; then
	ok "auto with --filter IMAGE:FUNCTION: valgrind (traced), QEMU not started"
else
	bad "auto with --filter IMAGE:FUNCTION: unit $(unit_of "$W/a1")"; cat "$log"
fi
"$hwt" record -q -o "$W/a2" --unit auto -- "$W/test_calc" gcd 3 >/dev/null 2>&1
if [ "$(unit_of "$W/a2")" = qemu ] && [ "$(argvs | wc -l)" = 1 ]; then
	ok "auto with qemu-x86_64 and the plugin: qemu"
else
	bad "auto: unit $(unit_of "$W/a2")"
fi
: >"$log"
"$hwt" record -q -o "$W/a2f" --unit auto --filter 'test,,calc' -- "$W/test_calc" gcd 3 >/dev/null 2>&1
if [ "$(unit_of "$W/a2f")" = qemu ] &&
   argvs | grep -qF "${tab}$plugin,bundle=$W/a2f,filter=test,,,,calc${tab}"; then
	ok "auto with --filter IMAGE: qemu, the glob passed with its commas doubled"
else
	bad "auto with --filter IMAGE: unit $(unit_of "$W/a2f")"; cat "$log"
fi
HWT_QEMU_LIB=$W/noqemu "$hwt" record -q -o "$W/a3" --unit auto -- "$W/test_calc" gcd 3 >/dev/null 2>&1
if [ "$(unit_of "$W/a3")" = valgrind ]; then
	ok "auto without the plugin: valgrind"
else
	bad "auto without the plugin: unit $(unit_of "$W/a3")"
fi
"$hwt" record -q -o "$W/a7" --trace-all -- "$W/test_calc" gcd 3 >/dev/null 2>&1
if [ "$(unit_of "$W/a7")" = valgrind ]; then
	ok "auto with --trace-all: valgrind"
else
	bad "auto with --trace-all: unit $(unit_of "$W/a7")"
fi
HWT_UNIT=valgrind "$hwt" record -q -o "$W/a4" -- "$W/test_calc" gcd 3 >/dev/null 2>&1
HWT_UNIT=valgrind "$hwt" record -q -o "$W/a5" --unit qemu -- "$W/test_calc" gcd 3 >/dev/null 2>&1
"$hwt" record -q -o "$W/a6" -- "$W/test_calc" gcd 3 >/dev/null 2>&1
if [ "$(unit_of "$W/a4")" = valgrind ] && [ "$(unit_of "$W/a5")" = qemu ] &&
   [ "$(unit_of "$W/a6")" = qemu ]; then
	ok "HWT_UNIT=valgrind chooses valgrind, --unit wins over it, the default is auto (qemu)"
else
	bad "HWT_UNIT: $(unit_of "$W/a4"), with --unit qemu: $(unit_of "$W/a5"), default: $(unit_of "$W/a6")"
fi
# hwt-cov passes --unit on (its bundle kept to look at).
"$cov" -q --unit qemu --keep "$W/c1" -o "$W/c1.info" -- "$W/test_calc" gcd 3 >/dev/null 2>&1
if [ "$(unit_of "$W/c1")" = qemu ]; then
	ok "hwt-cov --unit qemu"
else
	bad "hwt-cov --unit qemu: unit $(unit_of "$W/c1")"
fi

echo "unit: $pass passed, $fail failed"
[ $fail -eq 0 ] && [ $pass -gt 0 ]
