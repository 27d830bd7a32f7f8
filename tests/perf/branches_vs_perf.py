#!/usr/bin/env python3
"""perf's own Intel PT decoder against libipt on an exported bundle.

usage: branches_vs_perf.py ROUNDTRIP_CHECK BUNDLE PERF_DATA [user]

Lists the taken branches of every stream of BUNDLE with libipt
(roundtrip_check --branches) and those `perf script --itrace=be` decodes
from PERF_DATA (hwt export of BUNDLE; Linux perf's decoder, not libipt),
and checks, thread by thread, that they are the same branches in the same
order and that perf reports no decode error. Trace begin and end (perf's
branches from or to 0) have no libipt counterpart and are not compared.
With user, PERF_DATA has kernel-mode trace too (hw_packets.c kernel) and
BUNDLE is the user-only recording: perf's branches from or to kernel
addresses (system calls, interrupts, their returns) are left out, and so
are perf's errors at kernel addresses (it cannot read the kernel's code
here); the user-mode branches must be BUNDLE's.
Exit 77 (skipped) when perf is not installed.
"""
import shutil
import subprocess
import sys
from collections import defaultdict

check, bundle, data = sys.argv[1:4]
user_only = sys.argv[4:5] == ["user"]
KERNEL = 0xffff800000000000


def kernel(ip):
    return user_only and ip >= KERNEL


if not shutil.which("perf"):
    print("SKIP: perf (Debian's linux-perf) is not installed")
    sys.exit(77)

ipt = defaultdict(list)
streams = []
r = subprocess.run([check, "--branches", bundle], capture_output=True, text=True)
if r.returncode:
    print("FAIL: libipt does not decode the bundle: %s" % r.stderr.strip())
    sys.exit(1)
cur = None
for line in r.stdout.splitlines():
    f = line.split()
    if f[0] == "stream":
        cur = (int(f[2]), int(f[3]))   # generation, tid: a tid's images in order
        streams.append(cur)
        continue
    ipt[cur].append((int(f[1], 16), int(f[2], 16)))
by_tid = defaultdict(list)
for gen, tid in sorted(streams):
    by_tid[tid] += ipt[(gen, tid)]

p = subprocess.run(["perf", "script", "-i", data, "--itrace=be", "-F", "tid,ip,addr,flags"],
                   capture_output=True, text=True)
perf = defaultdict(list)
errors = []
kernel_branches = kernel_errors = 0
for line in p.stdout.splitlines():
    if "instruction trace error" in line or "error" in line.split()[:4]:
        at = line.split(" ip 0x")
        if len(at) > 1 and kernel(int(at[1].split()[0], 16)):
            kernel_errors += 1
        else:
            errors.append(line.strip())
        continue
    if "=>" not in line:
        continue
    left, right = line.split("=>")
    lf = left.split()
    tid, frm, to = int(lf[0]), int(lf[-1], 16), int(right.split()[0], 16)
    if kernel(frm) or kernel(to):
        kernel_branches += 1
    elif frm and to:
        perf[tid].append((frm, to))

failed = 0
if p.returncode:
    print("FAIL: perf script exited %d: %s" % (p.returncode, p.stderr.strip()[:500]))
    failed += 1
if errors:
    print("FAIL: perf reports %d decode errors, first: %s" % (len(errors), errors[0]))
    failed += 1
for tid in sorted(set(by_tid) | set(perf)):
    a, b = by_tid.get(tid, []), perf.get(tid, [])
    if a == b:
        print("ok   thread %d: %d taken branches" % (tid, len(a)))
        continue
    failed += 1
    at = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    print("FAIL thread %d: libipt %d branches, perf %d; first difference at #%d: "
          "libipt %s perf %s" % (tid, len(a), len(b), at,
                                 ["%x->%x" % t for t in a[at:at + 3]],
                                 ["%x->%x" % t for t in b[at:at + 3]]))
if user_only:
    print("     perf: %d branches from or to the kernel and %d errors at kernel addresses "
          "left out" % (kernel_branches, kernel_errors))
total = sum(len(v) for v in by_tid.values())
print("branches_vs_perf: %d threads, %d branches, %d failed" % (len(set(by_tid) | set(perf)),
                                                               total, failed))
sys.exit(1 if failed or not total else 0)
