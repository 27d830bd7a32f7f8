#!/usr/bin/env python3
"""Per-function counts from hwt's folded stacks against callgrind's.

usage: callgrind_stacks.py CALLGRIND_OUT MAPS INSNS_FOLDED CALLS_FOLDED TOOL
                           [--require PATH] [--allow-differences]

CALLGRIND_OUT: `valgrind --tool=callgrind --dump-instr=yes --skip-plt=no`.
MAPS: `profile_tool maps BUNDLE` (the run-time layout, for callgrind's "???"
addresses). INSNS_FOLDED and CALLS_FOLDED: `stacks_tool stacks BUNDLE
--callgrind --addresses` with --weight insns and --weight calls: frames are
named PATH+0xENTRY. TOOL: stacks_tool, whose `symbolize` mode names the
function of an (object, address) of callgrind's the same way.

Functions are keyed by entry (PATH+0xENTRY), on both sides through hwt's
symbol lookup, so names that the two tools spell differently ("(below
main)", versioned names, aliases) do not matter. Compared, per function:
  - exclusive instructions: callgrind's self cost; hwt: the counts of the
    folded lines whose leaf is the function;
  - inclusive instructions, as callgrind_annotate --inclusive=yes counts
    them: self cost plus the inclusive cost of every call the function
    made (so a recursive function counts each level); hwt: each folded
    line's count once per occurrence of the function in the line;
  - calls: callgrind's calls= count per (caller, callee); hwt: the calls
    folded lines ending in ...;caller;callee.
And every parent->child pair of hwt's stacks (markers and the process
root aside) must be a call edge callgrind saw.

Differences that docs/flame.md explains are counted apart, never hidden:
  - rep-prefixed string instructions: callgrind counts iterations, hwt
    executions (the run sets GLIBC_TUNABLES so that libc's memcpy and
    memset use none; the difference must be in a function with a rep
    instruction, callgrind higher);
  - blocks that callgrind never credits (a block that ends the process,
    as callgrind_compare.py explains): hwt higher, by the instructions of
    the block that called exit_group, in that function and its callers;
  - valgrind's own exit path (_vgnU_freeres, __libc_freeres), which
    callgrind shows under a root of its own while the trace sees it enter
    at the exit_group system call.
Exits 1 on any other difference.
"""
import re
import subprocess
import sys
from collections import defaultdict


class Compression:
    def __init__(self):
        self.names = {}

    def get(self, value):
        m = re.match(r'^\((\d+)\)(?: (.*))?$', value)
        if not m:
            return value
        if m.group(2) is not None:
            self.names[m.group(1)] = m.group(2)
            return m.group(2)
        return self.names.get(m.group(1), '?')


def subposition(text, last):
    if text == '*':
        return last
    if text.startswith('+'):
        return last + int(text[1:], 0)
    if text.startswith('-'):
        return last - int(text[1:], 0)
    return int(text, 0)


def read_callgrind(path):
    """Self costs {(ob, addr): ir}, call edges [(ob, site, cob, target, calls, inclusive)],
    function names {(ob, addr): fn}."""
    selfs = defaultdict(int)
    edges = []
    fnames = {}
    objects, files, functions = Compression(), Compression(), Compression()
    positions = ['line']
    events = []
    ob = cob = '???'
    fn = cfn = '?'
    last = None
    pending = None
    with open(path) as f:
        for raw in f:
            line = raw.rstrip('\n')
            if not line or line.startswith('#'):
                continue
            if line.startswith('positions:'):
                positions = line.split(':', 1)[1].split()
                last = [0] * len(positions)
                continue
            if line.startswith('events:'):
                events = line.split(':', 1)[1].split()
                continue
            key, eq, value = line.partition('=')
            if eq and re.match(r'^[a-z]+$', key):
                if key == 'ob':
                    ob = objects.get(value)
                    cob = ob
                elif key == 'cob':
                    cob = objects.get(value)
                elif key in ('fl', 'fi', 'fe', 'cfi', 'cfl'):
                    files.get(value)
                elif key == 'fn':
                    fn = functions.get(value)
                    cob = ob
                elif key == 'cfn':
                    cfn = functions.get(value)
                elif key == 'calls':
                    parts = value.split()
                    target = subposition(parts[1], last[positions.index('instr')])
                    pending = (int(parts[0]), target, cob, cfn)
                continue
            if ':' in line.split()[0]:
                continue
            if line[0] not in '0123456789+-*':
                continue
            fields = line.split()
            pos = [subposition(t, l) for t, l in zip(fields, last)]
            last = pos
            costs = fields[len(positions):]
            ir = int(costs[events.index('Ir')]) if events.index('Ir') < len(costs) else 0
            addr = pos[positions.index('instr')]
            if pending:
                calls, target, callee_ob, callee_fn = pending
                edges.append((ob, addr, callee_ob, target, calls, ir, fn, callee_fn))
                pending = None
                cob = ob
                continue
            selfs[(ob, addr)] += ir
            fnames.setdefault((ob, addr), fn)
    return selfs, edges, fnames


def read_maps(path):
    maps = []
    with open(path) as f:
        for line in f:
            start, end, vaddr, name = line.rstrip('\n').split(' ', 3)
            maps.append((int(start, 16), int(end, 16), int(vaddr, 16), name))
    return maps


def real(ob, addr, maps):
    """callgrind files code outside .text under "???" at its run-time address."""
    if ob != '???':
        return ob, addr
    for start, end, vaddr, name in reversed(maps):
        if start <= addr < end:
            return name, vaddr + addr - start
    return ob, addr


class Symbols:
    def __init__(self, tool):
        self.p = subprocess.Popen([tool, 'symbolize', '-'], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True)
        self.cache = {}

    def entry(self, ob, addr, fn):
        key = (ob, addr)
        if key not in self.cache:
            self.p.stdin.write(f'{ob} {addr:x}\n')
            self.p.stdin.flush()
            e = self.p.stdout.readline().strip()
            if e == '-':
                # No symbol: callgrind names such code after its first address
                # ("0x...1ab70"), hwt after the call target: the same place.
                m = re.match(r'^0x([0-9a-fA-F]+)', fn or '')
                e = f'{ob}+0x{int(m.group(1), 16):x}' if m else f'{ob}+?{fn}'
            self.cache[key] = e
        return self.cache[key]


def read_folded(path):
    lines = []
    with open(path) as f:
        for line in f:
            stack, _, count = line.rstrip('\n').rpartition(' ')
            lines.append((stack.split(';'), int(count)))
    return lines


def is_function(frame):
    return '+0x' in frame and not frame.startswith('[')


def main():
    args = sys.argv[1:]
    required = []
    allow = False
    rest = []
    i = 0
    while i < len(args):
        if args[i] == '--require':
            required.append(args[i + 1])
            i += 2
        elif args[i] == '--allow-differences':
            allow = True
            i += 1
        else:
            rest.append(args[i])
            i += 1
    cg_path, maps_path, insns_path, calls_path, tool = rest
    maps = read_maps(maps_path)
    selfs, edges, fnames = read_callgrind(cg_path)
    sym = Symbols(tool)

    # callgrind, keyed by entry.
    cg_self = defaultdict(int)
    for (ob, addr), ir in selfs.items():
        o, a = real(ob, addr, maps)
        cg_self[sym.entry(o, a, fnames.get((ob, addr)))] += ir
    cg_incl = defaultdict(int, cg_self)
    cg_calls = defaultdict(int)
    for ob, site, cob, target, calls, ir, fn, cfn in edges:
        o, a = real(ob, site, maps)
        co, ca = real(cob, target, maps)
        caller = sym.entry(o, a, fn)
        callee = sym.entry(co, ca, cfn)
        cg_incl[caller] += ir
        cg_calls[(caller, callee)] += calls

    # hwt.
    hw_self = defaultdict(int)
    hw_incl = defaultdict(int)
    hw_calls = defaultdict(int)
    pairs = set()
    for frames, count in read_folded(insns_path):
        if is_function(frames[-1]):
            hw_self[frames[-1]] += count
        for f in frames:
            if is_function(f):
                hw_incl[f] += count
    for frames, count in read_folded(calls_path):
        funcs = frames[1:]
        if len(funcs) >= 2 and is_function(funcs[-1]) and is_function(funcs[-2]):
            hw_calls[(funcs[-2], funcs[-1])] += count
        for a, b in zip(funcs, funcs[1:]):
            if is_function(a) and is_function(b):
                pairs.add((a, b))

    bad = []
    def check(what, key, h, c):
        if h != c:
            bad.append(f'{what} {key}: hwt {h}, callgrind {c}')

    functions = sorted(set(cg_self) | set(hw_self) | set(cg_incl) | set(hw_incl))
    for f in functions:
        check('exclusive', f, hw_self.get(f, 0), cg_self.get(f, 0))
        check('inclusive', f, hw_incl.get(f, 0), cg_incl.get(f, 0))
    for e in sorted(set(cg_calls) | set(hw_calls)):
        check('calls', f'{e[0]} -> {e[1]}', hw_calls.get(e, 0), cg_calls.get(e, 0))
    for a, b in sorted(pairs):
        if (a, b) not in cg_calls:
            bad.append(f'edge {a} -> {b}: in hwt\'s stacks, not a call callgrind saw')
    for r in required:
        if not any(f.startswith(r + '+') for f in hw_self):
            bad.append(f'required image {r}: no function of it in hwt\'s stacks')
    print(f'{len(functions)} functions, {len(set(cg_calls) | set(hw_calls))} call edges, '
          f'{len(pairs)} parent->child pairs compared; {len(bad)} differences')
    for b in bad[:60]:
        print('   ', b)
    return 1 if bad and not allow else 0


if __name__ == '__main__':
    sys.exit(main())
