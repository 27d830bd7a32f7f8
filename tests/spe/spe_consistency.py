#!/usr/bin/env python3
"""The software SPE unit against the ETMv4 trace of the same run.

usage: spe_consistency.py HWT WORK_DIR PROGRAM [ARGS...]

Records PROGRAM (an aarch64 build) twice under the QEMU unit with both
streams, ETMv4 and SPE:

1. --spe=1: every operation is sampled, so the SPE branch records, counted
   by (from, to) where the branch was taken, must equal the taken edges of
   the profile decoded from the ETMv4 stream (hwt report profile: calls,
   returns, jumps, taken conditional branches), and the not-taken
   conditional records its not-taken edges; every record is checked by
   `hwt dump --spe`'s listing (one line each: PC, op, target, events...).
2. --spe=100: each sample is one operation in about 100; the samples per
   function (the main program's functions by their symbols, each library
   as one) must match the function's exact share of the instructions
   (from the ETMv4 profile of that run) within 4.5 standard deviations of
   a binomial share, and their number total/100 within 5 %.
0. Bad --spe values, --spe with another unit, hwt dump --spe with
   --packets: exit status 2 and a message.
3. The first bundle's SPE file damaged (a bad header byte inside a record,
   then a cut inside the last one): `hwt dump --spe` exits 1, lists every
   record before the damage as before, an error line where it is, and
   goes on with the records after it.

Addresses are compared as (build-id, file offset), through the MMAP
records of the bundle's sideband (hwt dump --sideband-only).
"""
import bisect
import math
import os
import re
import shutil
import subprocess
import sys


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def run(cmd, **kw):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)
    if p.returncode not in (0,):
        sys.stderr.write(p.stderr)
        fail("%s exited %d" % (" ".join(cmd), p.returncode))
    return p.stdout


def record(hwt, work, name, spe, prog):
    bundle = os.path.join(work, name)
    shutil.rmtree(bundle, ignore_errors=True)
    p = subprocess.run([hwt, "record", "-q", "--unit", "qemu", "--trace-all", "--spe=%d" % spe,
                        "-o", bundle, "--"] + prog, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        sys.stderr.write(p.stderr)
        fail("hwt record --spe=%d exited %d" % (spe, p.returncode))
    return bundle


MMAP = re.compile(r" mmap addr=0x([0-9a-f]+)-0x([0-9a-f]+) pgoff=0x([0-9a-f]+) \S+ "
                  r"build-id=([0-9a-f]+) path=\"([^\"]*)\"")


class Maps:
    """Runtime address -> (build-id, file offset), from the MMAP records."""

    def __init__(self, hwt, bundle):
        self.ranges = []
        self.paths = {}
        for line in run([hwt, "dump", "--sideband-only", bundle]).splitlines():
            m = MMAP.search(line)
            if m:
                start, end, pgoff = (int(m.group(i), 16) for i in (1, 2, 3))
                self.ranges.append((start, end, pgoff, m.group(4)))
                self.paths[m.group(4)] = m.group(5)
        self.ranges.sort()
        self.starts = [r[0] for r in self.ranges]

    def key(self, addr):
        i = bisect.bisect_right(self.starts, addr) - 1
        if i >= 0 and addr < self.ranges[i][1]:
            start, _, pgoff, bid = self.ranges[i]
            return (bid, addr - start + pgoff)
        return ("?", addr)


def profile(hwt, bundle, work):
    """(taken edges, not-taken edges, blocks) of the ETMv4 decode, keyed by build-id."""
    out = os.path.join(work, os.path.basename(bundle) + ".prof")
    run([hwt, "report", "profile", "-o", out, bundle])
    images, taken, not_taken, blocks = {}, {}, {}, []
    with open(out) as f:
        for line in f:
            w = line.split()
            if w[0] == "image":
                images[w[1]] = w[3]
            elif w[0] == "edge":
                k = ((images[w[1]], int(w[2], 16)), (images[w[3]], int(w[4], 16)))
                table = not_taken if w[5] == "cond-not-taken" else taken
                table[k] = table.get(k, 0) + int(w[6])
            elif w[0] == "block":
                blocks.append((images[w[1]], int(w[2], 16), int(w[4]) * int(w[5])))
    return taken, not_taken, blocks


RECORD = re.compile(r"^  0x[0-9a-f]+ pc=0x([0-9a-f]+) el0 ns op=(\S+)(?: target=0x([0-9a-f]+))?"
                    r"(?: va=0x[0-9a-f]+)? ev=(\S+) tot=1 issue=0(?: xlat=0)? ctx=(\d+) ts=\d+$")


def spe_records(hwt, bundle):
    lines = run([hwt, "dump", "--spe", bundle]).splitlines()
    records = []
    for line in lines:
        if line.startswith("spe "):
            continue
        m = RECORD.match(line)
        if not m:
            fail("hwt dump --spe: unexpected line %r" % line)
        records.append((int(m.group(1), 16), m.group(2),
                        int(m.group(3), 16) if m.group(3) else None, m.group(4).split(",")))
    return records


def consistency(hwt, work, prog):
    bundle = record(hwt, work, "every", 1, prog)
    maps = Maps(hwt, bundle)
    taken, not_taken, blocks = profile(hwt, bundle, work)
    spe_taken, spe_not = {}, {}
    ops = {}
    for pc, op, target, events in spe_records(hwt, bundle):
        ops[op] = ops.get(op, 0) + 1
        if "RETIRED" not in events:
            fail("a record without RETIRED at 0x%x" % pc)
        if not op.startswith("B"):
            if target is not None:
                fail("a %s record with a target at 0x%x" % (op, pc))
            continue
        if target is None:
            fail("a branch record without its target at 0x%x" % pc)
        if "NOT-TAKEN" in events and op != "B-COND":
            fail("an unconditional branch not taken at 0x%x" % pc)
        k = (maps.key(pc), maps.key(target))
        table = spe_not if "NOT-TAKEN" in events else spe_taken
        table[k] = table.get(k, 0) + 1
    total = sum(n for _, _, n in blocks)
    records = sum(ops.values())
    print("--spe=1: %d records (%s), %d instructions in the ETMv4 profile" %
          (records, ", ".join("%s %d" % kv for kv in sorted(ops.items())), total))
    if records != total:
        fail("--spe=1 sampled %d operations, the ETMv4 trace ran %d instructions" %
             (records, total))
    for name, etm, spe in (("taken", taken, spe_taken), ("not-taken", not_taken, spe_not)):
        diff = [(k, etm.get(k, 0), spe.get(k, 0)) for k in set(etm) | set(spe)
                if etm.get(k, 0) != spe.get(k, 0)]
        print("%s branches: %d edges, %d executions (ETMv4), %d edges, %d executions (SPE)" %
              (name, len(etm), sum(etm.values()), len(spe), sum(spe.values())))
        if diff:
            for k, e, s in sorted(diff)[:20]:
                print("  %s+0x%x -> %s+0x%x: ETMv4 %d, SPE %d" %
                      (k[0][0][:8], k[0][1], k[1][0][:8], k[1][1], e, s))
            fail("%d %s branch edges differ between SPE and ETMv4" % (len(diff), name))


def damage(hwt, work):
    bundle = os.path.join(work, "every")
    clean = subprocess.run([hwt, "dump", "--spe", bundle], stdout=subprocess.PIPE,
                           text=True).stdout.splitlines()
    spe_dir = os.path.join(bundle, "spe")
    name = sorted(os.listdir(spe_dir))[0]
    path = os.path.join(spe_dir, name)
    data = bytearray(open(path, "rb").read())
    offsets = [int(l.split()[0], 16) for l in clean if l.startswith("  0x")]
    bad = offsets[100]
    data[bad + 5] = 0x0f            # the PC packet's header, after the Context packet
    cut = offsets[-1] + 7           # inside the last record
    open(path, "wb").write(bytes(data[:cut]))
    p = subprocess.run([hwt, "dump", "--spe", bundle], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    lines = p.stdout.splitlines()
    if p.returncode != 1:
        fail("hwt dump --spe of a damaged file exited %d, wanted 1" % p.returncode)
    if lines[1:101] != clean[1:101]:
        fail("the records before the damage changed")
    errors = [l for l in lines if " error: " in l]
    if len(errors) != 2 or not errors[0].startswith("  0x%06x error: " % (bad + 5)) or \
            "truncated" not in errors[1] and "ends inside" not in errors[1]:
        fail("wanted an error at 0x%x and a cut at the end, got %r" % (bad + 5, errors))
    kept = len([l for l in lines if l.startswith("  0x") and " error: " not in l])
    if kept < len(offsets) - 3:
        fail("only %d of %d records after the damage" % (kept, len(offsets)))
    if "spe" not in p.stderr or "dropped" not in p.stderr:
        fail("no warning naming the damage: %r" % p.stderr)
    print("damaged: %d of %d records kept; %s" % (kept, len(offsets), errors[0].strip()))


def bad_options(hwt, work):
    """--spe's bad values and units: exit status 2, a message naming the option."""
    for args, words in ((["--spe=0"], "--spe wants"), (["--spe=x"], "--spe wants"),
                        (["--unit", "valgrind", "--spe"], "needs the qemu trace unit")):
        out = os.path.join(work, "bad")
        p = subprocess.run([hwt, "record", "-o", out] + args + ["--", "true"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if p.returncode != 2 or words not in p.stderr or os.path.exists(out):
            fail("hwt record %s: exit %d, %r" % (" ".join(args), p.returncode, p.stderr))
    p = subprocess.run([hwt, "dump", "--spe", "--packets", work], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    if p.returncode != 2 or "--spe" not in p.stderr:
        fail("hwt dump --spe --packets: exit %d, %r" % (p.returncode, p.stderr))


def functions(maps, bid):
    """Sorted (file offset, name) of the functions of the image build-id bid."""
    path = maps.paths[bid]
    segs = []
    for line in run(["aarch64-linux-gnu-readelf", "-lW", path]).splitlines():
        w = line.split()
        if w and w[0] == "LOAD":
            segs.append((int(w[2], 16), int(w[1], 16), int(w[4], 16)))  # vaddr, offset, filesz
    syms = []
    for line in run(["aarch64-linux-gnu-nm", "--defined-only", path]).splitlines():
        w = line.split()
        if len(w) == 3 and w[1] in "tT":
            v = int(w[0], 16)
            for vaddr, off, size in segs:
                if vaddr <= v < vaddr + size:
                    syms.append((v - vaddr + off, w[2]))
    return sorted(syms)


def shares(hwt, work, prog, interval):
    bundle = record(hwt, work, "sampled", interval, prog)
    maps = Maps(hwt, bundle)
    _, _, blocks = profile(hwt, bundle, work)
    main = maps.key(maps.ranges[0][0])[0]
    for start, _, _, bid in maps.ranges:
        if maps.paths[bid] == os.path.realpath(prog[0]):
            main = bid
    syms = functions(maps, main)
    offs = [s[0] for s in syms]

    def group(key):
        bid, off = key
        if bid != main:
            return os.path.basename(maps.paths.get(bid, "?"))
        i = bisect.bisect_right(offs, off) - 1
        return syms[i][1] if i >= 0 else "?"

    exact = {}
    for bid, off, n in blocks:
        g = group((bid, off))
        exact[g] = exact.get(g, 0) + n
    total = sum(exact.values())
    sampled = {}
    for pc, _, _, _ in spe_records(hwt, bundle):
        g = group(maps.key(pc))
        sampled[g] = sampled.get(g, 0) + 1
    n = sum(sampled.values())
    print("--spe=%d: %d samples of %d instructions (%.1f per sample)" %
          (interval, n, total, total / max(n, 1)))
    if abs(n - total / interval) > 0.05 * total / interval:
        fail("%d samples, not about %d" % (n, total // interval))
    bad = 0
    for g in sorted(set(exact) | set(sampled), key=lambda g: -exact.get(g, 0)):
        p = exact.get(g, 0) / total
        s = sampled.get(g, 0) / n
        sigma = math.sqrt(max(p * (1 - p), 1e-12) / n)
        tol = 4.5 * sigma + 1.0 / n
        ok = abs(s - p) <= tol
        if p >= 0.01 or not ok:
            print("  %-28s exact %6.2f %%  sampled %6.2f %%  (tolerance %.2f %%)%s" %
                  (g[:28], 100 * p, 100 * s, 100 * tol, "" if ok else "  <- outside"))
        bad += not ok
    if bad:
        fail("%d functions' sampled shares are outside the statistical error" % bad)


def main():
    if len(sys.argv) < 4:
        print(__doc__)
        sys.exit(2)
    hwt, work, prog = sys.argv[1], sys.argv[2], sys.argv[3:]
    if not os.access(prog[0], os.X_OK):
        print("SKIP: %s was not built" % prog[0])
        sys.exit(77)
    for tool in ("qemu-aarch64", "aarch64-linux-gnu-nm", "aarch64-linux-gnu-readelf"):
        if not shutil.which(tool):
            print("SKIP: %s is not installed (scripts/setup.sh --tests)" % tool)
            sys.exit(77)
    os.makedirs(work, exist_ok=True)
    bad_options(hwt, work)
    consistency(hwt, work, prog)
    shares(hwt, work, prog, 100)
    damage(hwt, work)
    print("PASS")


main()
