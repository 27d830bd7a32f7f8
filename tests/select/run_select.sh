#!/bin/sh
# Selection tests (docs/select.md): suites driven by untraced make/sh/env/
# xargs/python3 give the coverage of tracing everything; posix_spawn(p) and
# execveat start traced processes; what is not selected is in the bundle as
# untraced; a static program's execs are reported; --filter on a function
# of a dlopen'ed library records exactly that function's executions; a
# program without debug info is traced for a selected library it loads
# (RUNPATH, LD_LIBRARY_PATH, $ORIGIN, two levels down), not for one excluded;
# the exec family, posix_spawn and system() work from a thread with a 64 KiB
# stack (the library's exec path runs on it, also in a vfork child); a test
# run under another Valgrind tool is reported.
# usage: run_select.sh BUILD_DIR WORKDIR
set -u
build=$1 work=$2
hwt=$build/bin/hwt cov=$build/bin/hwt-cov check=$build/tests/roundtrip/roundtrip_check
src=$(cd "$(dirname "$0")" && pwd)/suite
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok   $*"; }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }

. "$(dirname "$0")/../work_dir.sh"
hwt_test_work_dir "$work"
mkdir -p "$work"
W=$(cd "$work" && pwd)
cc -g -O0 -fPIC -shared "$src/calc.c" -o "$W/libcalc.so" &&
cc -g -O0 -I"$src" "$src/test_calc.c" -L"$W" -lcalc -Wl,-rpath,"$W" -o "$W/test_calc" &&
cc -g0 -O1 "$src/launcher.c" -o "$W/launcher" &&
cc -g0 -O1 -pthread "$src/small_stack.c" -o "$W/small_stack" &&
cc -g -O0 -static "$src/static_runner.c" -o "$W/static_runner" || { echo "FAIL build"; exit 1; }
# Selection by library: test_calc without debug info (stripped), finding the -g
# libcalc.so through RUNPATH, LD_LIBRARY_PATH, $ORIGIN, or two levels down.
runner() { # output library-dir linker-options...
	out=$1 dir=$2
	shift 2
	cc -g0 -O1 -I"$src" "$src/test_calc.c" -L"$dir" -lcalc "$@" -o "$out" && strip "$out"
}
mkdir -p "$W/origin/bin" "$W/origin/lib" "$W/nodebug" "$W/deep" &&
runner "$W/rpath_runner" "$W" -Wl,-rpath,"$W" &&
runner "$W/plain_runner" "$W" &&
cp "$W/libcalc.so" "$W/origin/lib/" &&
runner "$W/origin/bin/runner" "$W/origin/lib" -Wl,-rpath,'$ORIGIN/../lib' &&
runner "$W/origin/bin/runner_rpath" "$W/origin/lib" -Wl,--disable-new-dtags,-rpath,'${ORIGIN}/../lib' &&
cc -g0 -O0 -fPIC -shared "$src/calc.c" -o "$W/nodebug/libcalc.so" &&
runner "$W/nodebug/runner" "$W/nodebug" -Wl,-rpath,'$ORIGIN' &&
cc -g0 -O1 -fPIC -shared -I"$src" "$src/wrap.c" -L"$W" -lcalc -o "$W/deep/libwrap.so" &&
cc -g0 -O1 "$src/wrap_main.c" -L"$W/deep" -lwrap -Wl,-rpath-link,"$W" \
	-Wl,--disable-new-dtags,-rpath,'$ORIGIN:'"$W" -o "$W/deep/wrap_main" &&
strip "$W/deep/wrap_main" "$W/deep/libwrap.so" || { echo "FAIL build (library selection)"; exit 1; }

# value of key= in a bundle's summary
summary() { sed -n "s/^$2=//p" "$1/summary"; }
# lcov of the suite's sources, order-independent
norm() { grep -v '^TN:' "$1" | sort; }

suite() { # name expected-traced-processes command...
	name=$1 expected=$2
	shift 2
	"$cov" -q --keep "$W/$name.sel" -o "$W/$name.sel.info" -- "$@" >"$W/$name.sel.out" 2>"$W/$name.sel.err"
	s1=$?
	"$cov" -q --trace-all --keep "$W/$name.all" -o "$W/$name.all.info" -- "$@" \
		>"$W/$name.all.out" 2>"$W/$name.all.err"
	s2=$?
	if [ $s1 -ne 0 ] || [ $s2 -ne 0 ]; then
		bad "$name: exit status selected $s1, all $s2"; cat "$W/$name.sel.err"; return
	fi
	if ! grep -q "SF:.*calc.c" "$W/$name.sel.info"; then
		bad "$name: no coverage of calc.c"; return
	fi
	if norm "$W/$name.sel.info" >"$W/a" && norm "$W/$name.all.info" >"$W/b" && cmp -s "$W/a" "$W/b"; then
		ok "$name: coverage equal to tracing everything ($(grep -c '^DA:' "$W/$name.sel.info") lines)"
	else
		bad "$name: coverage differs from tracing everything"; diff "$W/a" "$W/b" | head -20
	fi
	p1=$(summary "$W/$name.sel" processes) p2=$(summary "$W/$name.all" processes)
	u1=$(summary "$W/$name.sel" untraced)
	if [ "$p1" = "$expected" ] && [ "$u1" -gt 0 ] && [ "$p2" -gt "$p1" ]; then
		ok "$name: $p1 processes traced (of $p2 when tracing all), $u1 untraced in the summary"
	else
		bad "$name: traced $p1 (expected $expected), all $p2, untraced $u1"
	fi
}

# make: 8 runs of test_calc among make, sh, env, xargs, printf, python3
suite make 8 make -s -f "$src/Makefile" B="$W" check
# shell: 6 + 6 + 1 + 2 = 15 runs among sh, grep, sed, cut, xargs, env -i, python3, ls
suite shell 15 sh "$src/suite.sh" "$W"

dump() { "$hwt" dump "$1" 2>/dev/null; }

# The make suite's bundle names make and the shells as untraced system binaries.
if dump "$W/make.sel" | grep -q 'untraced .*path="/usr/bin/make" reason="system binary"'; then
	ok "make is in the bundle as untraced (system binary)"
else
	bad "make is not recorded as untraced"
fi
# argv[0] as the program was called, under the trace unit too
if grep -q "argv0 ok" "$W/make.sel.out" 2>/dev/null || grep -q "argv0 ok" "$W/make.sel.err"; then
	ok "argv[0] kept"
else
	bad "argv[0] not kept"
fi

# posix_spawn, posix_spawnp, execveat
"$hwt" record -q -o "$W/launch" -- "$W/launcher" "$W/test_calc" >"$W/launch.out" 2>&1
st=$?
n=$(dump "$W/launch" | grep -c "process-start .*path=\"$W/test_calc\"")
if [ $st -eq 0 ] && [ "$n" = 3 ] && grep -q "launcher ok" "$W/launch.out"; then
	ok "posix_spawn, posix_spawnp and execveat start traced processes"
else
	bad "spawn/execveat: status $st, $n traced test_calc (want 3)"; cat "$W/launch.out"
fi
if dump "$W/launch" | grep -q "untraced .*path=\"$W/launcher\" reason=\"no debug info\""; then
	ok "the launcher (no debug info) is untraced, with the reason"
else
	bad "launcher not recorded as untraced"
fi
for mode in gcd fib prime; do
	# argv[0]: the path under Valgrind, the name it was called by under QEMU
	if ! dump "$W/launch" | grep -q "process-start .*argv=\[\"\($W/\)\{0,1\}test_calc\", \"$mode\""; then
		bad "launch: no traced test_calc $mode"
	fi
done

# --no-trace overrides, --trace forces
"$hwt" record -q -o "$W/notrace" --no-trace 'test_*' --trace launcher -- "$W/launcher" "$W/test_calc" \
	>/dev/null 2>&1
# (the launcher's spawn and fork children are traced until they exec)
if [ "$(summary "$W/notrace" untraced)" = 3 ] && dump "$W/notrace" | grep -q 'reason="--no-trace"' &&
   dump "$W/notrace" | grep -q "process-start .*path=\"$W/launcher\"" &&
   ! dump "$W/notrace" | grep -q "process-start .*path=\"$W/test_calc\""; then
	ok "--no-trace and --trace override the default"
else
	bad "--no-trace/--trace: processes $(summary "$W/notrace" processes) untraced $(summary "$W/notrace" untraced)"
fi

# A static program is traced; what it starts is reported as not followed.
"$hwt" record -q -o "$W/static" -- "$W/static_runner" >/dev/null 2>&1
if dump "$W/static" | grep -q "process-start .*static_runner" &&
   dump "$W/static" | grep -q 'untraced .*statically linked program: not followed'; then
	ok "static program traced, its exec reported as not followed"
else
	bad "static program"
fi

# --filter on a function of a dlopen'ed library
prog=$build/tests/programs/dlopen_lib lib=$build/tests/programs/libhwtplugin.so
"$hwt" record -q --debug-blocks --filter 'libhwtplugin.so:plugin_compute' -o "$W/filter" -- "$prog" "$lib" \
	>/dev/null 2>&1
if "$check" "$W/filter" >"$W/filter.check" 2>&1; then
	ok "filtered stream decodes with libipt to exactly the logged blocks"
else
	bad "filtered stream does not decode"; cat "$W/filter.check"
fi
dump "$W/filter" >"$W/filter.dump"
if python3 - "$W/filter" "$W/filter.dump" "$lib" <<'PY'
import glob, re, struct, subprocess, sys
bundle, dump, lib = sys.argv[1:]
# the function: vaddr and size from the symbol table, file offset through PT_LOAD
sym = [l.split() for l in subprocess.run(["readelf", "-sW", lib], capture_output=True, text=True).stdout.splitlines()]
value, size = next((int(s[1], 16), int(s[2])) for s in sym if len(s) >= 8 and s[7] == "plugin_compute")
off = None
for l in subprocess.run(["readelf", "-lW", lib], capture_output=True, text=True).stdout.splitlines():
    f = l.split()
    if f and f[0] == "LOAD":
        o, va, fs = int(f[1], 16), int(f[2], 16), int(f[4], 16)
        if va <= value < va + fs:
            off = value - va + o
maps = [(int(a, 16), int(b, 16), int(p, 16)) for a, b, p in
        re.findall(r'mmap addr=0x([0-9a-f]+)-0x([0-9a-f]+) pgoff=0x([0-9a-f]+) .*libhwtplugin', open(dump).read())]
ranges = {(a + off - p, a + off - p + size) for a, b, p in maps if p <= off < p + (b - a)}
blocks = []
for f in glob.glob(bundle + "/blocks/*.blk"):
    d = open(f, "rb").read()
    blocks += [struct.unpack_from("<QII", d, i) for i in range(0, len(d), 16)]
outside = [hex(b[0]) for b in blocks if not any(s <= b[0] < e for s, e in ranges)]
entries = sum(1 for b in blocks if any(b[0] == s for s, e in ranges))
print(f"{len(blocks)} blocks, {len(outside)} outside plugin_compute, {entries} entries")
sys.exit(0 if blocks and not outside and entries == 2 else 1)
PY
then
	ok "filtered recording holds only plugin_compute's blocks, entered twice"
else
	bad "filtered recording holds other code"
fi
if grep -q "tip.pgd" "$W/filter.dump" || "$hwt" dump --packets "$W/filter" 2>/dev/null | grep -q "tip.pgd ip=0x"; then
	ok "leaving the range is TIP.PGD with the target"
else
	bad "no TIP.PGD with IP in the filtered stream"
fi

# ---- selection by library (docs/select.md) ----

# A stripped program found through its RUNPATH libcalc.so, which has debug info:
# traced (started by an untraced sh), with libcalc's coverage.
suite lib_rpath 2 sh -c '"$0" gcd 12; "$0" fib 9' "$W/rpath_runner"
if grep -q '^FNDA:[1-9][0-9]*,calc_gcd' "$W/lib_rpath.sel.info" &&
   grep -q '^FNDA:[1-9][0-9]*,calc_fib' "$W/lib_rpath.sel.info" &&
   grep -q '^FNDA:0,calc_is_prime' "$W/lib_rpath.sel.info"; then
	ok "lib_rpath: calc_gcd and calc_fib run, calc_is_prime not, in the lcov"
else
	bad "lib_rpath: lcov lacks the library's functions"; grep '^FN' "$W/lib_rpath.sel.info"
fi
# The same program without RUNPATH, given LD_LIBRARY_PATH by sh and by env (both untraced).
suite lib_env 2 sh -c 'LD_LIBRARY_PATH="$1" "$0" gcd 6; env LD_LIBRARY_PATH="$1" "$0" prime 20' \
	"$W/plain_runner" "$W"
# $ORIGIN in a RUNPATH and ${ORIGIN} in an RPATH.
suite lib_origin 2 sh -c '"$0/runner" fib 7; "$0/runner_rpath" gcd 4' "$W/origin/bin"
# Two levels down: wrap_main -> libwrap.so (no debug info) -> libcalc.so, found
# through the executable's RPATH (ld.so uses it for libwrap's DT_NEEDED too).
suite lib_deep 1 sh -c '"$0" && /bin/true' "$W/deep/wrap_main"

# hwt record says which processes were traced for a library, and which one.
"$hwt" record -o "$W/lib_msg" -- sh -c 'LD_LIBRARY_PATH="$1" "$0" gcd 6; "$1/rpath_runner" fib 3;
	"$1/rpath_runner" fib 4' "$W/plain_runner" "$W" >/dev/null 2>"$W/lib_msg.err"
if grep -qF "traced for a library it loads: $W/plain_runner ($W/libcalc.so)" "$W/lib_msg.err" &&
   grep -qF "traced for a library it loads: $W/rpath_runner ($W/libcalc.so), 2 times" "$W/lib_msg.err" &&
   [ "$(summary "$W/lib_msg" processes)" = 3 ]; then
	ok "hwt record names the processes traced for a library, and the library"
else
	bad "no 'traced for a library' report"; cat "$W/lib_msg.err"
fi

# --no-trace on the library: the program runs natively, UNTRACED for its own reason.
"$hwt" record -q -o "$W/lib_notrace" --no-trace 'libcalc.so' -- sh -c '"$0" gcd 5' "$W/rpath_runner" \
	>/dev/null 2>&1
if [ "$(summary "$W/lib_notrace" processes)" = 0 ] && [ "$(summary "$W/lib_notrace" untraced)" = 2 ] &&
   dump "$W/lib_notrace" | grep -qF "path=\"$W/rpath_runner\" reason=\"no debug info\""; then
	ok "--no-trace on the library: native, untraced (no debug info) in the summary"
else
	bad "--no-trace on a library: processes $(summary "$W/lib_notrace" processes), untraced $(summary "$W/lib_notrace" untraced)"
fi
# ... which does not keep a selected executable from being traced.
"$hwt" record -q -o "$W/lib_notrace_exe" --no-trace 'libcalc.so' -- "$W/test_calc" gcd 5 >/dev/null 2>&1
if [ "$(summary "$W/lib_notrace_exe" processes)" = 1 ]; then
	ok "--no-trace on the library: a selected executable is still traced"
else
	bad "--no-trace on a library untraced a selected executable"
fi

# No selected library in the closure (libcalc.so without debug info, libc): native.
"$hwt" record -q -o "$W/lib_none" -- sh -c '"$0" gcd 5; /bin/true' "$W/nodebug/runner" >/dev/null 2>&1
if [ "$(summary "$W/lib_none" processes)" = 0 ] && [ "$(summary "$W/lib_none" untraced)" = 3 ] &&
   dump "$W/lib_none" | grep -qF "path=\"$W/nodebug/runner\" reason=\"no debug info\"" &&
   dump "$W/lib_none" | grep -q 'path="/usr/bin/true" reason="system binary"'; then
	ok "no selected library in the closure: native, with the executable's reason"
else
	bad "closure without a selected library: processes $(summary "$W/lib_none" processes)"
fi
# ... unless --trace names the library.
"$hwt" record -q -o "$W/lib_trace" --trace '*/nodebug/libcalc.so' -- sh -c '"$0" gcd 5; /bin/true' \
	"$W/nodebug/runner" >/dev/null 2>&1
if [ "$(summary "$W/lib_trace" processes)" = 1 ] &&
   dump "$W/lib_trace" | grep -qF "process-start ppid=" &&
   dump "$W/lib_trace" | grep -qF "path=\"$W/nodebug/runner\" argv="; then
	ok "--trace on a library selects the programs that load it"
else
	bad "--trace on a library: processes $(summary "$W/lib_trace" processes)"
fi

# A thread with a 64 KiB stack (glibc itself needs 16) starts rpath_runner,
# selected for its library (the deepest way through the rule: the walk, then
# the library's debug information), and true, by execl in a fork child,
# execvp in a vfork child, posix_spawn and system(): 4 traced, and untraced
# the 4 true and small_stack itself (system's sh is started by glibc's own
# posix_spawn, which the library does not see).
"$hwt" record -q -o "$W/small_stack.b" -- "$W/small_stack" 64 "$W/rpath_runner" >"$W/small_stack.out" 2>&1
st=$?
if [ $st -eq 0 ] && grep -q "small_stack ok" "$W/small_stack.out" &&
   [ "$(summary "$W/small_stack.b" processes)" = 4 ] && [ "$(summary "$W/small_stack.b" untraced)" = 5 ] &&
   [ "$(dump "$W/small_stack.b" | grep -c "process-start .*path=\"$W/rpath_runner\"")" = 4 ] &&
   [ "$(dump "$W/small_stack.b" | grep -c 'untraced .*path="/usr/bin/true" reason="system binary"')" = 4 ]; then
	ok "execl, execvp (vfork), posix_spawn, system() from a thread with a 64 KiB stack"
else
	bad "small stack: status $st, processes $(summary "$W/small_stack.b" processes), untraced $(summary "$W/small_stack.b" untraced)"
	cat "$W/small_stack.out"
fi

# A suite that runs a selected test under another Valgrind tool (memcheck, as
# libtasn1's does when Valgrind is installed): the test cannot be traced, and
# that is said, not silent.
"$hwt" record -o "$W/under_vg" -- sh -c 'valgrind -q --tool=none "$0" gcd 3 >/dev/null' \
	"$W/test_calc" >"$W/under_vg.out" 2>&1
if [ "$(summary "$W/under_vg" processes)" = 0 ] &&
   dump "$W/under_vg" | grep -q 'untraced .*path="/usr/libexec/valgrind/none-amd64-linux" reason="another Valgrind tool' &&
   grep -q "not traced: /usr/libexec/valgrind/none-amd64-linux (another Valgrind tool" "$W/under_vg.out"; then
	ok "a test run under another Valgrind tool is reported as not traced"
else
	bad "under another Valgrind: processes $(summary "$W/under_vg" processes)"
	cat "$W/under_vg.out"
fi

echo "select: $pass passed, $fail failed"
[ $fail -eq 0 ] && [ $pass -gt 0 ]
