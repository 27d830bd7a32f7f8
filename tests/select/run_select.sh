#!/bin/sh
# Selection tests (docs/select.md): suites driven by untraced make/sh/env/
# xargs/python3 give the coverage of tracing everything; posix_spawn(p) and
# execveat start traced processes; what is not selected is in the bundle as
# untraced; a static program's execs are reported; --filter on a function
# of a dlopen'ed library records exactly that function's executions.
# usage: run_select.sh BUILD_DIR WORKDIR
set -u
build=$1 work=$2
hwt=$build/bin/hwt cov=$build/bin/hwt-cov check=$build/tests/roundtrip/roundtrip_check
src=$(cd "$(dirname "$0")" && pwd)/suite
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok   $*"; }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }

rm -rf "$work"
mkdir -p "$work"
W=$(cd "$work" && pwd)
cc -g -O0 -fPIC -shared "$src/calc.c" -o "$W/libcalc.so" &&
cc -g -O0 -I"$src" "$src/test_calc.c" -L"$W" -lcalc -Wl,-rpath,"$W" -o "$W/test_calc" &&
cc -g0 -O1 "$src/launcher.c" -o "$W/launcher" &&
cc -g -O0 -static "$src/static_runner.c" -o "$W/static_runner" || { echo "FAIL build"; exit 1; }

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
	if ! dump "$W/launch" | grep -q "process-start .*argv=\[\"$W/test_calc\", \"$mode\""; then
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

echo "select: $pass passed, $fail failed"
[ $fail -eq 0 ]
