#!/usr/bin/env python3
"""Damaged perf.data into hwt import: a clear message, and what came before
the damage kept.

usage: damage_test.py HWT PERFDATA_TOOL PROFILE_TOOL WORKDIR PROGRAM

Records PROGRAM (fork_exec: several processes and threads), exports it, and
damages the file: wrong magic, the other byte order, a header cut short,
the file cut inside AUX data and inside the sideband, a feature section out
of range, hwt's own section out of range, records of absurd sizes, an AUXTRACE record claiming 2^60 bytes,
one thread's AUX data removed (the kernel's AUX records still say it was
written), a pipe-mode file cut short. Each case checks the import's exit
status and message, that every record before the damage was read (the
library's dump), and the import's counts against the undamaged one's: equal
where nothing that decodes was lost, never more anywhere.
"""
import os
import re
import shutil
import struct
import subprocess
import sys

hwt, tool, profile_tool, work, program = sys.argv[1:6]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
failures = 0


def run(args, stdin=None):
    with open(stdin, "rb") if stdin else open(os.devnull, "rb") as f:
        p = subprocess.run(args, stdin=f, capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def check(what, ok, detail=""):
    global failures
    print(("ok   " if ok else "FAIL ") + what + ("" if ok else ": " + detail.strip()[:800]))
    failures += 0 if ok else 1


bundle = os.path.join(work, "b")
rc, out = run([hwt, "record", "-q", "--unit", "valgrind", "-o", bundle, "--", program])
good = os.path.join(work, "good.data")
rc2, out2 = run([hwt, "export", "-q", "-o", good, bundle])
if rc or rc2:
    print("FAIL: cannot record and export: " + out + out2)
    sys.exit(1)
data = open(good, "rb").read()


def counts(b):
    """Per-instruction counts {(image, vaddr): count} of a bundle."""
    prof = b + ".prof"
    run([hwt, "report", "profile", "-o", prof, b])
    rc, out = run([profile_tool, "insns", prof])
    c, image = {}, None
    for line in out.splitlines():
        f = line.split()
        if f[0] == "image":
            image = f[1]
        elif len(f) >= 2 and image:
            c[(image, f[0])] = int(f[1])
    return c


full = counts(bundle)
check("the undamaged bundle has counts", len(full) > 1000, "%d" % len(full))

# The file's layout: header, data section, feature table.
data_off, data_size = struct.unpack_from("<QQ", data, 40)
records = []  # (offset, size, type, aux size)
at = data_off
while at < data_off + data_size:
    typ, misc, size = struct.unpack_from("<IHH", data, at)
    aux = struct.unpack_from("<Q", data, at + 8)[0] if typ == 71 else 0
    records.append((at, size, typ, aux))
    at += size + aux
bits = struct.unpack_from("<4Q", data, 72)
features = [f for f in range(256) if bits[f // 64] >> (f % 64) & 1]
auxtrace = [r for r in records if r[2] == 71]
sideband = [r for r in records if r[2] in (1, 3, 4, 7, 10)]


def records_before(cut):
    return sum(1 for r in records if r[0] + r[1] + r[3] <= cut)


def import_case(name, blob, expect_ok, message, compare, min_records=None, pipe=False):
    """Writes blob, imports it, checks status, message, records read, counts."""
    path = os.path.join(work, name + ".data")
    out_dir = os.path.join(work, name)
    with open(path, "wb") as f:
        f.write(blob)
    if pipe:
        rc, out = run([hwt, "import", "-o", out_dir, "-"], stdin=path)
    else:
        rc, out = run([hwt, "import", "-o", out_dir, path])
    # Exit status 1: imported, with warnings (which damage always gives).
    check("%s: import %s" % (name, "succeeds, with warnings" if expect_ok else "fails"),
          rc == (1 if expect_ok else 2), "exit status %d: %s" % (rc, out))
    check("%s: the message says what is wrong" % name, re.search(message, out) is not None,
          "no /%s/ in: %s" % (message, out))
    if min_records is not None:
        rc, dump = run([tool, "dump", path])
        got = sum(1 for line in dump.splitlines() if line.startswith("raw "))
        check("%s: the %d records before the damage were read" % (name, min_records),
              got >= min_records, "%d read" % got)
    if not expect_ok:
        left = os.listdir(out_dir) if os.path.exists(out_dir) else []
        check("%s: no bundle left behind" % name, not left, str(left))
        return
    got = counts(out_dir)
    # A file cut before hwt's section (at its end) loses which images were the
    # trace unit's own, which the bundle does not report: those aside.
    images = {k[0] for k in full}
    got = {k: v for k, v in got.items() if k[0] in images}
    more = [k for k, v in got.items() if v > full.get(k, 0)]
    check("%s: nothing counted that did not run (%d instructions counted)" % (name, len(got)),
          not more, "%d instructions counted more often, e.g. %s" % (len(more), more[:3]))
    if compare == "equal":
        check("%s: the counts equal the undamaged import's" % name, got == full,
              "%d of %d instructions differ" % (sum(1 for k in full if got.get(k) != full[k]),
                                                len(full)))
    elif compare == "some":
        check("%s: what came before the damage still counts" % name, len(got) > 100,
              "%d instructions" % len(got))


# 1-3: the header.
bad = bytearray(data)
bad[0] ^= 0xff
import_case("magic", bytes(bad), False, "not a perf.data file", None)
bad = bytearray(data)
bad[0:8] = bad[0:8][::-1]
import_case("endian", bytes(bad), False, "other byte order", None)
import_case("header_cut", data[:60], False, "ends inside its header|too short", None)

# 4-5: cut inside the AUX data of the second stream, and inside the sideband.
a = auxtrace[1]
cut = a[0] + a[1] + a[3] // 2
import_case("aux_cut", data[:cut], True, r"AUX data .* is cut|ends .* bytes into", "less",
            records_before(cut))
s = sideband[len(sideband) * 2 // 3]
cut = s[0] + s[1] // 2
import_case("sideband_cut", data[:cut], True, r"ends \d+ bytes into a \d+-byte", "some",
            records_before(cut))

# 6: a feature section out of range (the build-id list: MMAP2 carry build-ids too).
bad = bytearray(data)
table = data_off + data_size
k = features.index(2)
struct.pack_into("<Q", bad, table + 16 * k, len(data) + 4096)
import_case("feature_range", bytes(bad), True, "feature section 2 .* outside the file", "equal",
            len(records))

# 6b: hwt's own section (the header's event_types section) out of range.
bad = bytearray(data)
struct.pack_into("<Q", bad, 56, len(data) + 4096)
import_case("hwt_section_range", bytes(bad), True,
            "event_types section .* hwt's own section.* is outside the file", "some", len(records))

# 7: absurd record sizes: past the end of the data, and smaller than a header.
s = sideband[len(sideband) // 2]
bad = bytearray(data)
struct.pack_into("<H", bad, s[0] + 6, 0xfff8)
import_case("size_huge", bytes(bad), True, r"\d+-byte .* record|record of 65528 bytes|too short",
            "less", records_before(s[0]))
bad = bytearray(data)
struct.pack_into("<H", bad, s[0] + 6, 4)
import_case("size_tiny", bytes(bad), True, "record of 4 bytes", "less", records_before(s[0]))

# 8: an AUXTRACE record claiming 2^60 bytes.
a = auxtrace[2]
bad = bytearray(data)
struct.pack_into("<Q", bad, a[0] + 8, 1 << 60)
import_case("aux_absurd", bytes(bad), True, r"AUXTRACE record claims \d+ bytes .* corrupt", "less",
            records_before(a[0]))

# 9: one thread's AUX data removed; its AUX record still says it was written.
a = auxtrace[-1]
gone = a[1] + a[3]
bad = bytearray(data[:a[0]] + data[a[0] + gone:])
struct.pack_into("<Q", bad, 48, data_size - gone)
table = data_off + data_size - gone
for k in range(len(features)):
    off, size = struct.unpack_from("<QQ", bad, table + 16 * k)
    struct.pack_into("<Q", bad, table + 16 * k, off - gone)
import_case("aux_missing", bytes(bad), True, r"AUX data that the kernel wrote are not in the "
            r"file", "less", len(records) - 1)
rc, out = run([hwt, "report", "profile", "-o", os.devnull, os.path.join(work, "aux_missing")])
check("aux_missing: the bundle's readers report the loss", "lost" in out or "dropped" in out, out)

# 10: a pipe-mode file cut short, read from standard input.
pipe = os.path.join(work, "pipe.data")
with open(pipe, "wb") as f:
    subprocess.run([hwt, "export", "-o", "-", bundle], stdout=f, stderr=subprocess.DEVNULL)
blob = open(pipe, "rb").read()
import_case("pipe_cut", blob[:len(blob) * 3 // 4], True, r"ends .* bytes into|AUX data .* cut",
            "less", pipe=True)

print("damage_test: %d failed" % failures)
sys.exit(1 if failures else 0)
