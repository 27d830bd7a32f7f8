#!/usr/bin/env python3
"""Compares per-instruction counts of an hwt profile with callgrind's.

usage: callgrind_compare.py INSNS CALLGRIND_OUT [--maps MAPS] [--image PATH]...
                            [--require PATH]... [--min-match N]

INSNS is the output of `profile_tool insns PROFILE`: per image "image PATH"
then "VADDR COUNT TAKEN NOT_TAKEN LENGTH BRANCH REP" lines (hex vaddr, ELF
virtual addresses). CALLGRIND_OUT is written by `valgrind --tool=callgrind
--dump-instr=yes --skip-plt=no`: its instruction positions are ELF virtual
addresses too (callgrind subtracts each object's load offset), except for
code outside an object's .text (.init, .plt, .fini), which callgrind files
under the object "???" at its run-time address. MAPS (`profile_tool maps
BUNDLE`) gives the run-time layout of the hwt recording; Valgrind lays out
a process the same way under both tools, so "???" addresses are attributed
through it (an address that no mapping explains stays under "???").

For each image given with --image (default: every image hwt reports that
callgrind also names), every instruction that either side counts must have
the same count on both, with two principled exceptions:
  - rep-prefixed string instructions: hwt counts executions (a branch trace
    sees the instruction once), callgrind counts iterations (VEX runs one
    iteration per pass). Required: both zero or both non-zero, and
    callgrind >= hwt.
  - blocks left abnormally: callgrind credits a block's instructions when
    the block is left through one of its exits, so a block that ends the
    process (exit_group), returns from a signal handler (rt_sigreturn) or
    faults (SIGSEGV caught by a handler) is never credited. Allowed: a run
    of consecutive instructions that hwt counts k > 0 times each and
    callgrind never, ending in a syscall-class ("far") instruction or right
    before an instruction that hwt never saw complete (the faulting one).
--require PATH fails when PATH is not among the images compared.
Prints a summary line per image and up to 20 mismatches; exits 1 on any
mismatch, or when fewer than N instructions (--min-match, default 1) were
compared in a --require image.
"""
import re
import sys
from collections import defaultdict


def read_insns(path):
    images = {}
    errors = {}
    current = None
    with open(path) as f:
        for line in f:
            line = line.rstrip('\n')
            if line.startswith('image '):
                current = images.setdefault(line[6:], {})
            elif line.startswith('image-error '):
                name, _, why = line[12:].rpartition(': ')
                errors[name] = why
                current = None
            elif current is not None and line:
                vaddr, count, taken, not_taken, length, branch, rep = line.split()
                current[int(vaddr, 16)] = (int(count), int(length), branch, rep == '1')
    return images, errors


class Compression:
    """callgrind's name compression: "(id) name" defines, "(id)" refers."""

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


def parse_subposition(text, last):
    if text == '*':
        return last
    if text.startswith('+'):
        return last + int(text[1:], 0)
    if text.startswith('-'):
        return last - int(text[1:], 0)
    return int(text, 0)


def read_callgrind(path):
    """Returns {object path: {vaddr: Ir}} of self costs."""
    counts = defaultdict(lambda: defaultdict(int))
    objects = Compression()   # ob= and cob= share ids
    files = Compression()     # fl= fi= fe= cfi= cfl=
    functions = Compression() # fn= cfn=
    positions = ['line']
    events = []
    ob = '???'
    last = None
    skip_next = False
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
                elif key == 'cob':
                    objects.get(value)
                elif key in ('fl', 'fi', 'fe', 'cfi', 'cfl'):
                    files.get(value)
                elif key in ('fn', 'cfn'):
                    functions.get(value)
                elif key == 'calls':
                    # The next cost line is the call's inclusive cost.
                    skip_next = True
                # jump=, jcnd= carry their own positions: not cost lines.
                continue
            if ':' in line.split()[0]:
                continue  # a header line
            if not line[0] in '0123456789+-*':
                continue
            fields = line.split()
            if last is None:
                last = [0] * len(positions)
            pos = [parse_subposition(t, l) for t, l in zip(fields, last)]
            last = pos
            if skip_next:
                skip_next = False
                continue
            costs = fields[len(positions):]
            if 'instr' not in positions or 'Ir' not in events:
                sys.exit('callgrind output without instr positions or Ir events')
            ir_at = events.index('Ir')
            ir = int(costs[ir_at]) if ir_at < len(costs) else 0
            counts[ob][pos[positions.index('instr')]] += ir
    return counts


def read_maps(path):
    maps = []
    with open(path) as f:
        for line in f:
            start, end, vaddr, name = line.rstrip('\n').split(' ', 3)
            maps.append((int(start, 16), int(end, 16), int(vaddr, 16), name))
    return maps


def attribute_unknown(cg, maps):
    unknown = cg.pop('???', {})
    rest = {}
    for addr, n in unknown.items():
        for start, end, vaddr, name in reversed(maps):
            if start <= addr < end:
                cg[name][vaddr + addr - start] += n
                break
        else:
            rest[addr] = n
    if rest:
        cg['???'] = rest


def abnormal_exits(a, b, differ):
    """Addresses whose difference is a block callgrind never credited.

    A run of consecutive instructions that hwt counts k > 0 times and
    callgrind 0 times, ending either in a syscall-class instruction
    (exit_group, rt_sigreturn: the block is never left) or right before an
    instruction that hwt never saw complete (a fault: the block is left by
    a signal).
    """
    cand = {x for x in differ if x in a and a[x][0] > 0 and b.get(x, 0) == 0}
    ends_at = {x + a[x][1]: x for x in cand}
    explained = set()
    for x in cand:
        nxt = x + a[x][1]
        if nxt in cand:
            continue  # not the last of its run
        # hwt lists executed instructions only: one it does not list did not complete.
        if not (a[x][2] == 'far' or nxt not in a):
            continue
        run = [x]
        while run[-1] in ends_at and a[ends_at[run[-1]]][0] == a[x][0]:
            run.append(ends_at[run[-1]])
        explained.update(run)
    return explained


def main():
    args = sys.argv[1:]
    wanted = []
    maps = None
    required = []
    min_match = 1
    rest = []
    i = 0
    while i < len(args):
        if args[i] == '--image':
            wanted.append(args[i + 1])
            i += 2
        elif args[i] == '--require':
            required.append(args[i + 1])
            i += 2
        elif args[i] == '--maps':
            maps = read_maps(args[i + 1])
            i += 2
        elif args[i] == '--min-match':
            min_match = int(args[i + 1])
            i += 2
        else:
            rest.append(args[i])
            i += 1
    if len(rest) != 2:
        sys.exit(__doc__)
    hwt, errors = read_insns(rest[0])
    cg = read_callgrind(rest[1])
    if maps:
        attribute_unknown(cg, maps)
    if not wanted:
        wanted = sorted(set(hwt) & set(cg))
    failed = False
    for image in required:
        if image not in wanted:
            print(f'FAIL {image}: not compared (hwt: {image in hwt}, callgrind: {image in cg})')
            failed = True
    for image in wanted:
        if image in errors:
            print(f'FAIL {image}: hwt could not list its instructions: {errors[image]}')
            failed = True
            continue
        a = hwt.get(image, {})
        b = cg.get(image, {})
        addrs = sorted(set(a) | set(b))
        count = lambda x: a[x][0] if x in a else 0
        differ = [x for x in addrs if count(x) != b.get(x, 0)]
        rep = [x for x in differ if x in a and a[x][3] and
               (count(x) == 0) == (b.get(x, 0) == 0) and b.get(x, 0) >= count(x)]
        differ = [x for x in differ if x not in set(rep)]
        exit_run = abnormal_exits(a, b, set(differ))
        bad = [x for x in differ if x not in exit_run]
        total_a = sum(v[0] for v in a.values())
        total_b = sum(b.values())
        ok = not bad and (len(addrs) >= min_match or image not in required)
        failed |= not ok
        print(f'{"ok" if ok else "FAIL"} {image}: {len(addrs)} instructions compared, '
              f'{len(addrs) - len(bad) - len(rep) - len(exit_run)} equal, '
              f'{len(rep)} rep (callgrind counts iterations), '
              f'{len(exit_run)} in blocks left abnormally, {len(bad)} differ; '
              f'executed: hwt {total_a}, callgrind {total_b}')
        for x in bad[:20]:
            print(f'    0x{x:x}: hwt {count(x)}, callgrind {b.get(x, 0)}')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
