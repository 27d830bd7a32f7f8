#!/usr/bin/env python3
"""Compares per-instruction counts of an hwt profile with QEMU's own log.

usage: qemu_log_compare.py INSNS QEMU_LOG:MAPS... [--require PATH] [--min-match N] [--died]

The QEMU unit's recording ran under `qemu-x86_64 -d in_asm,exec,nochain`,
so QEMU itself logged, independently of hwt's plugin, encoder and decoder,
each block it translated ("IN:" and the block's instructions) and each
block it ran ("Trace N: ... [cs_base/PC/flags/cflags]"; nochain makes every
run go through the logged path). Each run of a block counts once for every
instruction hwt decoded in the block's byte range; a run QEMU stopped before
the block's first instruction ("Stopped execution of TB chain before")
does not count.

INSNS is `profile_tool insns PROFILE` (ELF virtual addresses per image),
each MAPS `profile_tool maps BUNDLE PID` (the run-time layout of the process
that wrote that log), which turns QEMU's run-time addresses into the same
image and ELF address; the logs of several processes add up. Every instruction
of every image both sides name must have the same count, except
rep-prefixed string instructions: QEMU runs each iteration as a block of its
own, hwt counts the instruction once per execution (both non-zero, QEMU's
count the larger). With --died the process was killed by a fault in the
last block each log shows run: the unit claims none of that block (where in
it the process died is not known), so that run does not count. Exits 1 on a
mismatch, or when fewer than N instructions (--min-match) of a --require
image were compared.
"""
import os
import re
import sys
from bisect import bisect_left
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from callgrind_compare import read_insns, read_maps  # noqa: E402

TRACE = re.compile(r'^Trace \d+: \S+ \[[0-9a-f]+/([0-9a-f]+)/')
# A block entered but left before its first instruction (another thread asked
# every vCPU to stop: thread start or exit, a flush): QEMU logged it as run.
STOPPED = re.compile(r'^Stopped execution of TB chain before \S+ \[([0-9a-f]+)\]')
# x86-64: "0xADDR:  BYTES  MNEMONIC ...", and for an instruction longer than
# 8 bytes a line "0xADDR:  BYTES" of its further bytes. AArch64:
# "0xADDR:  WORD  MNEMONIC ...", the instruction as one 32-bit word.
LINE = re.compile(r'^0x([0-9a-f]+):\s+(?:([0-9a-f]{8})\s|((?:[0-9a-f]{2} )*[0-9a-f]{2}))')


def read_qemu_log(path, died=False):
    """Byte ranges [start, end) of the blocks QEMU ran -> times it ran each
    (with died, the last run taken back).

    Ranges, not QEMU's instruction list: its disassembler (capstone 4) does
    not know every instruction (rdssp, a CET hint, comes out as several), so
    instructions are taken from hwt's decode and counted by the range that
    holds them."""
    ranges = {}
    runs = defaultdict(int)
    current = None
    last = None
    with open(path, errors='replace') as f:
        for line in f:
            if line.startswith('IN:'):
                current = []
                continue
            if current is not None:
                m = LINE.match(line)
                if m:
                    size = 4 if m.group(2) else len(m.group(3).split())
                    current.append((int(m.group(1), 16), size))
                    continue
                if current:
                    ranges[current[0][0]] = (current[0][0], current[-1][0] + current[-1][1])
                current = None
            m = TRACE.match(line)
            if m:
                pc = int(m.group(1), 16)
                last = ranges.get(pc, (pc, None))
                runs[last] += 1
                continue
            m = STOPPED.match(line)
            if m:
                pc = int(m.group(1), 16)
                runs[ranges.get(pc, (pc, None))] -= 1
    if died and last is not None:
        runs[last] -= 1
    return runs


def main(argv):
    args = argv[1:]
    require, min_match = [], 1
    while '--require' in args:
        i = args.index('--require')
        require.append(args[i + 1])
        del args[i:i + 2]
    died = '--died' in args
    if died:
        args.remove('--died')
    if '--min-match' in args:
        i = args.index('--min-match')
        min_match = int(args[i + 1])
        del args[i:i + 2]
    if len(args) < 2:
        sys.exit(__doc__)
    images, errors = read_insns(args[0])
    starts = {name: sorted(insns) for name, insns in images.items()}
    qemu = defaultdict(lambda: defaultdict(int))
    for pair in args[1:]:
        log, maps_path = pair.rsplit(':', 1)
        maps = read_maps(maps_path)
        runs = read_qemu_log(log, died)

        unknown = [r for r in runs if r[1] is None]
        if unknown:
            print('FAIL: QEMU ran %d block(s) it never logged a translation of' % len(unknown))
            return 1
        # Each run of a block counts once for every instruction hwt decoded in its
        # range; a block that starts where hwt has no instruction is a difference.
        # An image mapped twice (dlopen, dlclose, dlopen) adds both up.
        for (start, end), n in runs.items():
            for lo, hi, vaddr, name in reversed(maps):
                if lo <= start < hi:
                    first, last = vaddr + start - lo, vaddr + end - lo
                    if first not in images.get(name, {}):
                        qemu[name][first] += n
                    for addr in starts.get(name, [])[bisect_left(starts.get(name, []), first):]:
                        if addr >= last:
                            break
                        qemu[name][addr] += n
                    break

    failed = False
    for name in require:
        if name not in images or name not in qemu:
            print('FAIL: %s is not among the images (hwt: %s; qemu: %s)'
                  % (name, name in images, name in qemu))
            failed = True
    for name in sorted(set(images) & set(qemu)):
        hwt, q = images[name], qemu[name]
        equal = rep = 0
        bad = []
        for addr in sorted(set(hwt) | set(q)):
            h = hwt[addr][0] if addr in hwt else 0
            n = q.get(addr, 0)
            is_rep = addr in hwt and hwt[addr][3]
            if h == n:
                equal += 1
            elif is_rep and h > 0 and n >= h:
                rep += 1
            else:
                bad.append((addr, h, n))
        print('%s %s: %d instructions compared, %d equal, %d rep (QEMU counts iterations), '
              '%d differ' % ('FAIL' if bad else 'ok', name, equal + rep + len(bad), equal, rep,
                             len(bad)))
        for addr, h, n in bad[:20]:
            print('    0x%x: hwt %d, qemu %d' % (addr, h, n))
        if bad:
            failed = True
        if name in require and equal + rep < min_match:
            print('FAIL: only %d instructions of %s compared' % (equal + rep, name))
            failed = True
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
