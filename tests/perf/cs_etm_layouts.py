#!/usr/bin/env python3
"""cs_etm perf.data layouts and damage (docs/perf.md, "cs_etm").

usage: cs_etm_layouts.py HWT PERFDATA_TOOL WORKDIR PROGRAM

Records an aarch64 PROGRAM with the QEMU unit, exports it as cs_etm
perf.data and rewrites that (perfdata_tool copy) in the layouts real perf
files have: AUXTRACE_INFO header versions 1 and 0, ETMv4 and ETE trace
units, unformatted (TRBE) and formatted (ETR, CoreSight frames) AUX data.
For each: Linux perf's raw dump (perf report -D) of the per-CPU metadata
gives the same registers as hwt's reader; perf's own cs_etm decoder lists
the same branches as for the plain export; hwt import gives the bundle's
profile byte for byte. Damaged metadata is refused with a message that
says what is wrong; a file cut anywhere imports what is whole or says why
not, never crashes. Exit 77 when the program was not built or perf is
missing.
"""
import os
import re
import shutil
import subprocess
import sys

hwt, tool, work, program = sys.argv[1:5]
if not os.path.exists(program):
    print("SKIP: %s was not built" % program)
    sys.exit(77)
if not shutil.which("perf"):
    print("SKIP: perf (Debian's linux-perf) is not installed")
    sys.exit(77)
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
failed = 0


def run(*args, **kw):
    return subprocess.run(list(args), capture_output=True, text=True, **kw)


def check(ok, what):
    global failed
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failed += 1


bundle = os.path.join(work, "bundle")
r = run(hwt, "record", "-q", "--unit", "qemu", "-o", bundle, "--", program)
if r.returncode:
    print("FAIL: record: %s" % r.stderr)
    sys.exit(1)
plain = os.path.join(work, "plain.data")
if run(hwt, "export", "-q", "-o", plain, bundle).returncode:
    print("FAIL: export")
    sys.exit(1)
prof = os.path.join(work, "bundle.profile")
run(hwt, "report", "profile", "-o", prof, bundle)
want = open(prof, "rb").read()


def perf_dump(path):
    """perf report -D's raw dump of a file."""
    return run("perf", "report", "-D", "-i", path).stdout


def perf_metadata(out):
    """The AUXTRACE_INFO fields a perf report -D dump prints, as (name, value)."""
    fields, inside = [], False
    for line in out.splitlines():
        if "PERF_RECORD_AUXTRACE_INFO" in line:
            inside = True
            continue
        if inside:
            m = re.match(r"\t(\S.*?)\s{2,}(\S+)$", line)
            if not m:
                break
            if not m.group(1).startswith("Unknown parameter"):
                fields.append((m.group(1).strip(), m.group(2).lower()))
    return fields


def hwt_metadata(path):
    out = run(tool, "cs-etm", path).stdout
    return [tuple(line.rsplit(" ", 1)) for line in out.splitlines()]


def packets(dump):
    """The ETM packets a perf report -D dump lists for each AUXTRACE buffer,
    by thread, without their offsets and trace IDs (which framing changes)."""
    out, tid = {}, None
    for line in dump.splitlines():
        m = re.search(r"PERF_RECORD_AUXTRACE .* tid: (\d+)", line)
        if m:
            tid = m.group(1)
        elif "PERF_RECORD_" in line:
            tid = None
        elif tid and "Idx:" in line:
            out.setdefault(tid, []).append(re.sub(r"Idx:\d+; ID:[0-9a-f]+;", "", line))
    return out


def branches(path):
    p = run("perf", "script", "-i", path, "--itrace=be", "-F", "tid,ip,addr")
    return [line.split() for line in p.stdout.splitlines() if "=>" in line]


plain_branches, plain_packets = branches(plain), packets(perf_dump(plain))
check(len(plain_branches) > 1000, "perf decodes %d branches of the export" % len(plain_branches))
for variant in ["plain", "etm-v0", "etm-ete", "etm-formatted", "etm-null-frame", "etm-ts-source",
                "etm-ete etm-ts-source", "etm-migrate"]:
    data = plain if variant == "plain" else os.path.join(work, variant + ".data")
    if variant != "plain":
        data = data.replace(" ", "+")
        r = run(tool, "copy", plain, data, *variant.split())
        if r.returncode:
            check(False, "%s: perfdata_tool copy: %s" % (variant, r.stderr.strip()))
            continue
    dump = perf_dump(data)
    a, b = perf_metadata(dump), hwt_metadata(data)
    if "ts-source" in variant:
        # perf 6.1 knows no TS_SOURCE: it prints it under another name or none.
        a = [x for x in a if x[0] != "TRCDEVARCH" or "ete" in variant]
        full, b = b, [x for x in b if x[0] != "TS_SOURCE"]
        count = "9" if "ete" in variant else "8"
        ncpus = sum(1 for x in full if x[0] == "Magic number")
        check(full.count(("TS_SOURCE", "1")) == ncpus and
              full.count(("NR_TRC_PARAMS", count)) == ncpus,
              "%s: hwt reads TS_SOURCE of each of %d CPUs (%s registers)" %
              (variant, ncpus, count))
    check(a == b and len(a) > 10, "%s: perf -D and hwt read the same %d metadata fields%s" %
          (variant, len(a), "" if a == b else ": perf %s, hwt %s" %
           ([x for x in a if x not in b][:3], [x for x in b if x not in a][:3])))
    got = branches(data)
    if variant == "etm-formatted":
        # perf 6.1 does not flush OpenCSD's frame decoder when a buffer's
        # last frame fills its packet queue: the branches of the last
        # packets are lost in some recordings (etm-null-frame, a frame
        # after them, shows it). Its packet dump has them all.
        got_packets = packets(dump)
        check(got_packets == plain_packets and len(got_packets) > 1,
              "%s: perf -D lists the same ETM packets in %d buffers" %
              (variant, len(got_packets)))
    # perf 6.1 finds no buffer of a CPU-less per-thread file (the export's
    # reason for a CPU per thread): only hwt's reading of it is checked.
    elif variant != "etm-migrate":
        check(got == plain_branches, "%s: perf's cs_etm decoder lists the same %d branches" %
              (variant, len(got)))
    imp = data + ".imp"
    r = run(hwt, "import", "-q", "-o", imp, data)
    if r.returncode:
        check(False, "%s: import: %s" % (variant, r.stderr.strip()))
        continue
    p = data + ".profile"
    run(hwt, "report", "profile", "-o", p, imp)
    check(open(p, "rb").read() == want, "%s: the import's profile equals the bundle's" % variant)

# Damaged metadata: refused, with what is wrong.
for variant, message in [("etm-bad-magic", "magic number 0x4141414141414141, not ETMv3, ETMv4"),
                         ("etm-cut", "AUXTRACE_INFO ends inside the block of CPU"),
                         ("etm-version3", "AUXTRACE_INFO version 3 (versions 0 to 2"),
                         ("etm-cpus", "CPUs in")]:
    data = os.path.join(work, variant + ".data")
    run(tool, "copy", plain, data, variant)
    r = run(hwt, "import", "-q", "-o", os.path.join(work, variant + ".imp"), data)
    check(r.returncode > 0 and message in r.stderr and "AddressSanitizer" not in r.stderr,
          "%s: refused: %s" % (variant, r.stderr.strip().splitlines()[-1] if r.stderr else ""))

# Cut anywhere: whole images imported or a clear error; never a crash.
blob = open(plain, "rb").read()
for i, cut in enumerate(range(64, len(blob), max(len(blob) // 23, 1))):
    data = os.path.join(work, "cut.data")
    with open(data, "wb") as f:
        f.write(blob[:cut])
    imp = os.path.join(work, "cut.imp")
    shutil.rmtree(imp, ignore_errors=True)
    r = run(hwt, "import", "-q", "-o", imp, data)
    crashed = r.returncode < 0 or r.returncode > 2 or "Sanitizer" in r.stderr
    if crashed or (r.returncode and not r.stderr.strip()):
        check(False, "cut at %d: exit %d: %s" % (cut, r.returncode, r.stderr[-300:]))
        break
    if r.returncode == 0:
        q = run(hwt, "report", "profile", "-o", os.path.join(work, "cut.profile"), imp)
        if q.returncode < 0 or "Sanitizer" in q.stderr:
            check(False, "cut at %d: the report of the import crashed" % cut)
            break
else:
    check(True, "cut at %d places: whole parts imported or a clear error" % (i + 1))
print("cs_etm_layouts: %d failed" % failed)
sys.exit(1 if failed else 0)
