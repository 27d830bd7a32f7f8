#!/usr/bin/env python3
"""Per-function counts from hwt's folded stacks against callgrind's.

usage: callgrind_stacks.py CALLGRIND_OUT MAPS INSNS INSNS_FOLDED CALLS_FOLDED TOOL
                           [--require PATH] [--strict PATH]... [--allow-differences]

CALLGRIND_OUT: `valgrind --tool=callgrind --dump-instr=yes --skip-plt=no`.
MAPS: `profile_tool maps BUNDLE` (the run-time layout, for callgrind's "???"
addresses). INSNS: `profile_tool insns` of the bundle's profile (the
per-instruction counts, rep flags). INSNS_FOLDED and CALLS_FOLDED:
`stacks_tool stacks BUNDLE --callgrind --addresses` with --weight insns
(and --blocks: each stack ends in the block that ran there) and --weight
calls: frames are named PATH+0xENTRY. TOOL: stacks_tool, whose `symbolize` mode names the
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

Two per-instruction differences (callgrind_compare.py's) are taken out of
callgrind's counts before comparing, and counted (docs/flame.md):
  - rep-prefixed string instructions: callgrind counts iterations, hwt
    executions;
  - blocks callgrind never credits (left by exit_group, a fault, a
    sigreturn).
Each such instruction's difference goes to its function's exclusive count
and, through the blocks frames of hwt's stacks, to the inclusive counts of
the stack it ran in; when its block ran in several stacks, how the
difference splits between them is unknown, and the inclusive counts of
those stacks' functions may differ by at most the difference (reported as
"within"). A function on a stack that a signal handler interrupted has an
inclusive count that callgrind takes partly from the handler: with
--signal-roots FOLDED (the same stacks with handlers hung from the root),
its count must lie between hwt's two (reported as "between"). An
inclusive difference of a function that calls (directly or not) one whose
exclusive count differs is inherited (the exclusive difference is the one
reported). With --strict PATH, only differences in functions of those
images (and pairs that involve one) fail; the others are listed. Exits 1
on any other difference.
"""
import os
import re
import subprocess
import sys
from collections import defaultdict

# callgrind's name compression and positions, as the profile's oracle reads them.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'decode'))
from callgrind_compare import Compression, parse_subposition as subposition  # noqa: E402


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
    """Function identities PATH+0xENTRY through stacks_tool symbolize."""

    def __init__(self, tool, maps):
        self.p = subprocess.Popen([tool, 'symbolize', '-'], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True)
        self.maps = maps
        self.cache = {}

    def query(self, ob, addr):
        key = (ob, addr)
        if key not in self.cache:
            self.p.stdin.write(f'{ob} {addr:x}\n')
            self.p.stdin.flush()
            self.cache[key] = self.p.stdout.readline().strip()
        return self.cache[key]

    def entry(self, ob, addr, fn):
        o, a = real(ob, addr, self.maps)
        e = self.query(o, a)
        if not e.startswith('-'):
            return e
        # No symbol: callgrind names such code after the first address it ran
        # ("0x...1ab70"), hwt after the call target: the same place.
        m = re.match(r'^0x([0-9a-fA-F]+)', fn or '')
        if not m:
            return f'{o}+?{fn}'
        o2, a2 = real(ob, int(m.group(1), 16), self.maps)
        e2 = self.query(o2, a2)
        return e2.split()[1] if e2.startswith('- ') else e2


def read_folded(path):
    lines = []
    with open(path) as f:
        for line in f:
            stack, _, count = line.rstrip('\n').rpartition(' ')
            lines.append((stack.split(';'), int(count)))
    return lines


def is_function(frame):
    return '+0x' in frame and not frame.startswith('[')


def block_of(frame):
    """(path, begin, end) of a [@PATH+0xBEGIN-0xEND] frame, or None."""
    m = re.match(r'^\[@(.*)\+0x([0-9a-f]+)-0x([0-9a-f]+)\]$', frame)
    return (m.group(1), int(m.group(2), 16), int(m.group(3), 16)) if m else None


def instruction_differences(insns_path, selfs, maps):
    """{(image, vaddr): hwt - callgrind} for the two known differences."""
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, os.path.join(here, '..', 'decode'))
    import callgrind_compare as cc
    hwt, _ = cc.read_insns(insns_path)
    cg = defaultdict(lambda: defaultdict(int))
    for (ob, addr), ir in selfs.items():
        o, a = real(ob, addr, maps)
        cg[o][a] += ir
    diffs = {}
    kinds = defaultdict(int)
    for image, a in hwt.items():
        b = cg.get(image, {})
        count = lambda x: a[x][0] if x in a else 0
        differ = {x for x in set(a) | set(b) if count(x) != b.get(x, 0)}
        rep = {x for x in differ if x in a and a[x][3] and b.get(x, 0) >= count(x)}
        exits = cc.abnormal_exits(a, b, differ - rep)
        for x in rep | exits:
            diffs[(image, x)] = count(x) - b.get(x, 0)
            kinds['rep' if x in rep else 'uncredited'] += 1
    return diffs, kinds


def main():
    args = sys.argv[1:]
    required = []
    strict = []
    roots_path = None
    allow = False
    rest = []
    i = 0
    while i < len(args):
        if args[i] == '--require':
            required.append(args[i + 1])
            i += 2
        elif args[i] == '--strict':
            strict.append(args[i + 1])
            i += 2
        elif args[i] == '--signal-roots':
            roots_path = args[i + 1]
            i += 2
        elif args[i] == '--allow-differences':
            allow = True
            i += 1
        else:
            rest.append(args[i])
            i += 1
    cg_path, maps_path, profile_insns, insns_path, calls_path, tool = rest
    maps = read_maps(maps_path)
    selfs, edges, fnames = read_callgrind(cg_path)
    sym = Symbols(tool, maps)

    # callgrind, keyed by entry: each instruction in the function whose symbol
    # covers it (callgrind itself files the instructions of a block that
    # chased a jump into another function under the first one).
    cg_self = defaultdict(int)
    for (ob, addr), ir in selfs.items():
        cg_self[sym.entry(ob, addr, fnames[(ob, addr)])] += ir
    cg_incl = defaultdict(int, cg_self)
    cg_calls = defaultdict(int)
    for ob, site, cob, target, calls, ir, fn, cfn in edges:
        caller = sym.entry(ob, site, fn)
        callee = sym.entry(cob, target, cfn)
        cg_incl[caller] += ir
        cg_calls[(caller, callee)] += calls

    # The two per-instruction differences, taken out of callgrind's counts.
    diffs, kinds = instruction_differences(profile_insns, selfs, maps)
    by_image = defaultdict(list)
    for (image, addr), d in diffs.items():
        by_image[image].append((addr, d))

    # hwt.
    hw_self = defaultdict(int)
    hw_incl = defaultdict(int)
    hw_calls = defaultdict(int)
    pairs = set()
    block_lines = defaultdict(list)   # (path, begin, end) -> [functions of the stack]
    for frames, count in read_folded(insns_path):
        funcs = [f for f in frames if is_function(f)]
        if funcs and (frames[-1] == funcs[-1] or block_of(frames[-1])):
            hw_self[funcs[-1]] += count
        for f in funcs:
            hw_incl[f] += count
        blk = block_of(frames[-1])
        if blk:
            block_lines[blk].append(funcs)
    for frames, count in read_folded(calls_path):
        funcs = frames[1:]
        if len(funcs) >= 2 and is_function(funcs[-1]) and is_function(funcs[-2]):
            hw_calls[(funcs[-2], funcs[-1])] += count
        for a, b in zip(funcs, funcs[1:]):
            if is_function(a) and is_function(b):
                pairs.add((a, b))

    # Each difference: to its function, and to the stacks its block ran in.
    within = defaultdict(int)
    for (path, begin, end), stacks in block_lines.items():
        for addr, d in by_image.get(path, []):
            if not begin <= addr <= end:
                continue
            cg_self[stacks[0][-1]] += d
            if len(stacks) == 1:
                for f in stacks[0]:
                    cg_incl[f] += d
            else:
                for funcs in stacks:
                    for f in set(funcs):
                        within[f] += abs(d) * funcs.count(f)
                        cg_incl[f] += 0
    bad = []
    other = []

    def in_strict(key):
        return not strict or any(key.startswith(p + '+') for p in strict)

    def check(what, key, h, c):
        if h != c:
            (bad if in_strict(key) else other).append(f'{what} {key}: hwt {h}, callgrind {c}')

    functions = sorted(set(cg_self) | set(hw_self) | set(cg_incl) | set(hw_incl))
    # Signal handlers: callgrind counts part of a handler's cost in the
    # inclusive costs of the calls it interrupted; hwt draws the handler on
    # them (all of it) or, with --signal-roots, apart (none of it).
    hw_roots = defaultdict(int)
    if roots_path:
        for frames, count in read_folded(roots_path):
            for f in frames:
                if is_function(f):
                    hw_roots[f] += count
    # An exclusive difference (a run that differs: threads that wait for each
    # other) shows in the inclusive counts of every caller: those are
    # inherited, not differences of their own.
    differ = {f for f in functions if hw_self.get(f, 0) != cg_self.get(f, 0)}
    callees = defaultdict(set)
    for a, b in cg_calls:
        callees[a].add(b)
    for a, b in hw_calls:
        callees[a].add(b)
    reaches = {}

    def reaches_difference(f):
        seen, todo = set(), [f]
        while todo:
            g = todo.pop()
            if g in differ:
                return True
            for h in callees[g]:
                if h not in seen:
                    seen.add(h)
                    todo.append(h)
        return False

    loose = signal_bound = inherited = 0
    for f in functions:
        check('exclusive', f, hw_self.get(f, 0), cg_self.get(f, 0))
        h, c = hw_incl.get(f, 0), cg_incl.get(f, 0)
        if h != c and f not in differ and reaches_difference(f):
            inherited += 1
            continue
        if h != c and abs(h - c) <= within.get(f, 0):
            loose += 1
        elif h != c and roots_path and hw_roots.get(f, 0) != h and \
                min(hw_roots.get(f, 0), h) - within.get(f, 0) <= c <= \
                max(hw_roots.get(f, 0), h) + within.get(f, 0):
            signal_bound += 1
        else:
            check('inclusive', f, h, c)
    for e in sorted(set(cg_calls) | set(hw_calls)):
        check('calls', f'{e[0]} -> {e[1]}', hw_calls.get(e, 0), cg_calls.get(e, 0))
    for a, b in sorted(pairs):
        if (a, b) not in cg_calls:
            (bad if in_strict(a) or in_strict(b) else other).append(
                f'edge {a} -> {b}: in hwt\'s stacks, not a call callgrind saw')
    for r in required:
        if not any(f.startswith(r + '+') for f in hw_self):
            bad.append(f'required image {r}: no function of it in hwt\'s stacks')
    print(f'{len(functions)} functions, {len(set(cg_calls) | set(hw_calls))} call edges, '
          f'{len(pairs)} parent->child pairs compared; instructions callgrind counts otherwise: '
          f'{kinds["rep"]} rep, {kinds["uncredited"]} uncredited; {loose} inclusive counts '
          f'within their rep share; {signal_bound} between hwt\'s two views of signal '
          f'handlers; {inherited} inherited from exclusive differences; {len(bad)} differences'
          + (f' in {", ".join(strict)}, {len(other)} elsewhere' if strict else ''))
    for b in bad[:60]:
        print('   ', b)
    for b in other[:40]:
        print('    (elsewhere)', b)
    return 1 if bad and not allow else 0


if __name__ == '__main__':
    sys.exit(main())
