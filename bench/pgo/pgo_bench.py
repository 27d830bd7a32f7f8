#!/usr/bin/env python3
"""Sample PGO from an hwt trace against instrumented PGO, on a bundled program.

usage: bench/pgo/pgo_bench.py [--program doc_pipeline|cpu_interp] [--build DIR]
                              [--runs N] [--work DIR] [--cpu N] [--no-irpgo]

Builds PROGRAM.c of bench/programs or tests/programs (default doc_pipeline) with clang-19 in
these ways:
  O2g      clang-19 -O2 -g -fdebug-info-for-profiling   (the baseline: the
           training build, the flags every variant below shares)
  sample   O2g + -fprofile-sample-use=<hwt's profile of O2g on 'train'>
           (made by hwt-pgo: hwt record + hwt report afdo)
  instr    O2g + -fprofile-instr-use=<O2g -fprofile-instr-generate run on 'train'>
  O2       clang-19 -O2 (no debug info), and
  instrO2  -O2 -fprofile-instr-use without debug info: a second baseline,
           because clang 19 does not generate the same code with and
           without -g on some programs (cpu_interp; see docs/pgo.md)
  irpgo    O2g + -fprofile-use=<O2g -fprofile-generate run on 'train'>: IR
           instrumentation, which unlike clang's front-end instrumentation
           also profiles indirect call targets (for information; --no-irpgo
           leaves it out)
then times every variant on the 'measure' input (another size and mix than
'train'), RUNS rounds, each round running every variant once in a rotating
order (pinned to one CPU with --cpu). Each run's wall time and CPU time (user
+ system, from wait4) are taken; the CPU time is less disturbed by other
work on the machine, which the load averages before and after show. Prints
medians with min, quartiles and max, the speedups over O2g and O2 (ratio of
medians, and the median of per-round paired ratios), and the share of
instrumented PGO's gain that sample PGO gets: (S_sample - 1) / (S_instr - 1).
Not a test: no pass/fail.
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


def sh(cmd, **kw):
    print("+ " + " ".join(cmd), file=sys.stderr)
    subprocess.run(cmd, check=True, **kw)


def find_profdata():
    for name in ("llvm-profdata-19", "llvm-profdata"):
        if shutil.which(name):
            return name
    sys.exit("no llvm-profdata (install llvm-19)")


def quartiles(xs):
    xs = sorted(xs)
    q = statistics.quantiles(xs, n=4) if len(xs) >= 2 else [xs[0]] * 3
    return xs[0], q[0], statistics.median(xs), q[2], xs[-1]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"), help="hwt build directory [build]")
    ap.add_argument("--runs", type=int, default=21, help="timed rounds [21]")
    ap.add_argument("--work", help="keep the binaries here (default: a temporary directory)")
    ap.add_argument("--program", default="doc_pipeline",
                    help="PROGRAM.c of bench/programs or tests/programs to build [doc_pipeline]")
    ap.add_argument("--input", default="measure", help="the measured input [measure]")
    ap.add_argument("--train", default="train", help="the training input [train]")
    ap.add_argument("--cpu", type=int, help="run the timed programs on this CPU only (taskset)")
    ap.add_argument("--no-irpgo", action="store_true", help="leave out the IR-instrumented variant")
    args = ap.parse_args()
    for folder in ("bench", "tests"):
        SRC = os.path.join(ROOT, folder, "programs", args.program + ".c")
        if os.path.exists(SRC):
            break
    else:
        sys.exit(f"no {args.program}.c in bench/programs or tests/programs")

    hwt_pgo = os.path.join(args.build, "bin", "hwt-pgo")
    if not os.access(hwt_pgo, os.X_OK):
        sys.exit(f"no {hwt_pgo}: build hwt first")
    work = args.work or tempfile.mkdtemp(prefix="hwt-pgo-bench.")
    os.makedirs(work, exist_ok=True)
    profdata = find_profdata()
    b = lambda name: os.path.join(work, name)

    t0 = time.time()
    sh([CC, "-O2", SRC, "-o", b("O2")])
    sh([CC, "-O2", "-g", "-fdebug-info-for-profiling", SRC, "-o", b("O2g")])
    # Sample PGO: hwt-pgo builds the training binary (the same flags as O2g),
    # records it on 'train', writes the profile and rebuilds.
    sh([hwt_pgo, "-q", "--cc", CC, "--train", args.train, "--profile", b("hwt.afdo"),
        "--work", b("hwt-pgo.work"), "-o", b("sample"), "--", SRC])
    t_sample = time.time() - t0
    # Instrumented PGO on the same training input.
    t1 = time.time()
    dbg = ["-g", "-fdebug-info-for-profiling"]
    sh([CC, "-O2"] + dbg + ["-fprofile-instr-generate", SRC, "-o", b("instr-gen")])
    env = dict(os.environ, LLVM_PROFILE_FILE=b("instr-%p.profraw"))
    sh([b("instr-gen"), args.train], env=env, stdout=subprocess.DEVNULL)
    raws = [b(f) for f in os.listdir(work) if f.startswith("instr-") and f.endswith(".profraw")]
    sh([profdata, "merge", "-o", b("instr.profdata")] + raws)
    sh([CC, "-O2"] + dbg + ["-fprofile-instr-use=" + b("instr.profdata"), SRC, "-o", b("instr")])
    t_instr = time.time() - t1
    # The same without debug info (the profile does not depend on it).
    sh([CC, "-O2", "-fprofile-instr-use=" + b("instr.profdata"), SRC, "-o", b("instrO2")])

    variants = ["O2g", "sample", "instr", "O2", "instrO2"]
    if not args.no_irpgo:
        sh([CC, "-O2"] + dbg + ["-fprofile-generate=" + b("ir"), SRC, "-o", b("ir-gen")])
        sh([b("ir-gen"), args.train], stdout=subprocess.DEVNULL)
        raws = [os.path.join(b("ir"), f) for f in os.listdir(b("ir")) if f.endswith(".profraw")]
        sh([profdata, "merge", "-o", b("ir.profdata")] + raws)
        sh([CC, "-O2"] + dbg + ["-fprofile-use=" + b("ir.profdata"), SRC, "-o", b("irpgo")])
        variants.append("irpgo")
    times = {v: [] for v in variants}
    cpu = {v: [] for v in variants}
    pin = ["taskset", "-c", str(args.cpu)] if args.cpu is not None else []
    # Every variant's output must be the same (the program checks its results).
    outs = {v: subprocess.run([b(v), args.input], check=True, capture_output=True).stdout
            for v in variants}
    if len(set(outs.values())) != 1:
        sys.exit("the variants do not print the same output")
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

    print(f"\n{args.program} {args.input} (trained on {args.train}), clang-19, {args.runs} "
          f"interleaved rounds" + (f", on CPU {args.cpu}" if pin else ""))
    print("load average (1, 5, 15 min) before: %.2f %.2f %.2f, after: %.2f %.2f %.2f"
          % (load0 + load1))
    for title, data in (("wall time", times), ("CPU time (user + system)", cpu)):
        report_all(title, data, variants)
    print(f"profile flows: sample (build + trace + profile + rebuild) {t_sample:.1f} s, "
          f"instrumented (build + run + merge + rebuild) {t_instr:.1f} s")
    if not args.work:
        shutil.rmtree(work)


def report_all(title, times, variants):
    print(f"\n== {title} (seconds)")
    print(f"{'variant':8} {'min':>8} {'q1':>8} {'median':>8} {'q3':>8} {'max':>8}")
    for v in variants:
        print(f"{v:8} " + " ".join(f"{x:8.4f}" for x in quartiles(times[v])))
    med = {v: statistics.median(times[v]) for v in variants}

    def report(base, sample, instr, extra=()):
        paired = {v: statistics.median(o / x for o, x in zip(times[base], times[v]))
                  for v in (sample, instr)}
        print(f"\nover {base}: {'speedup (medians)':>18} {'speedup (paired)':>17}")
        for v in extra:
            paired[v] = statistics.median(o / x for o, x in zip(times[base], times[v]))
        for v in (sample, instr) + tuple(extra):
            print(f"  {v:8} {med[base] / med[v]:18.3f} {paired[v]:17.3f}")
        s_s, s_i = med[base] / med[sample], med[base] / med[instr]
        if s_i > 1 and paired[instr] > 1:
            print(f"  share of instrumented PGO's gain: {100 * (s_s - 1) / (s_i - 1):.0f}% "
                  f"(paired: {100 * (paired[sample] - 1) / (paired[instr] - 1):.0f}%)")
        else:
            print("  instrumented PGO did not speed the program up: no share to report")
        for v in extra:
            s_v = med[base] / med[v]
            if s_v > 1 and paired[v] > 1:
                print(f"  share of {v}'s gain: {100 * (s_s - 1) / (s_v - 1):.0f}% "
                      f"(paired: {100 * (paired[sample] - 1) / (paired[v] - 1):.0f}%)")

    report("O2g", "sample", "instr", [v for v in variants if v == "irpgo"])
    print("without debug info in the baseline and the instrumented build:")
    report("O2", "sample", "instrO2")


if __name__ == "__main__":
    main()
