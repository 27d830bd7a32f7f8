#!/usr/bin/env python3
"""AutoFDO output of hwt, checked by tools no one here wrote.

usage: afdo_test.py CHECK --hwt HWT --afdo-cli CLI [--hwt-pgo PGO] --src DIR --work DIR
                    [--target aarch64]

CHECK is one of:
  llvm       llvm-profdata-19 reads every profile (text, extbinary, binary; one
             run, two runs, a bundle and a profile as input) with no warning;
             clang-19 compiles with each and reports no sample-profile
             diagnostic (-Werror=backend-plugin with record and sample coverage
             checks), and does report one for a stale profile (the check can
             fail); merging in hwt equals llvm-profdata's merge within 1%.
  autofdo    create_llvm_prof (Debian's autofdo 0.19) builds a profile from
             hwt's --profiler=text output; it and hwt's own profile agree
             function by function (see compare()).
  robustness bad inputs and options give clear errors and exit status 2.
  pgo        hwt-pgo builds, trains and rebuilds; the result runs correctly.

With --target aarch64 (check llvm) the program is built by clang-19
--target=aarch64-linux-gnu, recorded under the QEMU unit's qemu-aarch64
(ETMv4, decoded by OpenCSD), and the profile used by the same cross clang;
exit status 77 (skipped) without qemu-aarch64 and the cross sysroot.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys

CC = ["clang-19"]
PROFDATA = "llvm-profdata-19"
# The programs each check runs besides hwt's; without one the check is
# skipped, with this exit status (CTest's SKIP_RETURN_CODE).
NEEDS = {"llvm": [CC[0], PROFDATA], "autofdo": [CC[0], PROFDATA, "create_llvm_prof"],
         "robustness": [CC[0], PROFDATA], "pgo": [CC[0], PROFDATA]}
SKIPPED = 77
# Sample-profile diagnostics of clang 19 are backend diagnostics in the
# -Wbackend-plugin group ("No debug information found in function ...",
# "N of M available profile records (X%) were applied"); the -Wprofile-instr-*
# groups are checked too. A compile with the profile must give no diagnostic
# at all. Then the loader's coverage checks are turned on (every function
# reports what share of its records and samples matched the code) and
# parsed: a function with at least MIN_RECORDS records must have matched
# RECORD_COVERAGE% of them and SAMPLE_COVERAGE% of its samples. (A record
# can legitimately stay unmatched: the opening line of a function carries
# the argument moves of the prologue in the binary but no IR instruction,
# which in a two-record function is half of them.)
WARNINGS = ["-Werror", "-Wbackend-plugin", "-Wprofile-instr-out-of-date",
            "-Wprofile-instr-unprofiled", "-Wprofile-instr-missing"]
COVERAGE = ["-Wno-error=backend-plugin",
            "-mllvm", "-sample-profile-check-record-coverage=100",
            "-mllvm", "-sample-profile-check-sample-coverage=100"]
MIN_RECORDS, RECORD_COVERAGE, SAMPLE_COVERAGE = 5, 75, 95
COVERAGE_RE = re.compile(r"(\S+):(\d+): (\d+) of (\d+) available profile (records|samples) "
                         r"\((\d+)%\) were applied")

failures = []
passed = 0


def check(cond, what):
    global passed
    print(("ok   " if cond else "FAIL ") + what)
    if cond:
        passed += 1
    else:
        failures.append(what)
    return cond


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, errors="replace", **kw)


def must(cmd, **kw):
    r = run(cmd, **kw)
    if r.returncode != 0:
        sys.exit(f"command failed ({r.returncode}): {' '.join(cmd)}\n{r.stdout}{r.stderr}")
    return r


# ----- LLVM sample profile text, parsed leniently ---------------------------

LINE = re.compile(r"^( *)(\d+)(?:\.(\d+))?: (.*)$")
HEADER = re.compile(r"^(.*):(\d+):(\d+)$")


def parse_text(text):
    """{function: {"head": h, "lines": {path: count}}} where path is a tuple
    of (offset, disc) keys from the function down to the body line;
    callsite names are left out of the path (create_llvm_prof 0.19 writes
    garbage for them: any bytes, digits and line separators included). So a
    line is told to be an inlined callsite by its shape alone: the next
    line of the format is indented deeper. Lines are split at newlines only,
    and a row of neither form (the rest of a name that held a newline) is
    left out."""
    rows = [r for r in text.split("\n")
            if r.strip() and (LINE.match(r) or HEADER.match(r) and not r.startswith(" "))]
    funcs = {}
    cur = None
    stack = []  # (depth, key)
    for i, raw in enumerate(rows):
        if not raw.startswith(" "):
            m = HEADER.match(raw)
            if not m:
                continue
            cur = funcs.setdefault(m.group(1), {"head": 0, "lines": {}})
            cur["head"] += int(m.group(3))
            stack = []
            continue
        m = LINE.match(raw)
        if not m or cur is None:
            continue
        depth = len(m.group(1))
        key = (int(m.group(2)), int(m.group(3) or 0))
        while stack and stack[-1][0] >= depth:
            stack.pop()
        following = rows[i + 1] if i + 1 < len(rows) else ""
        if len(following) - len(following.lstrip(" ")) > depth:  # NAME:TOTAL
            stack.append((depth, key))
            continue
        count = re.match(r"^(\d+)(\s|$)", m.group(4))
        if count:  # a body line
            path = tuple(k for _, k in stack) + (key,)
            cur["lines"][path] = cur["lines"].get(path, 0) + int(count.group(1))
    return funcs


def body_total(f, skip_line0=True):
    """Sum of non-zero body samples; offsets >= 0x8000 are lines before the
    function (create_llvm_prof counts line-0 code there), left out."""
    return sum(c for p, c in f["lines"].items() if not (skip_line0 and p[-1][0] >= 0x8000))


def hot_lines(f, share):
    lines = {p: c for p, c in f["lines"].items() if p[-1][0] < 0x8000}
    top = max(lines.values(), default=0)
    return {p for p, c in lines.items() if top and c >= share * top}


# ----- fixtures -------------------------------------------------------------

def build(args, name, extra):
    out = os.path.join(args.work, name)
    must(CC + ["-O2", "-g", "-fdebug-info-for-profiling"] + extra +
         [os.path.join(args.src, "afdo_prog.c"), "-o", out])
    return out


def record(args, prog, name, argv):
    bundle = os.path.join(args.work, name + ".hwt")
    shutil.rmtree(bundle, ignore_errors=True)
    must([args.hwt, "record", "-o", bundle, "--", prog] + argv)
    prof = os.path.join(args.work, name + ".prof")
    must([args.hwt, "report", "profile", "-o", prof, bundle])
    return bundle, prof


def afdo(args, inputs, out, *opts):
    r = run([args.afdo_cli, "afdo"] + list(inputs) + ["-o", out] + list(opts))
    check(r.returncode == 0, f"hwt report afdo {' '.join(opts)} -> {os.path.basename(out)} "
          f"(exit {r.returncode}{': ' + r.stderr.strip() if r.returncode else ''})")
    return out


def show(path):
    return run([PROFDATA, "show", "--sample", "--all-functions", path])


def clang_use(args, profile, extra=(), coverage=False):
    out = os.path.join(args.work, "use.out")
    return run(CC + ["-O2", "-g", "-fdebug-info-for-profiling", "-fprofile-sample-use=" + profile]
               + WARNINGS + (COVERAGE if coverage else []) + list(extra) +
               [os.path.join(args.src, "afdo_prog.c"), "-o", out])


def clang_checks(args, profile, extra=()):
    name = os.path.basename(profile)
    r = clang_use(args, profile, extra)
    check(r.returncode == 0 and not r.stderr.strip(),
          f"clang-19 uses {name} with no profile diagnostic"
          + (f": {r.stderr.strip()}" if r.stderr.strip() else ""))
    r = clang_use(args, profile, extra, coverage=True)
    per = {}
    for m in COVERAGE_RE.finditer(r.stderr):
        per.setdefault(m.group(2), {})[m.group(5)] = (int(m.group(3)), int(m.group(4)))
    bad = [(line, v) for line, v in per.items() if v.get("records", (0, 0))[1] >= MIN_RECORDS and
           (100 * v["records"][0] < RECORD_COVERAGE * v["records"][1] or
            100 * v.get("samples", (1, 1))[0] < SAMPLE_COVERAGE * v.get("samples", (1, 1))[1])]
    other = [l for l in r.stderr.splitlines() if "warning:" in l and not COVERAGE_RE.search(l)]
    check(r.returncode == 0 and not bad and not other,
          f"{name}: clang's coverage checks: {len(per)} functions reported, none with "
          f">= {MIN_RECORDS} records below {RECORD_COVERAGE}% of records or {SAMPLE_COVERAGE}% "
          f"of samples matched" + (f" (failed: {bad} {other})" if bad or other else ""))
    return per


# ----- checks ---------------------------------------------------------------

def check_llvm(args):
    prog = build(args, "prog5", [])
    bundle1, prof1 = record(args, prog, "run1", ["3000", "0"])
    bundle2, prof2 = record(args, prog, "run2", ["1000", "1"])
    w = lambda n: os.path.join(args.work, n)
    one = afdo(args, [prof1], w("one.txt"), "--binary", prog)
    from_bundle = afdo(args, [bundle1], w("bundle.txt"), "--binary", prog)
    check(open(one).read() == open(from_bundle).read(),
          "a bundle and its decoded profile give the same sample profile")
    both = afdo(args, [prof1, prof2], w("both.txt"), "--binary", prog)
    two = afdo(args, [prof2], w("two.txt"), "--binary", prog)
    ext = afdo(args, [prof1, prof2], w("both.extbinary"), "--binary", prog, "--format", "extbinary")
    binf = afdo(args, [prof1, prof2], w("both.binary"), "--binary", prog, "--format", "binary")
    allimg = afdo(args, [prof1], w("all-images.txt"))

    text = open(one).read()
    print(text)
    funcs = parse_text(text)
    check("hash" in funcs and "main" in funcs, "hash and main have samples")
    hashf = funcs.get("hash", {"lines": {}, "head": 0})
    check(hashf["head"] == 100, f"hash's head samples are its 100 calls ({hashf['head']})")
    check(any(len(p) == 2 for p in hashf["lines"]), "hash has an inlined callsite (mix)")
    check(re.search(r"^ +\d+(\.\d+)?: mix:\d+$", text, re.M) is not None,
          "the inlined callsite names mix")
    m = re.search(r"^ +\d+(\.\d+)?: \d+ (.*)$", text, re.M)
    targets = dict(re.findall(r"(\w+):(\d+)", text[text.find("main:"):]))
    check(int(targets.get("op_add", 0)) > 0 and int(targets.get("op_xor", 0)) > 0 and
          int(targets.get("hash", 0)) == 100,
          f"main's call targets: hash 100 times, op_add and op_xor ({m.group(2) if m else ''})")
    check("cold_path" not in funcs, "the cold path has no samples")

    for p in (one, two, both, ext, binf, allimg):
        r = show(p)
        check(r.returncode == 0 and "warning" not in (r.stdout + r.stderr).lower(),
              f"llvm-profdata show --sample reads {os.path.basename(p)} without warnings")
    # The binary forms hold the same profile as the text.
    st, se, sb = show(both).stdout, show(ext).stdout, show(binf).stdout
    check(st == se and st == sb, "text, extbinary and binary show the same profile")

    # Merging: hwt adds counts before taking the largest per line; llvm-profdata
    # adds the per-run largest. Equal when the hottest instruction of a line is
    # the same in both runs; within 1% per function here.
    merged = w("merged.txt")
    must([PROFDATA, "merge", "--sample", "--text", one, two, "-o", merged])
    a, b = parse_text(open(both).read()), parse_text(open(merged).read())
    check(set(a) == set(b), "hwt's merge and llvm-profdata's merge have the same functions")
    for f in sorted(set(a) & set(b)):
        ta, tb = body_total(a[f], False), body_total(b[f], False)
        check(abs(ta - tb) <= 0.01 * max(ta, tb),
              f"merged {f}: hwt {ta}, llvm-profdata {tb} (within 1%)")

    for p in (one, both, ext, binf):
        clang_checks(args, p)
    # DWARF 4 builds and -funique-internal-linkage-names keep working.
    prog4 = build(args, "prog4u", ["-gdwarf-4", "-funique-internal-linkage-names"])
    _, prof4 = record(args, prog4, "run4u", ["3000", "0"])
    uniq = afdo(args, [prof4], w("uniq.txt"), "--binary", prog4)
    names = parse_text(open(uniq).read())
    check(any(".__uniq." in n for n in names), "static functions keep their .__uniq. suffix")
    clang_checks(args, uniq, ["-gdwarf-4", "-funique-internal-linkage-names"])

    # The check can fail: a profile whose lines moved (a stale profile).
    stale = w("stale.txt")
    with open(stale, "w") as f:
        f.write(re.sub(r"^( +)(\d+)", lambda m: m.group(1) + str(int(m.group(2)) + 40), text,
                       flags=re.M))
    r = clang_use(args, stale, coverage=True)
    per = [m for m in COVERAGE_RE.finditer(r.stderr) if int(m.group(4)) >= MIN_RECORDS and
           100 * int(m.group(3)) < RECORD_COVERAGE * int(m.group(4))]
    check(len(per) > 0,
          "clang-19 rejects a stale profile under the same flags (the check can fail)")


def check_autofdo(args):
    prog = build(args, "prog4", ["-gdwarf-4"])
    _, prof = record(args, prog, "run-autofdo", ["3000", "1"])
    w = lambda n: os.path.join(args.work, n)
    inter = w("autofdo-input.txt")
    r = run([args.afdo_cli, "afdo-text", prof, "--binary", prog, "-o", inter])
    check(r.returncode == 0, "hwt report afdo-text writes create_llvm_prof's input")
    clp = w("create_llvm_prof.txt")
    r = run(["create_llvm_prof", "--profiler=text", "--profile=" + inter, "--binary=" + prog,
             "--format=text", "--out=" + clp])
    check(r.returncode == 0 and os.path.getsize(clp) > 0, "create_llvm_prof reads it")
    ours = parse_text(open(afdo(args, [prof], w("hwt4.txt"), "--binary", prog)).read())
    theirs = parse_text(open(clp, encoding="latin-1").read())
    compare(ours, theirs)


def compare(ours, theirs):
    """Function by function: the sum of body samples (recomputed on both
    sides, line-0 code left out: create_llvm_prof's header total adds every
    instruction's count instead of the per-line largest) within 2%, and the
    same hot lines (>= 10% of the function's hottest), callsite names
    ignored. Functions under 0.1% of all samples are not compared
    (create_llvm_prof drops functions below a threshold)."""
    grand = sum(body_total(f) for f in ours.values())
    compared = 0
    for name, f in sorted(ours.items()):
        t = body_total(f)
        if t < 0.001 * grand:
            continue
        compared += 1
        g = theirs.get(name)
        if not check(g is not None, f"create_llvm_prof has {name}"):
            continue
        u = body_total(g)
        check(abs(t - u) <= 0.02 * max(t, u),
              f"{name}: body samples hwt {t}, create_llvm_prof {u} (within 2%)")
        ho, ht = hot_lines(f, 0.1), hot_lines(g, 0.1)
        check(ho == ht, f"{name}: the same {len(ho)} hot lines"
              + ("" if ho == ht else f" (hwt only {sorted(ho - ht)}, theirs only {sorted(ht - ho)})"))
    check(compared >= 2, f"{compared} functions compared")


def check_robustness(args):
    w = lambda n: os.path.join(args.work, n)
    cli = args.afdo_cli
    r = run([cli, "afdo", "--help"])
    check(r.returncode == 0 and "usage" in r.stdout, "afdo --help")
    r = run([cli, "afdo-text", "--help"])
    check(r.returncode == 0 and "create_llvm_prof" in r.stdout, "afdo-text --help")
    r = run([cli, "afdo", "x.prof"])
    check(r.returncode == 2 and "-o" in r.stderr, "no -o: exit 2 and a message")
    r = run([cli, "afdo", w("does-not-exist"), "-o", w("x")])
    check(r.returncode == 2 and "does-not-exist" in r.stderr, "missing input named")
    with open(w("garbage.prof"), "w") as f:
        f.write("hello\n")
    r = run([cli, "afdo", w("garbage.prof"), "-o", w("x")])
    check(r.returncode == 2 and "garbage.prof:1" in r.stderr, "garbage input: line named")
    r = run([cli, "afdo", w("garbage.prof"), "-o", w("x"), "--format", "zip"])
    check(r.returncode == 2 and "--format" in r.stderr, "bad --format")
    # A program without DWARF: nothing to write, said so.
    prog = os.path.join(args.work, "nodebug")
    must(CC + ["-O2", os.path.join(args.src, "afdo_prog.c"), "-o", prog])
    _, prof = record(args, prog, "nodebug", ["100"])
    r = run([cli, "afdo", prof, "-o", w("nodebug.txt")])
    check(r.returncode == 2 and "no image has DWARF" in r.stderr, "no DWARF: exit 2, said so")
    r = run([cli, "afdo", prof, "-o", w("nodebug.txt"), "--binary", "/bin/true"])
    check(r.returncode == 2, "--binary of a program that did not run: exit 2")
    # A replaced binary (another build-id): a warning, no samples from it.
    dbg = build(args, "replaced", [])
    _, prof = record(args, dbg, "replaced", ["100"])
    r = run([cli, "afdo", prof, "-o", w("x.extbinary"), "--format", "extbinary",
             "--llvm-profdata", "/nonexistent/llvm-profdata"])
    check(r.returncode == 2 and "no llvm-profdata" in r.stderr, "missing llvm-profdata named")
    must(CC + ["-O1", "-g", os.path.join(args.src, "afdo_prog.c"), "-o", dbg])
    r = run([cli, "afdo", prof, "-o", w("replaced.txt"), "--binary", dbg])
    check(r.returncode == 2 and "not the profiled image" in r.stderr and "see the warnings" in r.stderr,
          f"a rebuilt binary is refused ({r.stderr.strip()})")
    if args.hwt_pgo:
        r = run([args.hwt_pgo, "--help"])
        check(r.returncode == 0 and "fprofile-sample-use" in r.stdout, "hwt-pgo --help")
        r = run([args.hwt_pgo, "--", "x.c"])
        check(r.returncode == 2 and "-o" in r.stderr, "hwt-pgo without -o: exit 2")
        r = run([args.hwt_pgo, "-q", "-o", w("p"), "--work", w("pw"), "--", w("missing.c")])
        check(r.returncode == 2 and "compiler failed" in r.stderr, "hwt-pgo: a failed build")


def check_pgo(args):
    w = lambda n: os.path.join(args.work, n)
    src = os.path.join(args.src, "afdo_prog.c")
    r = run([args.hwt_pgo, "-q", "--train", "3000 1", "-o", w("pgo-prog"), "--work", w("pgo"),
             "--keep", w("train.hwt"), "--measure", "3000 0", "--runs", "3", "--", src])
    check(r.returncode == 0, f"hwt-pgo succeeds ({r.stderr.strip()})")
    # --keep BUNDLE: the training trace stays there and gives the same profile again.
    again = run([args.hwt, "report", "afdo", "-q", w("train.hwt"), "--binary", w("pgo/train"),
                 "-o", w("again.afdo")])
    check(again.returncode == 0 and os.path.exists(w("pgo-prog.afdo")) and
          open(w("again.afdo"), "rb").read() == open(w("pgo-prog.afdo"), "rb").read(),
          f"the bundle hwt-pgo --keep kept gives its profile again ({again.stderr.strip()})")
    refused = run([args.hwt_pgo, "-q", "--keep", w("train.hwt"), "-o", w("pgo-prog2"), "--", src])
    check(refused.returncode == 2 and "exists" in refused.stderr and
          not os.path.exists(w("pgo-prog2")),
          f"hwt-pgo --keep refuses a bundle that exists ({refused.stderr.strip()})")
    check("speedup" in r.stdout, "hwt-pgo reports the speedup")
    check(os.path.exists(w("pgo-prog.afdo")) and show(w("pgo-prog.afdo")).returncode == 0,
          "hwt-pgo's profile is readable")
    a = run([w("pgo-prog"), "3000", "0"]).stdout
    b = run([w("pgo-prog.O2"), "3000", "0"]).stdout
    check(a == b and a.strip() != "", "the PGO build computes what the plain build does")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("check", choices=["llvm", "autofdo", "robustness", "pgo"])
    ap.add_argument("--hwt", required=True)
    ap.add_argument("--afdo-cli", required=True)
    ap.add_argument("--hwt-pgo")
    ap.add_argument("--src", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--target", choices=["aarch64"])
    args = ap.parse_args()
    missing = [p for p in NEEDS[args.check] if not shutil.which(p)]
    if missing:
        print(f"skipped: {', '.join(missing)} not found (scripts/setup.sh --tests installs it)")
        sys.exit(SKIPPED)
    if args.check == "pgo" and not args.hwt_pgo:
        sys.exit("the pgo check needs --hwt-pgo")
    if args.target:
        if args.check != "llvm":
            sys.exit("--target goes with the llvm check")
        sysroot = os.environ.get("QEMU_LD_PREFIX") or "/usr/aarch64-linux-gnu"
        if not shutil.which("qemu-aarch64") or not os.path.isdir(sysroot):
            print("skipped: qemu-aarch64 or the aarch64 sysroot is not installed "
                  "(scripts/setup.sh --tests installs them)")
            sys.exit(SKIPPED)
        CC.append("--target=%s-linux-gnu" % args.target)
    args.work = os.path.join(args.work, args.check + ("." + args.target if args.target else ""))
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    {"llvm": check_llvm, "autofdo": check_autofdo, "robustness": check_robustness,
     "pgo": check_pgo}[args.check](args)
    if failures:
        print(f"\n{len(failures)} check(s) failed")
        sys.exit(1)
    if not passed:
        print("\nno check ran")
        sys.exit(1)
    print(f"\nall {passed} checks passed")


if __name__ == "__main__":
    main()
