#!/usr/bin/env python3
"""hwt-cov against gcov on C++ (docs/hwt-cov.md, "C++"): the programs of
tests/lcov/src/cxx_* (lambdas, a function template over lambdas, class
templates, std::function, virtual functions, constructors and destructors,
exceptions, inline functions in a header, a static constructor) are built
twice with the same compiler and -O level: once with --coverage (the
oracle: run, then `lcov --capture`, through `llvm-cov-19 gcov` for
clang-19) and once with -g alone, run under hwt-cov with the same input.

The two lcov files must give the same functions (FN: name and line), the
same function counts (FNDA) and the same line counts (DA) for the
programs' own sources, except where a rule of docs/hwt-cov.md explains the
difference: each exception is listed, and one that does not hold where it
is claimed is a failure too.

At -O2 gcov counts the functions as written (it instruments before
inlining) and hwt-cov the code that is left: a function with no
out-of-line copy has no FN in hwt-cov (checked: the program has no symbol
of it), an out-of-line copy counts only the calls that were not inlined
(checked: never more than gcov), and line counts are listed, not
compared. Names, lines and the other counts must be equal.

usage: cxx_oracle.py --hwt-cov PATH --cc gcc|clang-19 --opt O0|O2 --work DIR
       cxx_oracle.py --compare GCOV.info HWT.info --cc CC --opt OPT [--root DIR]
                     (just compare, the sources under DIR [tests/lcov/src])
Exit status 0 when everything agrees (up to the listed exceptions), 77
(skipped) when a tool is missing (the compiler, lcov, llvm-cov-19).
"""
import argparse
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, 'src')
SKIPPED = 77

# name: (sources, arguments)
CASES = {
    'cxx_functions': (['cxx_functions.cc', 'cxx_shapes.cc'], []),
}


def parse_lcov(path, root=SRC):
    """{source: {'fn': {name: line}, 'fnda': {name: count}, 'da': {line: count}}}
    for the sources under SRC; counts of repeated records add (lcov writes
    one record per template instance, gcov adds them)."""
    out = {}
    cur = None
    for raw in open(path):
        line = raw.strip()
        if line.startswith('SF:'):
            sf = os.path.normpath(line[3:])
            cur = out.setdefault(sf, {'fn': {}, 'fnda': {}, 'da': {}}) \
                if sf.startswith(root + os.sep) else None
        elif cur is None:
            continue
        elif line.startswith('FN:'):
            n, name = line[3:].split(',', 1)
            cur['fn'].setdefault(name, int(n))
        elif line.startswith('FNDA:'):
            c, name = line[5:].split(',', 1)
            cur['fnda'][name] = cur['fnda'].get(name, 0) + int(c)
        elif line.startswith('DA:'):
            n, c = line[3:].split(',')[:2]
            cur['da'][int(n)] = cur['da'].get(int(n), 0) + int(c)
    return out


def source_line(path, n):
    try:
        lines = open(path).read().split('\n')
    except OSError:
        return ''
    return lines[n - 1] if 0 < n <= len(lines) else ''


CLASS_HEAD = re.compile(r'^\s*(struct|class)\s+\w+')
CLOSING_BRACE = re.compile(r'^\s*}\s*$')
CATCH = re.compile(r'}\s*catch\s*\(')
STATIC_OBJECT = re.compile(r'^\s*static\s+[A-Za-z_]\w*\s+[A-Za-z_]\w*\s*;')


# The function symbols of the program hwt-cov ran (nm), for the -O2 rules.
SYMBOLS = set()


def out_of_line(name):
    """The program has code of its own for function name: its symbol, or a
    clone of it (name.isra.0...), a .cold part alone is not one."""
    return name in SYMBOLS or any(s.startswith(name + '.') and not s.endswith('.cold')
                                  for s in SYMBOLS)


def exception_for(cc, opt, kind, src, name, line, g, h):
    """The documented rule that explains a difference, or None.
    kind: 'fn-gcov' (FN only in gcov), 'fn-hwt', 'fn-line', 'fnda', 'da-gcov',
    'da-hwt', 'da'."""
    clang = cc.startswith('clang')
    if opt == 'O2':
        # gcov instruments before inlining; hwt-cov sees the code that is
        # left (docs/hwt-cov.md, "-O2").
        if kind == 'fn-gcov' and SYMBOLS and not out_of_line(name) and \
                not name.startswith('__cxx_global_var_init'):
            return 'O2: inlined into every caller (no out-of-line copy)'
        if kind == 'fnda' and h < g:
            return 'O2: calls inlined into their callers do not reach the out-of-line copy'
        if kind.startswith('da'):
            return 'O2: line counts are not compared'
    if clang and kind == 'fn-gcov' and name.startswith('__cxx_global_var_init'):
        # clang's gcov lists the initialiser of a static object at line 0;
        # its code has no line row at its entry: hwt-cov has no FN for it.
        return 'clang: static initialiser without a line (__cxx_global_var_init, FN:0)'
    text = source_line(src, line)
    if clang and kind == 'da-gcov' and STATIC_OBJECT.match(text):
        return "clang: the static object's initialiser line (__cxx_global_var_init)"
    # hwt-cov has one set of line rules for both compilers, gcc's gcov's
    # (lcov.gcov.clang checks clang's code against gcc's gcov); llvm-cov
    # gcov counts these lines of clang's code otherwise.
    if clang and kind in ('da', 'da-gcov') and CLOSING_BRACE.match(text):
        return 'clang: a closing brace (llvm-cov gcov counts the epilogue or the loop jump)'
    if clang and kind == 'da' and CATCH.search(text):
        return 'clang: a catch line (llvm-cov gcov adds the landing pad)'
    if clang and kind == 'da-hwt' and CLASS_HEAD.match(text):
        return "clang: implicit members' code on the class head (no line in llvm-cov gcov)"
    return None


def compare(gcov_info, hwt_info, cc, opt, report, root=SRC):
    g_all = parse_lcov(gcov_info, root)
    h_all = parse_lcov(hwt_info, root)
    stats = {'fn': [0, 0], 'fnda': [0, 0], 'da': [0, 0], 'exceptions': {}}
    mismatches = []

    def differ(kind, src, name, line, what, gval, hval):
        rule = exception_for(cc, opt, kind, src, name, line, gval, hval)
        where = '%s:%s %s' % (os.path.basename(src), line, what)
        if rule:
            stats['exceptions'].setdefault(rule, []).append(where)
        else:
            mismatches.append('%s: gcov %s, hwt-cov %s' % (where, gval, hval))

    for src in sorted(set(g_all) | set(h_all)):
        g = g_all.get(src, {'fn': {}, 'fnda': {}, 'da': {}})
        h = h_all.get(src, {'fn': {}, 'fnda': {}, 'da': {}})
        for name in sorted(set(g['fn']) | set(h['fn'])):
            stats['fn'][0] += 1
            gl, hl = g['fn'].get(name), h['fn'].get(name)
            if gl is None:
                differ('fn-hwt', src, name, hl, 'FN ' + name, None, hl)
            elif hl is None:
                differ('fn-gcov', src, name, gl, 'FN ' + name, gl, None)
            elif gl != hl:
                differ('fn-line', src, name, gl, 'FN ' + name, gl, hl)
            else:
                stats['fn'][1] += 1
            if gl is None or hl is None:
                continue
            stats['fnda'][0] += 1
            gc, hc = g['fnda'].get(name, 0), h['fnda'].get(name, 0)
            if gc == hc:
                stats['fnda'][1] += 1
            else:
                differ('fnda', src, name, gl, 'FNDA ' + name, gc, hc)
        for n in sorted(set(g['da']) | set(h['da'])):
            stats['da'][0] += 1
            gc, hc = g['da'].get(n), h['da'].get(n)
            text = source_line(src, n).strip()
            if gc is None:
                differ('da-hwt', src, None, n, 'DA (%s)' % text, None, hc)
            elif hc is None:
                differ('da-gcov', src, None, n, 'DA (%s)' % text, gc, None)
            elif gc != hc:
                differ('da', src, None, n, 'DA (%s)' % text, gc, hc)
            else:
                stats['da'][1] += 1
    for rule, where in sorted(stats['exceptions'].items()):
        print('  exception "%s": %d: %s' % (rule, len(where), '; '.join(where)), file=report)
    for m in mismatches:
        print('  MISMATCH %s' % m, file=report)
    return mismatches, stats


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def check(cond, what):
    if not cond:
        raise RuntimeError(what)


def cxx_of(cc):
    return {'gcc': 'g++', 'clang-19': 'clang++-19'}[cc]


def run_case(args, name, work, totals):
    sources, prog_args = CASES[name]
    sources = [os.path.join(SRC, s) for s in sources]
    cxx = cxx_of(args.cc)
    opt = '-' + args.opt
    shutil.rmtree(work, ignore_errors=True)
    # The oracle.
    gdir = os.path.join(work, 'gcov')
    os.makedirs(gdir)
    exe = os.path.join(gdir, name)
    r = run([cxx, opt, '-g', '--coverage', '-o', exe] + sources, cwd=gdir)
    check(r.returncode == 0, 'building %s: %s' % (exe, r.stderr))
    native = run([exe] + prog_args, cwd=gdir)
    gcov_tool = []
    if args.cc.startswith('clang'):
        wrapper = os.path.join(work, 'llvm-gcov.sh')
        with open(wrapper, 'w') as f:
            f.write('#!/bin/sh\nexec llvm-cov-19 gcov "$@"\n')
        os.chmod(wrapper, 0o755)
        gcov_tool = ['--gcov-tool', wrapper]
    gcov_info = os.path.join(work, 'gcov.info')
    r = run(['lcov', '--quiet', '--capture', '--directory', gdir, '--output-file', gcov_info] +
            gcov_tool)
    check(r.returncode == 0, 'lcov --capture: %s' % r.stderr)
    # hwt-cov on a -g build.
    hdir = os.path.join(work, 'hwt')
    os.makedirs(hdir)
    exe = os.path.join(hdir, name)
    r = run([cxx, opt, '-g', '-o', exe] + sources, cwd=hdir)
    check(r.returncode == 0, 'building %s: %s' % (exe, r.stderr))
    nm = run(['nm', '--defined-only', exe])
    check(nm.returncode == 0, 'nm %s: %s' % (exe, nm.stderr))
    SYMBOLS.clear()
    SYMBOLS.update(f[2] for f in (l.split() for l in nm.stdout.splitlines())
                   if len(f) == 3 and f[1] in 'tTwW')
    info = os.path.join(work, 'hwt.info')
    html = os.path.join(work, 'html')
    r = run([args.hwt_cov, '-q', '-o', info, '--html', html, '--include', SRC + '/*', '--', exe] +
            prog_args, cwd=hdir)
    check(r.returncode == native.returncode,
          'hwt-cov exit status %d, the program alone %d: %s' %
          (r.returncode, native.returncode, r.stderr))
    check(r.stdout == native.stdout, 'the program printed something else under hwt-cov')
    # FN records carry mangled names; the HTML report shows them demangled
    # (genhtml --demangle-cpp, with c++filt).
    if shutil.which('c++filt'):
        pages = ''
        for dirpath, _, files in os.walk(html):
            for f in files:
                if f.endswith('.func.html') or f.endswith('.func-sort-c.html'):
                    pages += open(os.path.join(dirpath, f), errors='replace').read()
        check('::' in pages and not re.search(r'>_Z\w+', pages),
              'the HTML report does not show demangled function names')
    print('%s (%s %s):' % (name, args.cc, opt))
    mismatches, stats = compare(gcov_info, info, args.cc, args.opt, sys.stdout)
    nexc = sum(len(v) for v in stats['exceptions'].values())
    print('  FN %d/%d equal, FNDA %d/%d, DA %d/%d; %d exceptions; %d mismatches' %
          (stats['fn'][1], stats['fn'][0], stats['fnda'][1], stats['fnda'][0],
           stats['da'][1], stats['da'][0], nexc, len(mismatches)))
    for k in ('fn', 'fnda', 'da'):
        totals[k] = totals.get(k, 0) + stats[k][0]
    return not mismatches and stats['fn'][0] > 0 and stats['da'][0] > 0


def main():
    p = argparse.ArgumentParser()
    p.add_argument('--hwt-cov')
    p.add_argument('--cc', default='gcc', choices=['gcc', 'clang-19'])
    p.add_argument('--opt', default='O0', choices=['O0', 'O2'])
    p.add_argument('--work')
    p.add_argument('--compare', nargs=2)
    p.add_argument('--root', default=SRC)
    p.add_argument('cases', nargs='*')
    args = p.parse_args()
    if args.compare:
        mismatches, stats = compare(args.compare[0], args.compare[1], args.cc, args.opt,
                                    sys.stdout, os.path.abspath(args.root))
        print('FN %d/%d equal, FNDA %d/%d, DA %d/%d; %d exceptions; %d mismatches' %
              (stats['fn'][1], stats['fn'][0], stats['fnda'][1], stats['fnda'][0],
               stats['da'][1], stats['da'][0],
               sum(len(v) for v in stats['exceptions'].values()), len(mismatches)))
        return 1 if mismatches else 0
    tools = [cxx_of(args.cc), 'lcov'] + (['llvm-cov-19'] if args.cc.startswith('clang') else [])
    missing = [t for t in tools if not shutil.which(t)]
    if missing:
        print('skipped: not installed: %s (scripts/setup.sh installs it)' % ' '.join(missing))
        return SKIPPED
    ok = True
    totals = {}
    for name in args.cases or sorted(CASES):
        try:
            ok = run_case(args, name, os.path.join(args.work, args.cc, args.opt, name),
                          totals) and ok
        except RuntimeError as e:
            print('%s (%s -%s): FAILED: %s' % (name, args.cc, args.opt, e))
            ok = False
    if not totals.get('da'):
        print('FAIL: nothing was compared')
        ok = False
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
