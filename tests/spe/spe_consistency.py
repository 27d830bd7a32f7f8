#!/usr/bin/env python3
"""The software SPE unit against the ETMv4 trace of the same run.

usage: spe_consistency.py HWT WORK_DIR PROGRAM [ARGS...]

Records PROGRAM (an aarch64 build) twice under the QEMU unit with both
streams, ETMv4 and SPE:

1. --spe=1: every operation is sampled, so the profile made from the SPE
   samples (hwt report profile --trace spe) must equal the profile decoded
   from the ETMv4 stream (hwt report profile --trace etm): the same edges
   with the same kinds and counts (calls, returns, jumps, conditional
   branches taken and not taken), the same instructions executed; its
   header comment says it is sampled, at interval 1. Every record is also
   checked by `hwt dump --spe`'s listing (one line each: PC, op, target,
   events...), and by default (no --trace) the report takes the ETMv4
   stream. From the same bundle: the BOLT profile and the lcov records
   from SPE equal the ETMv4 ones (the coverage labelled sampled), the flat
   folded stacks equal the ETMv4 stacks' leaves, llvm-profdata reads the
   SPE sample profile and clang compiles the source with it. Then
   --spe=1 --no-etm: a bundle without ETMv4 streams, whose report counts
   from SPE by default (the main program's edges as the ETMv4 trace's).
2. --spe=100: each sample is one operation in about 100; the instructions
   per function in the SPE profile (the main program's functions by their
   symbols, each library as one) must match the function's exact share
   (from the ETMv4 profile of that run) within 4.5 standard deviations of
   a binomial share, and the samples its header counts total/100 within
   5 %.
0. Bad --spe values, --no-etm without --spe, --spe with another unit, hwt dump --spe with
   --packets: exit status 2 and a message.
3. The first bundle's SPE file damaged (a bad header byte inside a record,
   then a cut inside the last one): `hwt dump --spe` exits 1, lists every
   record before the damage as before, an error line where it is, and
   goes on with the records after it; hwt report profile --trace spe
   exits 1 with a warning naming the file, the byte and the bytes lost,
   and its profile keeps every sample but those of the damaged records.
   Without its SPE files, --trace spe exits 2 saying so; so does a
   --trace that is neither etm nor spe.

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


def record(hwt, work, name, spe, prog, extra=()):
    bundle = os.path.join(work, name)
    shutil.rmtree(bundle, ignore_errors=True)
    p = subprocess.run([hwt, "record", "-q", "--unit", "qemu", "--trace-all", "--spe=%d" % spe]
                       + list(extra) + ["-o", bundle, "--"] + prog, stdout=subprocess.DEVNULL,
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

    def main(self, prog):
        """The build-id of the program itself."""
        for bid, path in self.paths.items():
            if path == os.path.realpath(prog[0]):
                return bid
        fail("%s is not among the mapped images" % prog[0])

    def key(self, addr):
        i = bisect.bisect_right(self.starts, addr) - 1
        if i >= 0 and addr < self.ranges[i][1]:
            start, _, pgoff, bid = self.ranges[i]
            return (bid, addr - start + pgoff)
        return ("?", addr)


SAMPLED = re.compile(r"^# sampled: counts from SPE samples \(interval (\d+), (\d+) samples")


def profile(hwt, bundle, work, trace=None, status=0, expect_sampled=None):
    """(edges by kind, blocks, (interval, samples) or None) of hwt report profile
    [--trace TRACE], keyed by build-id; status: the exit status wanted."""
    out = os.path.join(work, os.path.basename(bundle) + "." + (trace or "default") + ".prof")
    cmd = [hwt, "report", "profile", "-o", out, bundle] + (["--trace", trace] if trace else [])
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != status:
        sys.stderr.write(p.stderr)
        fail("%s exited %d, wanted %d" % (" ".join(cmd), p.returncode, status))
    images, edges, blocks, sampled = {}, {}, [], None
    with open(out) as f:
        for line in f:
            w = line.split()
            m = SAMPLED.match(line)
            if m:
                sampled = (int(m.group(1)), int(m.group(2)))
            elif w[0] == "image":
                images[w[1]] = w[3]
            elif w[0] == "edge":
                k = ((images[w[1]], int(w[2], 16)), (images[w[3]], int(w[4], 16)), w[5])
                edges[k] = edges.get(k, 0) + int(w[6])
            elif w[0] == "block":
                blocks.append((images[w[1]], int(w[2], 16), int(w[4]) * int(w[5])))
    if expect_sampled is None:
        expect_sampled = trace == "spe"
    if expect_sampled != (sampled is not None):
        fail("%s: the profile's header %s" % (" ".join(cmd), "does not say it is sampled"
                                               if expect_sampled else "says it is sampled"))
    if expect_sampled and "counts from SPE samples" not in p.stderr:
        fail("%s does not say on stderr where its counts come from: %r" % (" ".join(cmd), p.stderr))
    return edges, blocks, sampled, p.stderr


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
    etm, blocks, _, _ = profile(hwt, bundle, work, "etm")
    default, _, _, _ = profile(hwt, bundle, work)
    if default != etm:
        fail("hwt report profile without --trace did not take the ETMv4 stream")
    spe, spe_blocks, sampled, _ = profile(hwt, bundle, work, "spe")
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
    # The listing's branch records against the report's SPE edges.
    listed = {}
    for table in (spe_taken, spe_not):
        for k, n in table.items():
            listed[k] = listed.get(k, 0) + n
    reported = {}
    for (a, b, _), n in spe.items():
        reported[(a, b)] = reported.get((a, b), 0) + n
    if sum(listed.values()) != sum(reported.values()):
        fail("hwt report profile --trace spe counts %d branch executions, hwt dump --spe lists %d"
             % (sum(reported.values()), sum(listed.values())))
    spe_total = sum(n for _, _, n in spe_blocks)
    if sampled != (1, records) or spe_total != total:
        fail("the SPE profile: header %r, %d instructions; wanted (1, %d) and %d" %
             (sampled, spe_total, records, total))
    reports(hwt, work, bundle, prog, 1)
    spe_only(hwt, work, prog, etm)
    for name, want in (("taken", lambda k: k[2] != "cond-not-taken"),
                       ("not-taken", lambda k: k[2] == "cond-not-taken")):
        e = {k: n for k, n in etm.items() if want(k)}
        s_ = {k: n for k, n in spe.items() if want(k)}
        diff = [(k, e.get(k, 0), s_.get(k, 0)) for k in set(e) | set(s_)
                if e.get(k, 0) != s_.get(k, 0)]
        print("%s branches: %d edges, %d executions (ETMv4), %d edges, %d executions "
              "(hwt report profile --trace spe)" %
              (name, len(e), sum(e.values()), len(s_), sum(s_.values())))
        if diff:
            for k, a, b in sorted(diff)[:20]:
                print("  %s+0x%x -> %s+0x%x %s: ETMv4 %d, SPE %d" %
                      (k[0][0][:8], k[0][1], k[1][0][:8], k[1][1], k[2], a, b))
            fail("%d %s branch edges differ between SPE and ETMv4" % (len(diff), name))


MISSING = []


def tool(*names):
    """The first of names on PATH, else None (said at the end: exit 77)."""
    for n in names:
        if shutil.which(n):
            return n
    MISSING.append(names[-1])
    return None


def trace_report(hwt, kind, trace, bundle, out, status=0):
    """hwt report KIND --trace TRACE BUNDLE -o OUT, which must exit with
    status: its stderr."""
    p = subprocess.run([hwt, "report", kind, "--trace", trace, bundle, "-o", out],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != status:
        fail("hwt report %s --trace %s exited %d, wanted %d: %s" %
             (kind, trace, p.returncode, status, p.stderr))
    return p.stderr


def flat(hwt, work, bundle, interval):
    """The flat flame graph from SPE: folded stacks of one root and one frame
    per function; at --spe=1 each named function's weight equals the
    instructions the ETMv4 stacks count in it (their leaves' self weights);
    the SVG's subtitle says estimated; timelines are refused (exit 2)."""
    folded = {}
    for trace in ("etm", "spe"):
        f = os.path.join(work, "%s.%s.folded" % (os.path.basename(bundle), trace))
        trace_report(hwt, "folded", trace, bundle, f)
        folded[trace] = {}
        roots = set()
        for line in open(f):
            stack, n = line.rsplit(" ", 1)
            frames = stack.split(";")
            roots.add(frames[0])
            if trace == "spe" and len(frames) != 2:
                fail("hwt report folded --trace spe: not flat: %r" % line)
            leaf = frames[-1]
            folded[trace][leaf] = folded[trace].get(leaf, 0) + int(n)
        if trace == "spe" and (len(roots) != 1 or not roots.pop().endswith("[SPE samples]")):
            fail("hwt report folded --trace spe: roots %r" % roots)
    named = [k for k in folded["spe"] if "[no symbol]" not in k]
    if "main" not in named:
        fail("hwt report folded --trace spe: no main frame")
    if interval == 1:
        diff = [(k, folded["etm"].get(k), folded["spe"][k]) for k in named
                if folded["etm"].get(k) != folded["spe"][k]]
        if diff:
            fail("flat SPE frames against the ETMv4 stacks' leaves: %r" % diff[:10])
    print("hwt report folded --trace spe: %d functions, %d instructions (estimated)" %
          (len(folded["spe"]), sum(folded["spe"].values())))
    svg = os.path.join(work, os.path.basename(bundle) + ".spe.svg")
    trace_report(hwt, "flame", "spe", bundle, svg)
    if "estimated: flat, SPE samples (interval %d" % interval not in open(svg).read():
        fail("hwt report flame --trace spe: no 'estimated' subtitle")
    err = trace_report(hwt, "speedscope", "spe", bundle, os.path.join(work, "x.json"), status=2)
    if "no calls" not in err:
        fail("hwt report speedscope --trace spe: %r" % err)


def reports(hwt, work, bundle, prog, interval):
    """The BOLT and LLVM sample profiles and the coverage from the SPE samples:
    at --spe=1 the fdata and the lcov records equal the ETMv4 ones; the
    coverage is labelled sampled; llvm-profdata reads the sample profile and
    clang compiles the program's source with it (a sample profile in its IR)."""
    out = {}
    for trace in ("etm", "spe"):
        f = os.path.join(work, "%s.%s.fdata" % (os.path.basename(bundle), trace))
        err = trace_report(hwt, "bolt", trace, bundle, f)
        if (trace == "spe") != ("sampled counts from SPE samples (interval %d" % interval
                                in err):
            fail("hwt report bolt --trace %s: %r" % (trace, err))
        out[trace] = open(f).read().splitlines()
    branches = [l for l in out["spe"] if l.startswith("1 ")]
    print("hwt report bolt --trace spe: %d fdata lines, %d branches" %
          (len(out["spe"]), len(branches)))
    if not branches:
        fail("the BOLT profile from SPE has no branch")
    if interval == 1 and out["spe"] != out["etm"]:
        fail("the BOLT profiles from SPE and ETMv4 differ at --spe=1")
    # Coverage: labelled sampled (lcov test name, the summary); at --spe=1 the
    # same lines, functions and branches as the ETMv4 trace's.
    info = {}
    for trace in ("etm", "spe"):
        f = os.path.join(work, "%s.%s.info" % (os.path.basename(bundle), trace))
        err = trace_report(hwt, "lcov", trace, bundle, f)
        if (trace == "spe") != ("SAMPLED coverage, from SPE samples (interval %d" % interval
                                in err):
            fail("hwt report lcov --trace %s: sampled or not, its summary does not say: %r" %
                 (trace, err[-400:]))
        lines = open(f).read().splitlines()
        tns = {l for l in lines if l.startswith("TN:")}
        if tns != {"TN:spe_sampled" if trace == "spe" else "TN:"}:
            fail("hwt report lcov --trace %s: test names %r" % (trace, tns))
        info[trace] = [l for l in lines if not l.startswith("TN:")]
    if not any(l.startswith("DA:") for l in info["spe"]):
        fail("hwt report lcov --trace spe: no line")
    if interval == 1 and info["spe"] != info["etm"]:
        fail("the coverage from SPE and ETMv4 differ at --spe=1")
    flat(hwt, work, bundle, interval)
    afdo = os.path.join(work, os.path.basename(bundle) + ".spe.afdo")
    if "sampled counts from SPE samples" not in trace_report(hwt, "afdo", "spe", bundle, afdo):
        fail("hwt report afdo --trace spe: its counts are not said sampled")
    profdata, clang = tool("llvm-profdata-19", "llvm-profdata"), tool("clang-19", "clang")
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "programs",
                       os.path.basename(prog[0]).replace("_o2", "") + ".c")
    if not profdata or not clang:
        return
    shown = run([profdata, "show", "--sample", afdo])
    if "Function: main" not in shown:
        fail("llvm-profdata show of the SPE sample profile names no main: %r" % shown[:300])
    ir = run([clang, "--target=aarch64-linux-gnu", "-O2", "-g", "-fprofile-sample-use=" + afdo,
              "-S", "-emit-llvm", "-o", "-", src])
    if '!"ProfileFormat", !"SampleProfile"' not in ir:
        fail("clang -fprofile-sample-use with the SPE profile: no sample profile in the IR")
    print("hwt report afdo --trace spe: llvm-profdata reads it, clang compiles %s with it" %
          os.path.basename(src))


def spe_only(hwt, work, prog, etm):
    """--spe=1 --no-etm: no ETMv4 stream, the header's trace is spe, and hwt
    report profile (no --trace) counts from the samples: the main program's
    edges equal the ETMv4 profile's of the run with both (etm)."""
    bundle = record(hwt, work, "spe-only", 1, prog, ["--no-etm"])
    if os.listdir(os.path.join(bundle, "streams")) or not os.listdir(os.path.join(bundle, "spe")):
        fail("--no-etm: streams %r, spe %r" % (os.listdir(os.path.join(bundle, "streams")),
                                               os.listdir(os.path.join(bundle, "spe"))))
    if "trace=spe\n" not in open(os.path.join(bundle, "hwt-bundle")).read():
        fail("--no-etm: the bundle's header does not say trace=spe")
    edges, _, sampled, _ = profile(hwt, bundle, work, None, expect_sampled=True)
    main = Maps(hwt, bundle).main(prog)

    def own(table):
        return {k: n for k, n in table.items() if k[0][0] == main and k[1][0] == main}
    if not own(edges) or own(edges) != own(etm):
        fail("--no-etm: the main program's %d edges differ from the ETMv4 profile's %d" %
             (len(own(edges)), len(own(etm))))
    print("--spe=1 --no-etm: no ETMv4 stream; hwt report profile counts from SPE (%d samples), "
          "the main program's %d edges as the ETMv4 trace's" % (sampled[1], len(own(edges))))


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
    # The report: exit 1, a warning with the file, the byte and the bytes lost,
    # every sample kept but those of the damaged records.
    _, blocks, sampled, err = profile(hwt, bundle, work, "spe", status=1)
    if "SPE data damaged at byte %d" % (bad + 5) not in err or name not in err or \
            "bytes dropped" not in err:
        fail("hwt report profile --trace spe: no warning naming the damage: %r" % err)
    if sampled[1] != kept or sum(n for _, _, n in blocks) != kept:
        fail("hwt report profile --trace spe of the damaged file: %d samples, %d counted; "
             "hwt dump --spe lists %d" % (sampled[1], sum(n for _, _, n in blocks), kept))
    print("damaged: %d of %d records kept; %s" % (kept, len(offsets), errors[0].strip()))
    # No SPE records at all, or a --trace no one knows: exit 2 and why.
    shutil.rmtree(spe_dir)
    for args, words in ((["--trace", "spe"], "has no SPE records"),
                        (["--trace", "pt"], "--trace wants etm or spe")):
        p = subprocess.run([hwt, "report", "profile", "-o", os.path.join(work, "none.prof"),
                            bundle] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True)
        if p.returncode != 2 or words not in p.stderr:
            fail("hwt report profile %s: exit %d, %r" % (" ".join(args), p.returncode, p.stderr))


def bad_options(hwt, work):
    """--spe's bad values and units: exit status 2, a message naming the option."""
    for args, words in ((["--spe=0"], "--spe wants"), (["--spe=x"], "--spe wants"),
                        (["--no-etm"], "--no-etm needs --spe"),
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
    _, blocks, _, _ = profile(hwt, bundle, work, "etm")
    _, spe_blocks, sampled, _ = profile(hwt, bundle, work, "spe")
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
    reports(hwt, work, bundle, prog, interval)
    if sampled is None or sampled[0] != interval:
        fail("the SPE profile's header says interval %r, not %d" % (sampled, interval))
    listed = len(spe_records(hwt, bundle))
    if sampled[1] != listed:
        fail("the SPE profile counts %d samples, hwt dump --spe lists %d" % (sampled[1], listed))
    counted = {}
    for bid, off, count in spe_blocks:
        if count % interval:
            fail("an SPE count %d that is not a multiple of the interval %d" % (count, interval))
        g = group((bid, off))
        counted[g] = counted.get(g, 0) + count // interval
    n = sampled[1]
    if sum(counted.values()) != n:
        fail("the SPE profile's blocks hold %d samples, its header says %d" %
             (sum(counted.values()), n))
    print("--spe=%d: %d samples of %d instructions (%.1f per sample; hwt report profile "
          "--trace spe estimates %d)" % (interval, n, total, total / max(n, 1),
                                         sum(c for _, _, c in spe_blocks)))
    if abs(n - total / interval) > 0.05 * total / interval:
        fail("%d samples, not about %d" % (n, total // interval))
    bad = 0
    for g in sorted(set(exact) | set(counted), key=lambda g: -exact.get(g, 0)):
        p = exact.get(g, 0) / total
        s = counted.get(g, 0) / n
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
    if MISSING:
        print("SKIP: the rest passed; %s not installed (scripts/setup.sh --tests)" %
              ", ".join(sorted(set(MISSING))))
        sys.exit(77)
    print("PASS")


main()
