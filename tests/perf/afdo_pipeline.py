#!/usr/bin/env python3
"""AutoFDO's own pipeline on hwt's export against `hwt report afdo`.

    afdo_pipeline.py HWT PERFDATA_TOOL AFDO_SRC WORK

AutoFDO makes a sample profile from Intel PT this way: perf inject
--itrace=i1000il64 turns the trace into samples (one every 1000
instructions) with 64-entry last-branch stacks, and create_llvm_prof
(Debian's autofdo 0.19) reads those. Here the trace is a software unit's
bundle exported with `hwt export`; the profile it gives is compared with
the exact one `hwt report afdo` writes from the bundle:

- perf inject reads the export and writes samples; create_llvm_prof reads
  them once their branch stacks lose the hw_idx field perf >= 5.7 writes
  (autofdo 0.19 does not know it: google/autofdo#89; perfdata_tool copy
  no-hw-index);
- the hot functions (>= 1% of the body samples on hwt's side) are the same
  on both sides, in the same order, and each one's share of all samples
  agrees within 2 percentage points;
- within every function both sides have, the hot lines (>= 10% of the
  function's hottest) are the same set.

Counts themselves differ: perf inject samples, hwt counts every execution
(docs/perf.md, "AutoFDO"). The qemu unit records the program: the valgrind
unit's bundle maps a piece of Valgrind's dispatcher inside a page of
another mapping, which create_llvm_prof 0.19 refuses ("Split mapping must
result in page-aligned mappings"). Exits 77 (skipped) when clang-19,
perf, create_llvm_prof or the qemu unit is missing.
"""
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "afdo"))
import afdo_test  # noqa: E402  (parse_text, body_total, hot_lines)

failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)
    return cond


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, errors="replace", **kw)


def must(cmd, what):
    r = run(cmd)
    if r.returncode != 0:
        print(r.stdout + r.stderr)
        sys.exit(f"FAIL {what}: {' '.join(cmd)} exited {r.returncode}")
    return r


def main():
    hwt, tool, src, work = sys.argv[1:5]
    for exe in ("clang-19", "perf", "create_llvm_prof"):
        if not shutil.which(exe):
            print(f"skipped: no {exe}")
            sys.exit(77)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    w = lambda n: os.path.join(work, n)
    prog = w("prog")
    must(["clang-19", "-O2", "-g", "-gdwarf-4", "-fdebug-info-for-profiling", src, "-o", prog],
         "build")
    r = run([hwt, "record", "-q", "--unit", "qemu", "-o", w("run.hwt"), "--", prog, "3000", "1"])
    if r.returncode != 0:
        print(r.stderr)
        print("skipped: the qemu unit does not run here")
        sys.exit(77)
    must([hwt, "export", "-q", "-o", w("export.data"), w("run.hwt")], "hwt export")
    must(["perf", "inject", "-i", w("export.data"), "--itrace=i1000il64", "--strip",
          "-o", w("inject.data")], "perf inject reads the export")
    check(True, "perf inject --itrace=i1000il64 --strip reads the export")
    must([tool, "copy", w("inject.data"), w("lbr.data"), "no-hw-index"],
         "branch stacks without hw_idx")
    r = run(["create_llvm_prof", "--profile=" + w("lbr.data"), "--binary=" + prog,
             "--format=text", "--out=" + w("autofdo.txt")])
    if not check(r.returncode == 0 and os.path.exists(w("autofdo.txt")) and
                 os.path.getsize(w("autofdo.txt")) > 0, "create_llvm_prof reads perf inject's samples"):
        print(r.stderr[-2000:])
        sys.exit(1)
    must([hwt, "report", "afdo", w("run.hwt"), "--binary", prog, "-o", w("hwt.afdo")],
         "hwt report afdo")

    ours = afdo_test.parse_text(open(w("hwt.afdo")).read())
    theirs = afdo_test.parse_text(open(w("autofdo.txt"), errors="replace").read())
    go = sum(afdo_test.body_total(f) for f in ours.values())
    gt = sum(afdo_test.body_total(f) for f in theirs.values())
    if not check(go > 0 and gt > 0, f"samples on both sides (hwt {go}, AutoFDO {gt})"):
        sys.exit(1)
    share_o = {n: afdo_test.body_total(f) / go for n, f in ours.items()}
    share_t = {n: afdo_test.body_total(f) / gt for n, f in theirs.items()}
    for n in sorted(set(ours) | set(theirs), key=lambda n: -share_o.get(n, 0)):
        print(f"     {n:24} hwt {100 * share_o.get(n, 0):6.2f}%  AutoFDO "
              f"{100 * share_t.get(n, 0):6.2f}%  entries hwt {ours.get(n, {}).get('head', '-')} "
              f"AutoFDO {theirs.get(n, {}).get('head', '-')}")
    hot_o = [n for n in sorted(share_o, key=lambda n: -share_o[n]) if share_o[n] >= 0.01]
    hot_t = [n for n in sorted(share_t, key=lambda n: -share_t[n]) if n in hot_o]
    check(len(hot_o) >= 2, f"{len(hot_o)} hot functions")
    check(hot_o == hot_t, f"the same hot functions in the same order ({', '.join(hot_o)})"
          + ("" if hot_o == hot_t else f"; AutoFDO: {', '.join(hot_t)}"))
    for n in hot_o:
        check(abs(share_o[n] - share_t.get(n, 0)) <= 0.02,
              f"{n}: {100 * share_o[n]:.2f}% of the samples, AutoFDO "
              f"{100 * share_t.get(n, 0):.2f}% (within 2 points)")
    for n in sorted(set(ours) & set(theirs)):
        ho, ht = afdo_test.hot_lines(ours[n], 0.1), afdo_test.hot_lines(theirs[n], 0.1)
        check(ho == ht, f"{n}: the same {len(ho)} hot lines" + (
            "" if ho == ht else f" (hwt only {sorted(ho - ht)}, AutoFDO only {sorted(ht - ho)})"))
    if failures:
        sys.exit(f"{len(failures)} checks failed")
    print("all checks passed")


if __name__ == "__main__":
    main()
