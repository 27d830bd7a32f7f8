#!/usr/bin/env python3
"""hwt-cov against gcov: builds each case twice from the same sources, once
with `gcc --coverage` (the oracle: run, then `lcov --capture`) and once at
-O0 -g with the compiler under test (gcc or clang-19: run under hwt-cov),
and compares the two lcov files line by line.

For every line of the case's sources, gcov and hwt-cov must agree on
whether the line exists, whether it ran, and how many times it ran, except
where one of the documented rules (docs/hwt-cov.md, "Differences from
gcov") explains the difference; each such line is listed. Functions must
agree on their hit counts. genhtml and `lcov --summary` must read the
hwt-cov output without a word on stderr.

With --target aarch64 both builds are cross builds (aarch64-linux-gnu-gcc
--coverage for the oracle, run under qemu-aarch64 with the cross sysroot
and captured with aarch64-linux-gnu-gcov; the compiler under test gets
--target=aarch64-linux-gnu when it is clang), and hwt-cov runs them under
its QEMU unit (ETMv4 decoded by OpenCSD).

The case "calc" is examples/calc's suite: libcalc.so and its three tests,
run by run-tests.sh (under hwt-cov, the script runs natively and the tests
are traced).

usage: gcov_oracle.py --hwt-cov PATH --cc gcc|clang-19 --work DIR [--target aarch64] [CASE...]
       gcov_oracle.py --compare GCOV.info HWT.info SOURCE...   (just compare)
Exit status 0 when everything agrees (up to the listed exceptions), 77
(skipped) when the compiler under test, or the cross tools for --target, are
not installed.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PROGRAMS = os.path.join(ROOT, 'tests', 'programs')
SRC = os.path.join(HERE, 'src')
CALC = os.path.join(ROOT, 'examples', 'calc')
AARCH64_SYSROOT = os.environ.get('QEMU_LD_PREFIX') or '/usr/aarch64-linux-gnu'

# Suites: (library sources, library name, test programs' sources, runner script).
SUITES = {
    'calc': ([os.path.join(CALC, 'calc.c')], 'calc',
             [os.path.join(CALC, t + '.c') for t in ('test_arith', 'test_parse', 'test_prime')],
             os.path.join(CALC, 'run-tests.sh')),
}
SKIPPED = 77  # exit status of a check that cannot run here (CTest's SKIP_RETURN_CODE)

# name: (program sources, library sources or [], library name, arguments)
CASES = {
    'cov_included': ([os.path.join(SRC, 'cov_included.c')], [], None, ['x']),
    'cov_stack_protector': ([os.path.join(SRC, 'cov_stack_protector.c')], [], None, []),
    'cov_basic': ([os.path.join(SRC, 'cov_basic.c')], [], None, []),
    'cov_main': ([os.path.join(SRC, 'cov_main.c')], [os.path.join(SRC, 'cov_lib.c')],
                 'covlib', ['40']),
    'loops': ([os.path.join(PROGRAMS, 'loops.c')], [], None, []),
    'switch_table': ([os.path.join(PROGRAMS, 'switch_table.c')], [], None, []),
    'recursion': ([os.path.join(PROGRAMS, 'recursion.c')], [], None, []),
    'function_pointers': ([os.path.join(PROGRAMS, 'function_pointers.c')], [], None, []),
    'plt_calls': ([os.path.join(PROGRAMS, 'plt_calls.c')], [os.path.join(PROGRAMS, 'hwtprobe.c')],
                  'hwtprobe', []),
}


def parse_lcov(path):
    """{source: {'lines': {n: count}, 'fns': {name: count},
    'brs': {(line, block, branch): taken or None}}}"""
    out = {}
    cur = None
    for raw in open(path):
        line = raw.strip()
        if line.startswith('SF:'):
            cur = out.setdefault(os.path.normpath(line[3:]), {'lines': {}, 'fns': {}, 'brs': {}})
        elif line.startswith('DA:') and cur is not None:
            n, c = line[3:].split(',')[:2]
            cur['lines'][int(n)] = cur['lines'].get(int(n), 0) + int(c)
        elif line.startswith('FNDA:') and cur is not None:
            c, name = line[5:].split(',', 1)
            cur['fns'][name] = cur['fns'].get(name, 0) + int(c)
        elif line.startswith('BRDA:') and cur is not None:
            n, b, br, t = line[5:].split(',')
            key = (int(n), int(b), int(br))
            old = cur['brs'].get(key)
            t = None if t == '-' else int(t)
            cur['brs'][key] = t if old is None else (old if t is None else old + t)
    return out


LABEL = re.compile(r'^\s*(case\b[^:]*|default|[A-Za-z_]\w*)\s*:\s*(/\*.*\*/\s*)?$')
JUMP_STATEMENT = re.compile(r'^\s*(break|continue|goto\s+\w+)\s*;\s*$')
LOOP_HEAD = re.compile(r'\b(for|while)\s*\(')


def loop_on_one_line(text):
    """A line holding a whole loop, body included (gcov adds the loop's
    cycles within the line to the line's entries)."""
    m = LOOP_HEAD.search(text)
    if not m:
        return False
    depth = 0
    for i in range(m.end() - 1, len(text)):
        if text[i] == '(':
            depth += 1
        elif text[i] == ')':
            depth -= 1
            if depth == 0:
                rest = text[i + 1:].strip()
                return rest not in ('', '{') and not rest.startswith('//') and \
                    not rest.startswith('/*')
    return False


def continuation_line(lines, n):
    """Line n (1-based) continues a statement started on an earlier line."""
    k = n - 2
    while k >= 0 and not lines[k].strip():
        k -= 1
    if k < 0:
        return False
    prev = re.sub(r'/\*.*?\*/|//.*$', '', lines[k]).rstrip()
    if not prev or prev.lstrip().startswith('#'):
        return False
    return prev[-1] in ',+-*/%&|^=<>?' or prev.count('(') > prev.count(')')


def compare(gcov_info, hwt_info, sources, compiler, report):
    """Returns (mismatches, stats) and prints the details to report."""
    g = parse_lcov(gcov_info)
    h = parse_lcov(hwt_info)
    stats = {'lines': 0, 'both': 0, 'executed_agree': 0, 'counts_agree': 0,
             'functions': 0, 'exceptions': {}}
    mismatches = []

    def exception(rule, where):
        stats['exceptions'].setdefault(rule, []).append(where)

    for src in sources:
        src = os.path.normpath(src)
        text = open(src).read().split('\n')
        gl = g.get(src, {'lines': {}, 'fns': {}})
        hl = h.get(src, {'lines': {}, 'fns': {}})
        if not gl['lines']:
            mismatches.append('%s: not in the gcov report' % src)
            continue
        if not hl['lines']:
            mismatches.append('%s: not in the hwt-cov report' % src)
            continue
        base = os.path.basename(src)
        for n in sorted(set(gl['lines']) | set(hl['lines'])):
            stats['lines'] += 1
            t = text[n - 1] if 0 < n <= len(text) else ''
            where = '%s:%d' % (base, n)
            if n in gl['lines'] and n in hl['lines']:
                stats['both'] += 1
                gc, hc = gl['lines'][n], hl['lines'][n]
                if (gc > 0) == (hc > 0):
                    stats['executed_agree'] += 1
                else:
                    mismatches.append('%s: gcov %d, hwt-cov %d (executed differs): %s' %
                                      (where, gc, hc, t.strip()))
                    continue
                if gc == hc:
                    stats['counts_agree'] += 1
                elif loop_on_one_line(t):
                    exception('loop on one line (count)', '%s gcov %d hwt %d' % (where, gc, hc))
                else:
                    mismatches.append('%s: gcov %d, hwt-cov %d: %s' % (where, gc, hc, t.strip()))
            elif n in gl['lines']:
                if LABEL.match(t):
                    exception('label: case, default or goto target (gcov only)', where)
                elif compiler.startswith('clang') and JUMP_STATEMENT.match(t):
                    exception('clang: jump statement that needs no jump under clang (gcov only)',
                              where)
                else:
                    mismatches.append('%s: only gcov has it (%d): %s' %
                                      (where, gl['lines'][n], t.strip()))
            else:
                if compiler.startswith('clang') and continuation_line(text, n):
                    exception('clang: continuation line of a statement (hwt only)', where)
                elif compiler.startswith('clang') and JUMP_STATEMENT.match(t):
                    exception('clang: jump statement that gcc folds into a branch (hwt only)',
                              where)
                else:
                    mismatches.append('%s: only hwt-cov has it (%d): %s' %
                                      (where, hl['lines'][n], t.strip()))
        for name, gc in gl['fns'].items():
            stats['functions'] += 1
            hc = hl['fns'].get(name)
            if hc is None:
                mismatches.append('%s: function %s: not in the hwt-cov report' % (base, name))
            elif hc != gc:
                mismatches.append('%s: function %s: gcov %d calls, hwt-cov %d' %
                                  (base, name, gc, hc))
    for rule, where in sorted(stats['exceptions'].items()):
        print('  exception "%s": %d: %s' % (rule, len(where), ', '.join(where)), file=report)
    for m in mismatches:
        print('  MISMATCH %s' % m, file=report)
    return mismatches, stats


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def check(cond, what):
    if not cond:
        raise RuntimeError(what)


def compiler(cc, target):
    """The command of compiler cc for target (None: the host)."""
    if target and 'clang' in os.path.basename(cc):
        return [cc, '--target=%s-linux-gnu' % target]
    return [cc]


def build(cc, out_dir, name, sources, lib_sources, lib, flags):
    os.makedirs(out_dir, exist_ok=True)
    cc = cc if isinstance(cc, list) else [cc]
    libflags = []
    if lib_sources:
        so = os.path.join(out_dir, 'lib%s.so' % lib)
        r = run(cc + flags + ['-fPIC', '-shared', '-I', SRC, '-I', PROGRAMS, '-o', so] +
                lib_sources, cwd=out_dir)
        check(r.returncode == 0, 'building %s: %s' % (so, r.stderr))
        libflags = ['-L', out_dir, '-l' + lib, '-Wl,-rpath,' + out_dir]
    exe = os.path.join(out_dir, name)
    r = run(cc + flags + ['-I', SRC, '-I', PROGRAMS, '-I', CALC, '-o', exe] + sources +
            libflags, cwd=out_dir)
    check(r.returncode == 0, 'building %s: %s' % (exe, r.stderr))
    return exe


# Files that a case's sources #include and that hold code (compared too).
INCLUDED = {
    'cov_included': [os.path.join(SRC, 'cov_included_impl.c')],
}

# Compiler flags of a case, for both builds.
CASE_FLAGS = {
    'cov_stack_protector': ['-fstack-protector-strong'],
}


def oracle_tools(target):
    """The oracle's compiler, how its programs run, its gcov."""
    if not target:
        return 'gcc', [], []
    return ('%s-linux-gnu-gcc' % target, ['qemu-%s' % target, '-L', AARCH64_SYSROOT],
            ['--gcov-tool', '%s-linux-gnu-gcov' % target])


def run_case(args, name, totals):
    suite = SUITES.get(name)
    if suite:
        lib_sources, lib, tests, runner = suite
        sources, prog_args = [], []
    else:
        sources, lib_sources, lib, prog_args = CASES[name]
    cc_name = os.path.basename(args.cc) + ('-' + args.target if args.target else '')
    work = os.path.join(args.work, cc_name, name)
    shutil.rmtree(work, ignore_errors=True)
    gcc, runner_prefix, gcov_tool = oracle_tools(args.target)
    # The oracle: gcc --coverage, run, lcov --capture.
    gdir = os.path.join(work, 'gcov')
    flags = ['-O0', '-g', '--coverage'] + CASE_FLAGS.get(name, [])
    if suite:
        exes = [build(gcc, gdir, os.path.basename(t)[:-2], [t], lib_sources, lib, flags)
                for t in tests]
        native = None
        for exe in exes:
            r = run(runner_prefix + [exe], cwd=gdir)
            check(r.returncode == 0, '%s failed: %s' % (exe, r.stderr))
    else:
        exe = build(gcc, gdir, name, sources, lib_sources, lib, flags)
        native = run(runner_prefix + [exe] + prog_args, cwd=gdir)
    r = run(['lcov', '--quiet', '--capture', '--directory', gdir, '--output-file',
             os.path.join(work, 'gcov.info')] + gcov_tool)
    check(r.returncode == 0, 'lcov --capture: %s' % r.stderr)
    # hwt-cov on a plain -O0 -g build.
    hdir = os.path.join(work, 'hwt')
    cc = compiler(args.cc, args.target)
    flags = ['-O0', '-g'] + CASE_FLAGS.get(name, [])
    info = os.path.join(work, 'hwt.info')
    html = os.path.join(work, 'html')
    if suite:
        for t in tests:
            build(cc, hdir, os.path.basename(t)[:-2], [t], lib_sources, lib, flags)
        r = run([args.hwt_cov, '-o', info, '--html', html, '--', 'sh', runner, hdir], cwd=hdir)
        native = run(['sh', '-c', 'exit 0'])
        sources = tests
        r.stdout = ''
        native.stdout = ''
    else:
        exe = build(cc, hdir, name, sources, lib_sources, lib, flags)
        r = run([args.hwt_cov, '-o', info, '--html', html, '--', exe] + prog_args, cwd=hdir)
    check(r.returncode == native.returncode,
          'hwt-cov exit status %d, the program alone %d' % (r.returncode, native.returncode))
    check(r.stdout == native.stdout, 'the program printed something else under hwt-cov')
    check(os.path.exists(os.path.join(html, 'index.html')), 'no HTML report')
    in_table = False
    for line in r.stderr.splitlines():
        # The table of files (header, rule, a row a file, TOTAL) before the totals.
        if re.match(r'File +Lines +Functions +Branches +Missing$', line):
            in_table = True
        if in_table:
            in_table = not line.startswith('TOTAL ')
            continue
        # Valgrind 3.19 (the software trace unit) cannot read clang's
        # DWARF 5 string forms and says so; the run is not affected.
        if line.startswith('### unhandled dwarf2 abbrev form code'):
            continue
        # Summary lines only; genhtml must have said nothing.
        check(line.startswith('hwt-cov: ') and 'warning' not in line and 'genhtml' not in line,
              'unexpected hwt-cov output: %s' % line)
    s = run(['lcov', '--summary', info])
    check(s.returncode == 0 and s.stderr == '', 'lcov --summary: %s' % s.stderr)
    gh = run(['genhtml', '--quiet', '--branch-coverage', '-o', os.path.join(work, 'html2'), info])
    check(gh.returncode == 0 and gh.stderr == '', 'genhtml: %s' % gh.stderr)
    print('%s (%s):' % (name, args.cc))
    mismatches, stats = compare(os.path.join(work, 'gcov.info'), info,
                                sources + lib_sources + INCLUDED.get(name, []), cc_name,
                                sys.stdout)
    nexc = sum(len(v) for v in stats['exceptions'].values())
    print('  %d lines: %d in both, %d agree on executed, %d on counts; %d functions; '
          '%d exceptions; %d mismatches' %
          (stats['lines'], stats['both'], stats['executed_agree'], stats['counts_agree'],
           stats['functions'], nexc, len(mismatches)))
    for k in ('lines', 'both', 'executed_agree', 'counts_agree', 'functions'):
        totals[k] = totals.get(k, 0) + stats[k]
    totals['exceptions'] = totals.get('exceptions', 0) + nexc
    totals['mismatches'] = totals.get('mismatches', 0) + len(mismatches)
    return not mismatches


def main():
    p = argparse.ArgumentParser()
    p.add_argument('--hwt-cov')
    p.add_argument('--cc', default='gcc')
    p.add_argument('--work')
    p.add_argument('--compare', nargs='+')
    p.add_argument('--target', choices=['aarch64'])
    p.add_argument('cases', nargs='*')
    args = p.parse_args()
    if args.target:
        tools = ['%s-linux-gnu-gcc' % args.target, '%s-linux-gnu-gcov' % args.target,
                 'qemu-%s' % args.target]
        missing = [t for t in tools if not shutil.which(t)]
        if missing or not os.path.isdir(AARCH64_SYSROOT):
            print('skipped: not installed: %s (scripts/setup.sh --tests installs it)'
                  % ' '.join(missing or [AARCH64_SYSROOT]))
            return SKIPPED
    if args.compare:
        mismatches, _ = compare(args.compare[0], args.compare[1], args.compare[2:],
                                os.path.basename(args.cc), sys.stdout)
        return 1 if mismatches else 0
    if not shutil.which(args.cc):
        print('skipped: %s not found (scripts/setup.sh --tests installs it)' % args.cc)
        return SKIPPED
    ok = True
    totals = {}
    for name in args.cases or sorted(CASES) + sorted(SUITES):
        try:
            ok = run_case(args, name, totals) and ok
        except RuntimeError as e:
            print('%s (%s): FAILED: %s' % (name, args.cc, e))
            ok = False
    print('total (%s): %d lines, %d in both, %d agree on executed, %d on counts, '
          '%d functions, %d exceptions, %d mismatches' %
          (args.cc, totals.get('lines', 0), totals.get('both', 0),
           totals.get('executed_agree', 0), totals.get('counts_agree', 0),
           totals.get('functions', 0), totals.get('exceptions', 0),
           totals.get('mismatches', 0)))
    if not totals.get('lines'):
        print('FAIL: no line was compared')
        ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
