#!/usr/bin/env python3
"""The perf.data library against Linux perf itself.

Records a program with `perf record -e dummy` (software sideband only; this
machine has no trace hardware) in file mode, pipe mode, zstd-compressed,
with context switch records, CPU-wide; then checks that

  1. the library reads every record perf report -D lists, in file order,
     at the same offset with the same size and type;
  2. the sideband records it decodes (COMM, MMAP2, FORK, EXIT, SWITCH,
     SWITCH_CPU_WIDE, ...) say what perf report -D says, time included;
  3. every file written again through the library's writer (file mode, pipe
     mode, compressed) reads in perf report -D as the same records.

usage: reader_vs_perf.py PERFDATA_TOOL WORKDIR PROGRAM
Exit 77 (skipped) when perf is not installed.
"""
import os
import re
import shutil
import subprocess
import sys
from collections import Counter

tool, work, program = sys.argv[1:4]
if not shutil.which("perf"):
    print("SKIP: perf (Debian's linux-perf) is not installed")
    sys.exit(77)
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
failures = 0

RAW = re.compile(r"^(0x[0-9a-f]+|0)@\S+ \[(0x[0-9a-f]+)\]: event: (\d+)$")
# "[CPU ]TIME OFFSET [SIZE]: PERF_RECORD_..." (perf prints the CPU with -a).
EVENT = re.compile(r"^(?:-?\d+ )?(\d+) (?:0x[0-9a-f]+|0) \[0x[0-9a-f]+\]: (PERF_RECORD_\S+.*)$")
MINE = ("COMM", "FORK", "EXIT", "MMAP2", "SWITCH", "SWITCH_CPU_WIDE", "ITRACE_START", "AUX",
        "LOST")


def norm(text):
    return " ".join(text.split())


def perf_dump(path):
    out = subprocess.run(["perf", "report", "-D", "-i", path], capture_output=True,
                         text=True).stdout
    raw, events = [], Counter()
    for line in out.splitlines():
        m = RAW.match(line)
        if m:
            raw.append((int(m.group(1), 16), int(m.group(2), 16), int(m.group(3))))
            continue
        m = EVENT.match(line)
        if m:
            name = m.group(2).split()[0].split("(")[0].rstrip(":")[len("PERF_RECORD_"):]
            if name in MINE:
                events[(int(m.group(1)), norm(m.group(2)))] += 1
    return raw, events


def my_dump(path):
    p = subprocess.run([tool, "dump", path], capture_output=True, text=True)
    raw, events, pipe = [], Counter(), False
    for line in p.stdout.splitlines():
        f = line.split(" ", 2)
        if f[0] == "mode":
            pipe = f[1] == "pipe"
        elif f[0] == "raw":
            rest = f[2].split()
            raw.append((int(f[1], 16) - (16 if pipe else 0), int(rest[0], 16), int(rest[1])))
        elif f[0] == "event":
            t, text = f[1], f[2]
            events[(int(t), norm(text))] += 1
    return p.returncode, raw, events, p.stderr


def check(what, ok, detail=""):
    global failures
    print(("ok   " if ok else "FAIL ") + what + ("" if ok else ": " + detail))
    if not ok:
        failures += 1


def record(name, args, pipe=False):
    path = os.path.join(work, name)
    cmd = ["perf", "record", "-q", "-e", "dummy"] + args + ["-o", "-" if pipe else path,
                                                            "--", program]
    with open(path if pipe else os.devnull, "wb") as out:
        r = subprocess.run(cmd, stdout=out, stderr=subprocess.PIPE)
    if r.returncode != 0:
        print("could not record %s: %s" % (name, r.stderr.decode(errors="replace")))
        return None
    return path


files = [
    record("file.data", []),
    record("pipe.data", [], pipe=True),
    record("zstd.data", ["-z"]),
    record("zstd_pipe.data", ["-z"], pipe=True),
    record("switch.data", ["--switch-events"]),
    record("cpuwide.data", ["--switch-events", "-a"]),
]
for path in files:
    if not path:
        failures += 1
        continue
    name = os.path.basename(path)
    praw, pevents = perf_dump(path)
    rc, mraw, mevents, err = my_dump(path)
    check("%s: read to its end" % name, rc == 0, err.strip())
    check("%s: %d records at perf's offsets, sizes and types" % (name, len(praw)),
          Counter(praw) == Counter(mraw),
          "perf %d, ours %d, first differences %s" % (
              len(praw), len(mraw),
              sorted((Counter(praw) - Counter(mraw)).elements())[:3] +
              sorted((Counter(mraw) - Counter(praw)).elements())[:3]))
    check("%s: %d sideband records decoded as perf decodes them" % (
        name, sum(pevents.values())), pevents == mevents and len(pevents) > 0,
          "only perf: %s; only ours: %s" % (list((pevents - mevents).items())[:3],
                                            list((mevents - pevents).items())[:3]))
    for mode in ("file", "pipe", "compress"):
        out = path + "." + mode
        args = [tool, "copy", path, out] + ([mode] if mode != "file" else [])
        r = subprocess.run(args, capture_output=True, text=True)
        check("%s: written again (%s mode)" % (name, mode), r.returncode == 0, r.stderr)
        if r.returncode:
            continue
        _, cevents = perf_dump(out)
        check("%s: perf reads the %s-mode copy as the original" % (name, mode),
              cevents == pevents,
              "only original: %s; only copy: %s" % (list((pevents - cevents).items())[:3],
                                                    list((cevents - pevents).items())[:3]))
        rc, _, cmine, err = my_dump(out)
        check("%s: the library reads its %s-mode copy back" % (name, mode),
              rc == 0 and cmine == mevents, err.strip())

print("reader_vs_perf: %d failed" % failures)
sys.exit(1 if failures else 0)
