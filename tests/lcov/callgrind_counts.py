#!/usr/bin/env python3
"""Per-instruction counts from a callgrind profile (--dump-instr=yes
--collect-jumps=yes): prints "vaddr count taken not_taken" (hex vaddr) for
the instructions of addresses in [LOW, HIGH). An oracle independent of hwt's
decoder, used to check the lcov writer against gcov on non-PIE programs.

usage: callgrind_counts.py CALLGRIND_OUT LOW HIGH
"""
import sys


def main():
    path, low, high = sys.argv[1], int(sys.argv[2], 0), int(sys.argv[3], 0)
    counts, taken, execs = {}, {}, {}
    last = 0
    skip_cost = False     # the line after calls= carries inclusive cost
    call_site = None      # cost lines at a call site after calls= (PLT stubs) are not its own
    pending_jcnd = None   # (taken, executed) for the next position line

    def pos(tok, base):
        if tok == '*':
            return base
        if tok[0] in '+-':
            return base + int(tok, 0)
        return int(tok, 0)

    for raw in open(path):
        line = raw.strip()
        if not line:
            continue
        c = line[0]
        if c.isdigit() or c in '+-*':
            fields = line.split()
            addr = pos(fields[0], last)
            last = addr
            if call_site is not None and addr != call_site:
                call_site = None
            if pending_jcnd is not None:
                t, n = pending_jcnd
                taken[addr] = taken.get(addr, 0) + t
                execs[addr] = execs.get(addr, 0) + n
                pending_jcnd = None
                continue
            if skip_cost:
                skip_cost = False
                call_site = addr
                continue
            if call_site is not None:
                continue
            if len(fields) >= 3:
                counts[addr] = counts.get(addr, 0) + int(fields[2])
            continue
        if line.startswith('calls='):
            skip_cost = True
        elif line.startswith('jcnd='):
            t, n = line[5:].split()[0].split('/')
            pending_jcnd = (int(t), int(n))
        elif line.startswith('jump='):
            pending_jcnd = None
            skip_cost = True   # the source line of a jump carries no cost
    for addr in sorted(counts):
        if low <= addr < high:
            t = taken.get(addr, 0)
            n = execs.get(addr, 0)
            print('%x %d %d %d' % (addr, counts[addr], t, n - t if n else 0))


main()
