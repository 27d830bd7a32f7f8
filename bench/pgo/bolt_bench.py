#!/usr/bin/env python3
"""BOLT with hwt's profile against BOLT with its own instrumented profile,
sample PGO, and sample PGO followed by BOLT, on a bundled program.

usage: bench/pgo/bolt_bench.py [--program cpu_interp|doc_pipeline] [--build DIR]
                               [--runs N] [--work DIR] [--cpu N]

Builds PROGRAM.c of tests/programs or bench/programs with clang-19 in these ways:
  O2          clang-19 -O2 -g -Wl,--emit-relocs: the baseline, and the input
              of both BOLT variants
  bolt_hwt    llvm-bolt-19 O2 with hwt's profile: O2 traced on 'train' (hwt
              record), 'hwt report bolt'
  bolt_instr  llvm-bolt-19 O2 with BOLT's instrumented profile: llvm-bolt
              -instrument O2, the instrumented binary run on 'train'
  sample      sample PGO (hwt-pgo: O2 -g -fdebug-info-for-profiling traced on
              'train', -fprofile-sample-use)
  sample_bolt sample PGO then BOLT (hwt-pgo --bolt --sample: the PGO build
              traced on 'train' again, llvm-bolt with hwt's profile)
Both BOLT runs use the same layout options as hwt-pgo --bolt (ext-tsp block
order, hfsort function order, hot/cold splitting). Then times every variant
on the 'measure' input, RUNS rounds, each round running every variant once in
a rotating order (pinned to one CPU with --cpu); wall and CPU time (user +
system, from wait4). Prints medians and quartiles, the speedups over O2
(ratio of medians, and the median of per-round paired ratios), and how hwt's
fdata compares with the instrumented one edge by edge. Not a test: no
pass/fail.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
CC = "clang-19"
BOLT = os.environ.get("HWT_LLVM_BOLT", "llvm-bolt-19")
LAYOUT = ["-reorder-blocks=ext-tsp", "-reorder-functions=hfsort", "-split-functions",
          "-split-all-cold", "-split-eh"]


def sh(cmd, **kw):
    print("+ " + " ".join(cmd), file=sys.stderr)
    return subprocess.run(cmd, check=True, **kw)


def quartiles(xs):
    xs = sorted(xs)
    q = statistics.quantiles(xs, n=4) if len(xs) >= 2 else [xs[0]] * 3
    return xs[0], q[0], statistics.median(xs), q[2], xs[-1]


def fdata_edges(path):
    edges = {}
    with open(path) as f:
        for line in f:
            p = line.split()
            if len(p) == 8:
                key = (p[1], p[2], p[4], p[5])
                edges[key] = edges.get(key, 0) + int(p[7])
    return edges


def runtime_lib():
    exe = shutil.which(BOLT)
    base = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(exe)), "..", "lib"))
    for cand in (os.path.join(base, "libbolt_rt_instr.a"),
                 os.path.join(base, "llvm-19", "lib", "libbolt_rt_instr.a")):
        if os.path.exists(cand):
            return os.path.relpath(cand, base)
    sys.exit("no libbolt_rt_instr.a beside " + exe)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"), help="hwt build directory")
    ap.add_argument("--runs", type=int, default=11, help="timed rounds [11]")
    ap.add_argument("--work", help="keep the binaries here (default: a temporary directory)")
    ap.add_argument("--program", default="cpu_interp", help="[cpu_interp]")
    ap.add_argument("--input", default="measure", help="the measured input [measure]")
    ap.add_argument("--train", default="train", help="the training input [train]")
    ap.add_argument("--cpu", type=int, help="run the timed programs on this CPU only (taskset)")
    args = ap.parse_args()
    for folder in ("tests", "bench"):
        src = os.path.join(ROOT, folder, "programs", args.program + ".c")
        if os.path.exists(src):
            break
    else:
        sys.exit(f"no {args.program}.c in tests/programs or bench/programs")
    hwt = os.path.join(args.build, "bin", "hwt")
    hwt_pgo = os.path.join(args.build, "bin", "hwt-pgo")
    for tool in (hwt, hwt_pgo):
        if not os.access(tool, os.X_OK):
            sys.exit(f"no {tool}: build hwt first")
    if not shutil.which(BOLT):
        sys.exit(f"no {BOLT} (install bolt-19)")
    work = args.work or tempfile.mkdtemp(prefix="hwt-bolt-bench.")
    os.makedirs(work, exist_ok=True)
    b = lambda name: os.path.join(work, name)
    flows = {}

    sh([CC, "-O2", "-g", "-Wl,--emit-relocs", src, "-o", b("O2")])
    # BOLT with hwt's profile.
    t0 = time.time()
    shutil.rmtree(b("train.hwt"), ignore_errors=True)
    sh([hwt, "record", "-q", "-o", b("train.hwt"), "--", b("O2"), args.train],
       stdout=subprocess.DEVNULL)
    sh([hwt, "report", "bolt", b("train.hwt"), "--binary", b("O2"), "-o", b("hwt.fdata")])
    sh([BOLT, b("O2"), "-data=" + b("hwt.fdata"), "-o", b("bolt_hwt")] + LAYOUT,
       stdout=subprocess.DEVNULL)
    flows["bolt_hwt"] = time.time() - t0
    # BOLT with its instrumented profile.
    t0 = time.time()
    if os.path.exists(b("instr.fdata")):
        os.unlink(b("instr.fdata"))
    sh([BOLT, b("O2"), "-instrument", "-o", b("O2.instr"),
        "--instrumentation-file=" + b("instr.fdata"),
        "--runtime-instrumentation-lib=" + runtime_lib()], stdout=subprocess.DEVNULL)
    sh([b("O2.instr"), args.train], stdout=subprocess.DEVNULL)
    sh([BOLT, b("O2"), "-data=" + b("instr.fdata"), "-o", b("bolt_instr")] + LAYOUT,
       stdout=subprocess.DEVNULL)
    flows["bolt_instr"] = time.time() - t0
    # Sample PGO, and sample PGO then BOLT (hwt-pgo).
    t0 = time.time()
    sh([hwt_pgo, "-q", "--cc", CC, "--train", args.train, "--work", b("sample.work"),
        "-o", b("sample"), "--", src])
    flows["sample"] = time.time() - t0
    t0 = time.time()
    sh([hwt_pgo, "-q", "--cc", CC, "--train", args.train, "--bolt", "--sample",
        "--work", b("sample_bolt.work"), "-o", b("sample_bolt"), "--", src],
       stdout=subprocess.DEVNULL)
    flows["sample_bolt"] = time.time() - t0

    variants = ["O2", "bolt_hwt", "bolt_instr", "sample", "sample_bolt"]
    outs = {v: subprocess.run([b(v), args.input], check=True, capture_output=True).stdout
            for v in variants}
    if len(set(outs.values())) != 1:
        sys.exit("the variants do not print the same output")
    times = {v: [] for v in variants}
    cpu = {v: [] for v in variants}
    pin = ["taskset", "-c", str(args.cpu)] if args.cpu is not None else []
    load0 = os.getloadavg()
    devnull = os.open(os.devnull, os.O_WRONLY)
    for r in range(args.runs):
        order = variants[r % len(variants):] + variants[:r % len(variants)]
        for v in order:
            s = time.perf_counter()
            pid = os.posix_spawnp((pin or [b(v)])[0], pin + [b(v), args.input], os.environ,
                                  file_actions=[(os.POSIX_SPAWN_DUP2, devnull, 1)])
            _, status, ru = os.wait4(pid, 0)
            times[v].append(time.perf_counter() - s)
            cpu[v].append(ru.ru_utime + ru.ru_stime)
            if os.waitstatus_to_exitcode(status) != 0:
                sys.exit(f"{v} {args.input} failed")
    os.close(devnull)
    load1 = os.getloadavg()

    print(f"\n{args.program} {args.input} (trained on {args.train}), clang-19, llvm-bolt-19, "
          f"{args.runs} interleaved rounds" + (f", on CPU {args.cpu}" if pin else ""))
    print("load average (1, 5, 15 min) before: %.2f %.2f %.2f, after: %.2f %.2f %.2f"
          % (load0 + load1))
    for title, data in (("wall time", times), ("CPU time (user + system)", cpu)):
        print(f"\n== {title} (seconds)")
        print(f"{'variant':12} {'min':>8} {'q1':>8} {'median':>8} {'q3':>8} {'max':>8}"
              f" {'x O2 (medians)':>15} {'x O2 (paired)':>14}")
        med_base = statistics.median(data["O2"])
        for v in variants:
            paired = statistics.median(o / x for o, x in zip(data["O2"], data[v]))
            print(f"{v:12} " + " ".join(f"{x:8.4f}" for x in quartiles(data[v])) +
                  f" {med_base / statistics.median(data[v]):15.3f} {paired:14.3f}")
    oracle, ours = fdata_edges(b("instr.fdata")), fdata_edges(b("hwt.fdata"))
    equal = [k for k, c in oracle.items() if ours.get(k) == c]
    total = sum(oracle.values())
    print(f"\nfdata: instrumented {len(oracle)} edges (count {total}), hwt {len(ours)} edges; "
          f"equal: {len(equal)} edges ({100 * len(equal) / max(len(oracle), 1):.1f}%), "
          f"{100 * sum(oracle[k] for k in equal) / max(total, 1):.2f}% of the count")
    print("profile flows (s): " + ", ".join(f"{k} {v:.1f}" for k, v in flows.items()))
    if not args.work:
        shutil.rmtree(work)


if __name__ == "__main__":
    main()
