#!/usr/bin/env python3
"""Arm SPE through perf.data: hwt export --spe against Linux perf's arm_spe decoder.

usage: arm_spe.py HWT WORK_DIR SPE_INTERVAL PROGRAM [ARGS...]
       (environment: ARM_SPE_SEED, ARM_SPE_MUTATIONS [24]; ARM_SPE_ORACLE_ONLY=1:
       steps 1 to 3 only, without the other forms)

PROGRAM is an aarch64 build, recorded under the QEMU unit with
--spe=SPE_INTERVAL (docs/perf.md, "Arm SPE (arm_spe)"):

1. `hwt export --spe`, then `perf script -D`: perf's own SPE packet decoder
   lists, buffer by buffer (a thread's), exactly the records `hwt dump --spe`
   lists of that thread, field by field: PC with its exception level and
   security state, operation class and subclass (conditional, indirect,
   store, SIMD&FP), branch target, data virtual address, events, the
   total, issue and translation latencies, context (the thread ID), and
   the timestamp, which the export moves onto its clock: per thread an
   increasing affine map of the bundle's (checked on every record).
2. `perf report` reads the file: exit 0, and its 'memory' samples (perf
   6.1 synthesizes one per load or store record) are exactly the bundle's
   load and store records; with --itrace=i1i an 'instructions' sample per
   record.
3. `hwt import` of the export: `hwt dump --spe` of the new bundle lists
   perf's records, timestamps included; so does the import of the file
   made per-thread (as perf record --per-thread) and of the file with every
   Context packet made Padding (each record then goes to the thread the
   CPU's ITRACE_START names), with PERFDATA_TOOL (tests/perf/perfdata_tool).
4. Bad input: the export cut inside its AUX data imports with a warning
   and keeps every record before the cut; a bad packet header inside one
   record of it imports with a warning that names the place, and every
   other record is kept.
   `hwt export --spe` with --one-cpu, or of a bundle without SPE streams:
   exit status 2 and a message.
5. Fuzz (runs of fewer than 20,000 records): MUTATIONS seeded random bytes
   of the AUX data changed, one at a time (the seed is printed): the import
   exits 0 or 1, keeps every record that ends before the changed byte, and
   a run that lost records says so (but where the byte was a record's End
   or Timestamp header, now another packet's: two records become one that
   decodes, which nothing in SPE data can tell from a real record).

Exit 77 (skipped) without perf or the aarch64 program.
"""
import os
import random
import re
import shutil
import subprocess
import sys


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def run(cmd, ok=(0,), **kw):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)
    if p.returncode not in ok:
        sys.stderr.write(p.stderr[-4000:])
        fail("%s exited %d" % (" ".join(cmd), p.returncode))
    return p


# hwt's event names -> perf's (arm-spe-pkt-decoder.c prints these).
EVENTS = {"EXCEPTION": "EXCEPTION-GEN", "TLB-WALK": "TLB-REFILL", "LLC-MISS": "LLC-REFILL",
          "REMOTE": "REMOTE-ACCESS"}


def hwt_record(line):
    """One `hwt dump --spe` line as a dict of fields (see converters/dump/spe.c)."""
    r = {}
    words = line.split()[1:]
    i = 0
    while i < len(words):
        w = words[i]
        if w.startswith("pc="):
            r["pc"] = (int(w[3:], 16), int(words[i + 1][2:]), words[i + 2] == "ns")
            i += 3
            continue
        key, _, value = w.partition("=")
        if key == "op":
            parts = value.split("-")
            r["op"] = (parts[0], "COND" in parts, "IND" in parts, "SIMD" in parts)
        elif key in ("target", "va"):
            r[key] = int(value, 16)
        elif key == "ev":
            r["ev"] = frozenset(EVENTS.get(e, e) for e in value.split(",") if e != "NONE")
        elif key in ("tot", "issue", "xlat", "ctx", "ts"):
            r[key] = int(value)
        else:
            r[key] = value
        i += 1
    return r


def hwt_records(hwt, bundle, lossy=False):
    """tid -> its records in order (a thread's streams by generation). A lossy
    bundle (an import of damage) is listed with exit status 1 (data lost)."""
    streams = {}
    cur = None
    for line in run([hwt, "dump", "--spe", bundle], ok=(0, 1) if lossy else (0,)).stdout.splitlines():
        m = re.match(r"^spe (\d+)\.(\d+)-(\d+) ", line)
        if m:
            cur = []
            streams[(int(m.group(3)), int(m.group(2)))] = cur
        elif line.startswith("  0x"):
            if " error: " in line:
                fail("hwt dump --spe of %s: %s" % (bundle, line.strip()))
            cur.append(hwt_record(line))
    out = {}
    for (tid, _gen) in sorted(streams):
        out.setdefault(tid, []).extend(streams[(tid, _gen)])
    return out


AUXTRACE = re.compile(r" (0x[0-9a-f]+) \[(0x[0-9a-f]+)\]: PERF_RECORD_AUXTRACE size: (0x[0-9a-f]+)"
                      r"\s+offset: \S+\s+ref: \S+\s+idx: \d+\s+tid: (-?\d+)\s+cpu: (-?\d+)")
PACKET = re.compile(r"^\.  ([0-9a-f]{8}):  (?:[0-9a-f]{2} )+\s*(.*)$")


def perf_records(perf_data):
    """perf script -D: tid -> records, and the file offset of each buffer's data."""
    p = run(["perf", "script", "-D", "-i", perf_data])
    out, buffers, ends, terms = {}, [], {}, {}
    tid, cur, rec = None, None, {}
    for line in p.stdout.splitlines():
        m = AUXTRACE.search(line)
        if m:
            tid = int(m.group(4))
            buffers.append((int(m.group(1), 16) + int(m.group(2), 16), int(m.group(3), 16), tid))
            cur = out.setdefault(tid, [])
            continue
        m = PACKET.match(line)
        if not m or cur is None:
            continue
        desc = m.group(2).split()
        if not desc:
            fail("perf lists a packet it cannot describe: %r" % line)
        kind = desc[0]
        if kind == "Bad":
            fail("perf's arm_spe decoder: a bad packet: %r" % line)
        if kind == "PAD":
            continue
        if kind == "CONTEXT":
            rec["ctx"] = int(desc[1], 16)
        elif kind == "PC":
            rec["pc"] = (int(desc[1], 16), int(desc[2][2:]), desc[3] == "ns=1")
        elif kind == "TGT":
            rec["target"] = int(desc[1], 16)
        elif kind == "VA":
            rec["va"] = int(desc[1], 16)
        elif kind in ("OTHER", "B", "LD", "ST"):
            rec["op"] = (kind, "COND" in desc or "COND-SELECT" in desc, "IND" in desc,
                         "SIMD-FP" in desc)
        elif kind == "EV":
            rec["ev"] = frozenset(desc[1:])
        elif kind == "LAT":
            rec[desc[2].lower() if desc[2] != "TOT" else "tot"] = int(desc[1])
        elif kind in ("TS", "END"):
            if kind == "TS":
                rec["ts"] = int(desc[1])
            cur.append(rec)
            ends.setdefault(tid, []).append(int(m.group(1), 16) + (9 if kind == "TS" else 1))
            terms.setdefault(tid, set()).add(int(m.group(1), 16))
            rec = {}
        else:
            fail("perf lists a packet hwt does not write: %r" % line)
    perf_records.ends, perf_records.terms = ends, terms
    return out, buffers


def same_records(name, want, got, ts_exact):
    """Field by field; timestamps equal, or one increasing affine map of want's."""
    if sorted(want) != sorted(got):
        fail("%s: threads %s, wanted %s" % (name, sorted(got), sorted(want)))
    total = 0
    for tid in want:
        a, b = want[tid], got[tid]
        if len(a) != len(b):
            fail("%s: thread %d has %d records, wanted %d" % (name, tid, len(b), len(a)))
        pairs = sorted({(x["ts"], y["ts"]) for x, y in zip(a, b)})
        if not ts_exact and len(pairs) > 1:
            (t0, u0), (t1, u1) = pairs[0], pairs[-1]
            scale = (u1 - u0) // (t1 - t0) if t1 != t0 else 0
            if scale <= 0 or any(u != u0 + (t - t0) * scale for t, u in pairs):
                fail("%s: thread %d: the timestamps are no affine map of the bundle's" %
                     (name, tid))
        for i, (x, y) in enumerate(zip(a, b)):
            x, y = dict(x), dict(y)
            if not ts_exact:
                x.pop("ts"), y.pop("ts")
            if x != y:
                fail("%s: thread %d record %d: %r, wanted %r" % (name, tid, i, y, x))
        total += len(a)
    return total


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    hwt, work, interval, prog = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]
    if not os.access(prog[0], os.X_OK):
        print("SKIP: %s is not built (aarch64 cross compiler)" % prog[0])
        sys.exit(77)
    if not shutil.which("perf"):
        print("SKIP: no perf (linux-perf)")
        sys.exit(77)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    bundle = os.path.join(work, "bundle")
    p = subprocess.run([hwt, "record", "-q", "--unit", "qemu", "--trace-all",
                        "--spe=%d" % interval, "-o", bundle, "--"] + prog,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        sys.stderr.write(p.stderr)
        fail("hwt record --spe=%d exited %d" % (interval, p.returncode))
    want = hwt_records(hwt, bundle)
    if not want or not any(want.values()):
        fail("no SPE records in the bundle")

    # 1. perf's arm_spe decoder lists hwt's records.
    data = os.path.join(work, "spe.data")
    run([hwt, "export", "-q", "--spe", "-o", data, bundle])
    got, buffers = perf_records(data)
    n = same_records("perf script -D", want, got, ts_exact=False)
    print("perf script -D: %d records of %d threads, as hwt dump --spe" % (n, len(want)))

    # 2. perf report reads it: a 'memory' sample per load and store.
    rep = run(["perf", "report", "-i", data, "--stdio"])
    m = re.search(r"# Samples: (\d+)(K?) of event 'memory'", rep.stdout)
    ldst = sum(1 for recs in want.values() for r in recs if r.get("op", ("",))[0] in ("LD", "ST"))
    if not m:
        fail("perf report: no 'memory' samples: %r" % rep.stdout[:400])
    if m.group(2) == "K":
        shown = int(re.search(r"# Event count \(approx.\): (\d+)", rep.stdout).group(1))
    else:
        shown = int(m.group(1))
    if shown != ldst or not ldst:
        fail("perf report: %d memory samples, the bundle has %d loads and stores" % (shown, ldst))
    print("perf report: %d memory samples = the loads and stores" % shown)
    rep = run(["perf", "report", "-i", data, "--stdio", "--itrace=i1i"])
    m = re.search(r"# Event count \(approx.\): (\d+)", rep.stdout)
    if "of event 'instructions'" not in rep.stdout or not m or int(m.group(1)) != n:
        fail("perf report --itrace=i1i: not an instructions sample per record (%d): %r" %
             (n, rep.stdout[:400]))
    print("perf report --itrace=i1i: %d instructions samples = the records" % n)

    # 3. The import of the export lists perf's records.
    back = os.path.join(work, "import")
    run([hwt, "import", "-q", "-o", back, data])
    same_records("hwt import", got, hwt_records(hwt, back), ts_exact=True)
    print("hwt import: the same records")
    if os.environ.get("ARM_SPE_ORACLE_ONLY"):
        return
    # Bad requests: exit status 2 and a message.
    p = run([hwt, "export", "--spe", "--one-cpu", "-o", os.path.join(work, "x.data"), bundle],
            ok=(2,))
    if "one-CPU form" not in p.stderr:
        fail("hwt export --spe --one-cpu: %r" % p.stderr)
    bare = os.path.join(work, "no_spe")
    shutil.copytree(bundle, bare)
    for name in os.listdir(os.path.join(bare, "spe")):
        os.unlink(os.path.join(bare, "spe", name))
    p = run([hwt, "export", "--spe", "-o", os.path.join(work, "x.data"), bare], ok=(2,))
    if "no SPE streams" not in p.stderr:
        fail("hwt export --spe of a bundle without SPE streams: %r" % p.stderr)
    tool = os.environ.get("PERFDATA_TOOL")
    if tool:
        # perf record --per-thread's form, and records without Context
        # packets (the thread then from the CPU's ITRACE_START).
        for form in ("spe-per-thread", "spe-no-context"):
            path = os.path.join(work, form + ".data")
            run([tool, "copy", data, path, form])
            out = os.path.join(work, form)
            run([hwt, "import", "-q", "-o", out, path])
            mine = hwt_records(hwt, out)
            if form == "spe-no-context":
                want_form = {t: [{k: v for k, v in r.items() if k != "ctx"} for r in recs]
                             for t, recs in got.items()}
                if any("ctx" in r for recs in mine.values() for r in recs):
                    fail("%s: a Context packet is left" % form)
            else:
                want_form = got
            same_records("hwt import of " + form, want_form, mine, ts_exact=True)
            print("hwt import of %s: the same records" % form)

    # 4a. Cut inside the AUX data: the records before the cut are kept.
    raw = open(data, "rb").read()
    start, size, tid = max(buffers, key=lambda b: b[1])
    cut = os.path.join(work, "cut.data")
    with open(cut, "wb") as f:
        f.write(raw[:start + size // 2])
    cut_bundle = os.path.join(work, "cut")
    p = run([hwt, "import", "-o", cut_bundle, cut], ok=(0, 1))
    if "cut" not in p.stderr:
        fail("import of a cut file: no warning of the cut: %r" % p.stderr)
    kept = hwt_records(hwt, cut_bundle, lossy=True).get(tid, [])
    full = got[tid]
    if not kept or len(kept) >= len(full) or kept != full[:len(kept)]:
        fail("import of a cut file: %d records of thread %d, not the first of its %d" %
             (len(kept), tid, len(full)))
    print("cut at byte %d: %d of %d records kept" % (start + size // 2, len(kept), len(full)))

    # 4b. A bad header byte inside one record in the middle: said, the rest kept.
    # A record's PC packet, found from perf's listing (where a record ends
    # the next begins, with its Context packet (0x64, 5 bytes) or its PC
    # packet (0xb0)): a 0xb0 byte met by scanning may be a payload's.
    rel = None
    for e in perf_records.ends[tid]:
        if size // 2 <= e < size - 16:
            rel = e + 5 if raw[start + e] == 0x64 else e
            if raw[start + rel] == 0xb0:
                break
            rel = None
    if rel is None:
        fail("no record of thread %d with a PC packet after byte %d" % (tid, size // 2))
    at = start + rel
    bad = bytearray(raw)
    bad[at] = 0x0f                   # no packet has this header
    damaged = os.path.join(work, "damaged.data")
    open(damaged, "wb").write(bad)
    dam_bundle = os.path.join(work, "damaged")
    p = run([hwt, "import", "-o", dam_bundle, damaged], ok=(0, 1))
    if not re.search(r"SPE data of CPU \d+: .* at byte %d: \d+ bytes from \d+ left out" %
                     (at - start), p.stderr):
        fail("import of a damaged file: no warning naming byte %d: %r" % (at - start, p.stderr))
    kept = hwt_records(hwt, dam_bundle, lossy=True).get(tid, [])
    lost = len(full) - len(kept)
    # The damaged record goes, and those the resynchronisation cannot tell
    # from damage; every other one stays, in order.
    head = next(i for i in range(len(kept) + 1) if i == len(kept) or kept[i] != full[i])
    if not 1 <= lost <= 2 or kept[head:] != full[head + lost:]:
        fail("import of a damaged file: %d of %d records kept, not all but the damaged" %
             (len(kept), len(full)))
    print("bad header at byte %d of the AUX data: %d of %d records kept" %
          (at - start, len(kept), len(full)))

    if sum(len(r) for r in got.values()) < 20000:
        fuzz(hwt, work, raw, buffers, got, perf_records.ends, perf_records.terms)


def fuzz(hwt, work, raw, buffers, got, ends, terms):
    seed = int(os.environ.get("ARM_SPE_SEED", "0") or 0) or random.randrange(1, 1 << 31)
    count = int(os.environ.get("ARM_SPE_MUTATIONS", "24"))
    rng = random.Random(seed)
    print("fuzz: %d mutations of the AUX data, seed %d (ARM_SPE_SEED)" % (count, seed))
    # Only threads with one buffer: offsets in it are offsets in the thread's data.
    single = [b for b in buffers if sum(1 for c in buffers if c[2] == b[2]) == 1 and b[1]]
    for i in range(count):
        start, size, tid = rng.choice(single)
        at = rng.randrange(size)
        data = bytearray(raw)
        data[start + at] = (data[start + at] + rng.randrange(1, 256)) & 0xff
        path = os.path.join(work, "fuzz.data")
        open(path, "wb").write(data)
        out = os.path.join(work, "fuzz")
        shutil.rmtree(out, ignore_errors=True)
        p = run([hwt, "import", "-o", out, path], ok=(0, 1))
        kept = hwt_records(hwt, out, lossy=True).get(tid, [])
        before = sum(1 for e in ends[tid] if e <= at)
        what = "mutation %d (seed %d): byte %d of thread %d's AUX data" % (i, seed, at, tid)
        if kept[:before] != got[tid][:before]:
            fail("%s: the %d records before it are not all kept" % (what, before))
        # A record's End or Timestamp header changed into another packet's
        # joins two records into one that decodes: SPE has no sync packet
        # or checksum to tell that from data. Any other loss is said.
        if len(kept) < len(got[tid]) and "SPE data of CPU" not in p.stderr and \
                at not in terms[tid]:
            fail("%s: %d of %d records, and no warning" % (what, len(kept), len(got[tid])))


if __name__ == "__main__":
    main()
