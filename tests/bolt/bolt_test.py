#!/usr/bin/env python3
"""BOLT profiles of hwt, checked by BOLT itself.

usage: bolt_test.py CHECK --hwt HWT [--hwt-pgo PGO] --src DIR --work DIR [--unit UNIT]

CHECK is one of:
  oracle     the program is built for BOLT (-no-pie -Wl,--emit-relocs),
             instrumented by llvm-bolt -instrument and run on the training
             input: its fdata is the oracle. The same binary is traced by
             hwt on the same input and `hwt report bolt` written: at least
             95% of the oracle's edges have hwt's count, and 95% of its total
             count; every other difference is of a class docs/pgo.md
             explains. llvm-bolt reads hwt's profile with no stale or invalid
             profile, optimises with the usual layout options, and the result
             prints what the original prints. The profile from an hwt
             profile, and from the bundle exported as perf.data and imported
             back, equals the one from the bundle.
  robustness bad inputs give a clear error, exit status 2 and no file.
  aarch64    the program built for aarch64 (clang-19 --target), recorded under
             qemu-aarch64 (ETM): llvm-bolt reads hwt's profile with no stale or
             invalid profile and the rewritten binary prints the same under
             qemu-aarch64 (BOLT's instrumentation runtime is x86-64 only here:
             no oracle run). Skipped without qemu-aarch64 and the sysroot.
  pgo        hwt-pgo --bolt (alone, and after sample PGO) builds, trains,
             runs llvm-bolt; the result prints what the plain build prints.

Exit status 77 (skipped) when clang-19 or llvm-bolt-19 is missing.
"""
import argparse
import os
import shutil
import subprocess
import sys

CC = "clang-19"
BOLT = os.environ.get("HWT_LLVM_BOLT", "llvm-bolt-19")
SKIPPED = 77
TRAIN = ["30000", "777"]
OTHER = ["5000", "31337"]
LAYOUT = ["-reorder-blocks=ext-tsp", "-reorder-functions=hfsort", "-split-functions",
          "-split-all-cold", "-report-stale"]

failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)
    return cond


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, errors="replace", **kw)


def must(cmd, **kw):
    r = run(cmd, **kw)
    if r.returncode != 0:
        sys.exit(f"command failed ({r.returncode}): {' '.join(cmd)}\n{r.stdout}{r.stderr}")
    return r


def runtime_lib():
    """BOLT's instrumentation runtime, as the path llvm-bolt wants: relative
    to the lib folder beside its bin folder (Debian: /usr/lib)."""
    exe = shutil.which(BOLT)
    base = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(exe)), "..", "lib"))
    for cand in (os.path.join(base, "libbolt_rt_instr.a"),
                 os.path.join(base, "llvm-19", "lib", "libbolt_rt_instr.a"),
                 "/usr/lib/llvm-19/lib/libbolt_rt_instr.a"):
        if os.path.exists(cand):
            return os.path.relpath(cand, base)
    return None


NO_PIE = ["-no-pie", "-fno-pie"]


def build(args, name, extra=(), pie=NO_PIE):
    out = os.path.join(args.work, name)
    must([CC, "-O2", "-g", *pie, "-Wl,--emit-relocs", *extra,
          os.path.join(args.src, "bolt_prog.c"), "-o", out])
    return out


def parse_fdata(path):
    """{(from, from_off, to, to_off): count} of an fdata file (branch lines)."""
    edges = {}
    with open(path) as f:
        for line in f:
            p = line.split()
            if len(p) != 8:
                continue
            key = (p[1] if p[0] != "0" else "[unknown]", int(p[2], 16),
                   p[4] if p[3] != "0" else "[unknown]", int(p[5], 16))
            edges[key] = edges.get(key, 0) + int(p[7])
    return edges


def bolt_optimise(prog, fdata, out):
    r = run([BOLT, prog, "-data=" + fdata, "-o", out] + LAYOUT)
    text = r.stdout + r.stderr
    bad = [l for l in text.splitlines()
           if any(w in l.lower() for w in ("stale", "invalid", "mismatch", "could not be matched"))
           and " 0 stale functions" not in l and "stale blocks" not in l]
    return r.returncode, bad, text


def check_perf_import(args, bundle, prog, fdata, what):
    """The bundle as perf.data (hwt export), imported back (hwt import, as a
    perf user's recording is): the same profile."""
    perf_data = os.path.join(args.work, "train.perf.data")
    imported = os.path.join(args.work, "imported.hwt")
    shutil.rmtree(imported, ignore_errors=True)
    must([args.hwt, "export", "-o", perf_data, bundle])
    must([args.hwt, "import", "-o", imported, perf_data])
    again = os.path.join(args.work, "imported.fdata")
    must([args.hwt, "report", "bolt", imported, "--binary", prog, "-o", again])
    check(open(again).read() == open(fdata).read(),
          f"a bundle imported from perf.data ({what}) writes the same fdata")


def check_oracle(args):
    # A position-dependent build (as BOLT's documentation builds) and a PIE
    # (the compilers' default; its PLT has a .plt.got).
    for name, pie in (("prog", NO_PIE), ("prog-pie", ["-fPIE", "-pie"])):
        print(f"---- {name}")
        oracle_one(args, name, pie)


def oracle_one(args, name, pie):
    prog = build(args, name, pie=pie)
    rt = runtime_lib()
    if not rt:
        print("skipped: llvm-bolt's instrumentation runtime libbolt_rt_instr.a is missing")
        sys.exit(SKIPPED)
    w = lambda f: os.path.join(args.work, name + "." + f)
    inst_fdata = w("instr.fdata")
    if os.path.exists(inst_fdata):
        os.unlink(inst_fdata)
    must([BOLT, prog, "-instrument", "-o", prog + ".instr", "--instrumentation-file=" + inst_fdata,
          "--runtime-instrumentation-lib=" + rt])
    expected = must([prog] + TRAIN).stdout
    check(must([prog + ".instr"] + TRAIN).stdout == expected, "the instrumented binary's output")
    bundle = w("train.hwt")
    shutil.rmtree(bundle, ignore_errors=True)
    unit = ["--unit", args.unit] if args.unit else []
    must([args.hwt, "record", *unit, "-o", bundle, "--", prog] + TRAIN)
    hwt_fdata = w("hwt.fdata")
    r = run([args.hwt, "report", "bolt", bundle, "--binary", prog, "-o", hwt_fdata, "-v"])
    check(r.returncode == 0, f"hwt report bolt (exit {r.returncode}: {r.stderr.strip()})")

    oracle, ours = parse_fdata(inst_fdata), parse_fdata(hwt_fdata)
    equal = [k for k, c in oracle.items() if ours.get(k) == c]
    total = sum(oracle.values())
    equal_count = sum(oracle[k] for k in equal)
    print(f"     oracle: {len(oracle)} edges, total {total}; hwt: {len(ours)} edges; "
          f"equal: {len(equal)} edges, count {equal_count}")
    check(len(oracle) >= 20, f"the oracle has edges to compare ({len(oracle)})")
    check(100 * len(equal) >= 95 * len(oracle),
          f"{len(equal)} of {len(oracle)} instrumented edges have hwt's count (>= 95%)")
    check(100 * equal_count >= 95 * total,
          f"{equal_count} of {total} of the instrumented count is hwt's (>= 95%)")
    # Differences, each of a class docs/pgo.md explains.
    instrumented = {k[0] for k in oracle}
    unexplained = []
    for k, c in sorted(oracle.items()):
        if ours.get(k) == c:
            continue
        if k[0] == "[unknown]" and k[3] == 0:
            # Entries from callers BOLT did not instrument: hwt names the callers.
            into = sum(oc for o, oc in ours.items() if o[2] == k[2] and o[3] == 0 and
                       (o[0] == "[unknown]" or o[0] not in instrumented))
            if into == c:
                continue
        unexplained.append(("oracle only" if k not in ours else f"hwt {ours[k]}", k, c))
    for k, c in sorted(ours.items()):
        if k in oracle:
            continue
        frm, _, to, to_off = k
        if frm.endswith("@PLT"):
            continue  # lazy binding inside the PLT: BOLT does not instrument the PLT
        if frm not in instrumented:
            continue  # a function BOLT did not instrument (crtstuff's tm_clones)
        if frm == to and sum(oc for o, oc in oracle.items()
                             if o[0] == frm and o[1] == to_off) == c:
            continue  # a fall-through into a block that is one jump: BOLT counts the jump
        unexplained.append(("hwt only", k, c))
    for u in unexplained:
        print("     difference:", u)
    check(not unexplained, f"every difference is of an explained class ({len(unexplained)} not)")

    code, bad, text = bolt_optimise(prog, hwt_fdata, prog + ".bolt")
    check(code == 0 and not bad, "llvm-bolt reads hwt's profile with no stale or invalid profile"
          + (f": {bad}" if bad else "") + ("" if code == 0 else f" (exit {code}: {text[-2000:]})"))
    check("have non-empty execution profile" in text, "llvm-bolt found the profile's functions")
    if code == 0:
        check(must([prog + ".bolt"] + TRAIN).stdout == expected and
              must([prog + ".bolt"] + OTHER).stdout == must([prog] + OTHER).stdout,
              "the optimised binary prints what the original prints")
    # An hwt profile as input gives the same profile.
    counts = w("train.prof")
    must([args.hwt, "report", "profile", "-o", counts, bundle])
    again = w("again.fdata")
    must([args.hwt, "report", "bolt", counts, "--binary", prog, "-o", again])
    check(open(again).read() == open(hwt_fdata).read(), "a profile input writes the same fdata")
    check_perf_import(args, bundle, prog, hwt_fdata, "Intel PT")


def check_robustness(args):
    prog = build(args, "prog")
    # Another build and a stripped copy, both called prog (--binary matches by name).
    os.makedirs(os.path.join(args.work, "other"))
    os.makedirs(os.path.join(args.work, "stripped"))
    other = build(args, "other/prog", ["-O1"])
    bundle = os.path.join(args.work, "small.hwt")
    shutil.rmtree(bundle, ignore_errors=True)
    must([args.hwt, "record", "-o", bundle, "--", prog, "100"])
    out = os.path.join(args.work, "bad.fdata")

    def bad(what, argv, needle):
        if os.path.exists(out):
            os.unlink(out)
        r = run([args.hwt, "report", "bolt"] + argv)
        check(r.returncode == 2 and needle in r.stderr and not os.path.exists(out),
              f"{what}: exit 2, '{needle}', no file (exit {r.returncode}: {r.stderr.strip()})")

    bad("another build of the binary", [bundle, "--binary", other, "-o", out], "not the binary")
    stripped = os.path.join(args.work, "stripped", "prog")
    must(["strip", "-o", stripped, prog])
    bad("a stripped copy", [bundle, "--binary", stripped, "-o", out], "no function symbols")
    bad("a binary that did not run", [bundle, "--binary", "/bin/true", "-o", out],
        "did not run in the trace")
    bad("no such input", [os.path.join(args.work, "none.hwt"), "-o", out], "No such file")
    notprof = os.path.join(args.work, "not_a_profile")
    with open(notprof, "w") as f:
        f.write("hello\n")
    bad("a file that is no profile", [notprof, "-o", out], "not an hwt profile")
    bad("no output", [bundle], "no output file")
    r = run([args.hwt, "report", "bolt", bundle, "--binary", prog, "-o",
             os.path.join(args.work, "no_dir", "x.fdata")])
    check(r.returncode == 2 and "x.fdata" in r.stderr and "no_dir" in r.stderr,
          f"an output that cannot be written: exit 2, named ({r.stderr.strip()})")
    r = run([args.hwt, "report", "bolt", bundle, "-o", "-"])
    check(r.returncode == 0 and " main " in r.stdout and "prog" in r.stderr,
          "without --binary: the image that ran most, to standard output")


def check_aarch64(args):
    sysroot = os.environ.get("QEMU_LD_PREFIX") or "/usr/aarch64-linux-gnu"
    if not shutil.which("qemu-aarch64") or not os.path.isdir(sysroot):
        print("skipped: qemu-aarch64 or the aarch64 sysroot is not installed")
        sys.exit(SKIPPED)
    prog = build(args, "prog", ["--target=aarch64-linux-gnu"])
    qemu = ["qemu-aarch64", "-L", sysroot]
    bundle = os.path.join(args.work, "train.hwt")
    must([args.hwt, "record", "-o", bundle, "--", prog] + TRAIN)
    fdata = os.path.join(args.work, "hwt.fdata")
    r = run([args.hwt, "report", "bolt", bundle, "--binary", prog, "-o", fdata, "-v"])
    check(r.returncode == 0, f"hwt report bolt (exit {r.returncode}: {r.stderr.strip()})")
    edges = parse_fdata(fdata)
    check(any(k[0] == "main" and k[2] == "main" for k in edges) and
          any(k[2] == "step/1" and k[3] == 0 for k in edges),
          f"branches of main and calls of the static step/1 ({len(edges)} edges)")
    check_perf_import(args, bundle, prog, fdata, "cs_etm")
    code, bad, text = bolt_optimise(prog, fdata, prog + ".bolt")
    check(code == 0 and not bad, "llvm-bolt reads hwt's aarch64 profile with no stale or "
          "invalid profile" + (f": {bad}" if bad else "") +
          ("" if code == 0 else f" (exit {code}: {text[-2000:]})"))
    if code == 0:
        check(must(qemu + [prog + ".bolt"] + OTHER).stdout == must(qemu + [prog] + OTHER).stdout,
              "the optimised aarch64 binary prints what the original prints")


def check_pgo(args):
    src = os.path.join(args.src, "bolt_prog.c")
    expected = must([build(args, "plain")] + OTHER).stdout
    for name, extra in (("bolt_only", ["--bolt"]), ("pgo_bolt", ["--bolt", "--sample"])):
        out = os.path.join(args.work, name)
        r = run([args.hwt_pgo, "--train", " ".join(TRAIN), *extra, "-o", out, "--", src])
        check(r.returncode == 0, f"hwt-pgo {' '.join(extra)} (exit {r.returncode}: "
              f"{r.stderr.strip()[-3000:]})")
        if r.returncode:
            continue
        check("BOLT" in r.stderr and "s)" in r.stderr, "hwt-pgo says and times the BOLT step")
        bad = [l for l in r.stderr.splitlines() if "stale" in l.lower() and " 0 stale" not in l]
        check(not bad, f"no stale profile in llvm-bolt's output {bad}")
        check(must([out] + OTHER).stdout == expected, f"{name} prints what the plain build prints")
        check(os.path.exists(out + ".fdata"), f"{name}: the BOLT profile is kept")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("check", choices=["oracle", "robustness", "aarch64", "pgo"])
    ap.add_argument("--hwt", required=True)
    ap.add_argument("--hwt-pgo")
    ap.add_argument("--src", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--unit", help="the trace unit of hwt record (oracle) [hwt's default]")
    args = ap.parse_args()
    for tool in (CC, BOLT):
        if not shutil.which(tool):
            print(f"skipped: {tool} is not installed")
            return SKIPPED
    os.makedirs(args.work, exist_ok=True)
    if args.unit == "qemu" and not shutil.which("qemu-x86_64"):
        print("skipped: qemu-x86_64 is not installed")
        return SKIPPED
    args.work = os.path.join(args.work, args.check + ("." + args.unit if args.unit else ""))
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    {"oracle": check_oracle, "robustness": check_robustness, "aarch64": check_aarch64,
     "pgo": check_pgo}[args.check](args)
    if failures:
        print(f"{len(failures)} check(s) failed")
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
