#!/usr/bin/env python3
"""Exclusion markers against the tools that define them: what hwt-cov leaves
out of its report for the markers of a source file (its report against its
report with --no-markers) must be exactly what lcov --capture leaves out for
lcov's markers (src/excl_lcov.c; lcov against lcov --no-markers) and what
gcovr leaves out for gcovr's (src/excl_gcovr.c; gcovr --json against gcovr
--json --no-markers): the lines (DA), the functions (FN) and the lines whose
branches (BRDA) are gone. The markers that do not pair get a warning naming
them where lcov and gcovr warn about them.

Both sides run the same program with the same argument: hwt-cov a gcc -O0 -g
build, lcov and gcovr a gcc -O0 --coverage build.

usage: markers.py HWT_COV SRC_DIR WORK_DIR
Exit status 0 when they agree, 77 (skipped) without lcov or gcovr.
"""
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gcov_oracle import parse_lcov  # noqa: E402

SKIPPED = 77
ARG = '6'


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def must(cmd, **kw):
    r = run(cmd, **kw)
    if r.returncode != 0:
        sys.exit('%s: status %d\n%s' % (' '.join(cmd), r.returncode, r.stderr))
    return r


def lcov_view(info, src):
    """(lines, functions, lines with branches) of src in an lcov file."""
    rec = parse_lcov(info).get(src, {'lines': {}, 'fns': {}, 'brs': {}})
    return set(rec['lines']), set(rec['fns']), set(k[0] for k in rec['brs'])


def gcovr_view(report, name):
    """The same from gcovr's JSON: code lines (not noncode), functions, lines with branches."""
    for f in json.load(open(report))['files']:
        if os.path.basename(f['file']) == name:
            lines = [l for l in f['lines'] if not l['gcovr/noncode']]
            return (set(l['line_number'] for l in lines), set(fn['name'] for fn in f['functions']),
                    set(l['line_number'] for l in lines if l['branches']))
    return set(), set(), set()


def excluded(plain, marked):
    return tuple(sorted(a - b) for a, b in zip(plain, marked))


def hwt_side(hwt_cov, work, src):
    """hwt-cov's report of the -g build, with and without markers; its warnings."""
    prog = os.path.join(work, 'prog_g')
    must(['gcc', '-O0', '-g', '-o', prog, src])
    marked = os.path.join(work, 'hwt.info')
    plain = os.path.join(work, 'hwt_no_markers.info')
    r = must([hwt_cov, '-q', '-o', marked, prog, ARG])
    must([hwt_cov, '-q', '--no-markers', '-o', plain, prog, ARG])
    return excluded(lcov_view(plain, src), lcov_view(marked, src)), r.stderr


def coverage_build(work, src):
    """The --coverage build in work/gc, run once: its .gcda for lcov and gcovr."""
    gc = os.path.join(work, 'gc')
    os.makedirs(gc)
    must(['gcc', '-O0', '--coverage', '-o', os.path.join(gc, 'prog'), src], cwd=gc)
    must([os.path.join(gc, 'prog'), ARG], cwd=gc)
    return gc


def lcov_side(work, src):
    gc = coverage_build(work, src)
    views, warned = [], ''
    for extra, name in (([], 'lcov.info'), (['--no-markers'], 'lcov_no_markers.info')):
        out = os.path.join(work, name)
        r = must(['lcov', '--quiet', '--capture', '--rc', 'lcov_branch_coverage=1', '-d', gc,
                  '-o', out] + extra)
        warned += r.stderr
        views.append(lcov_view(out, src))
    return excluded(views[1], views[0]), warned


def gcovr_side(work, src):
    gc = coverage_build(work, src)
    views, warned = [], ''
    for extra, name in (([], 'gcovr.json'), (['--no-markers'], 'gcovr_no_markers.json')):
        out = os.path.join(work, name)
        r = must(['gcovr', '--json', out, '-r', work, gc] + extra, cwd=gc)
        warned += r.stderr
        views.append(gcovr_view(out, os.path.basename(src)))
    return excluded(views[1], views[0]), warned


def check(name, ours, theirs, failures):
    kinds = ('lines', 'functions', 'lines with branches')
    for kind, a, b in zip(kinds, ours, theirs):
        print('%s: excluded %s: hwt-cov %s, oracle %s' % (name, kind, a, b))
        if a != b:
            failures.append('%s: excluded %s differ: hwt-cov %s, oracle %s' % (name, kind, a, b))
    if not any(theirs):
        failures.append('%s: the oracle excluded nothing: the test checks nothing' % name)


def main():
    hwt_cov, src_dir, work = sys.argv[1:4]
    for tool in ('gcc', 'lcov', 'gcovr'):
        if not shutil.which(tool):
            print('skipped: not installed: %s (scripts/setup.sh installs it)' % tool)
            return SKIPPED
    shutil.rmtree(work, ignore_errors=True)
    failures = []
    # hwt-cov's warnings, and the oracle's about the same markers.
    for base, side, want, oracle_want in (
            ('excl_lcov.c', lcov_side,
             [(62, 'LCOV_EXCL_START without a STOP: excluded to the end of the file')],
             ['unterminated exclusion section in %s']),
            ('excl_gcovr.c', gcovr_side,
             [(46, 'GCOVR_EXCL_STOP without a START: ignored'),
              (64, 'GCOVR_EXCL_START without a STOP: ignored')],
             ['GCOVR_EXCL_STOP found on line 46 without corresponding GCOVR_EXCL_START',
              'on line 64 did not have corresponding GCOVR_EXCL_STOP'])):
        d = os.path.join(work, base[:-2])
        os.makedirs(d)
        src = os.path.join(d, base)
        shutil.copy(os.path.join(src_dir, base), src)
        ours, warned = hwt_side(hwt_cov, d, src)
        theirs, their_warnings = side(d, src)
        check(base, ours, theirs, failures)
        for line, text in want:
            if '%s:%d: %s' % (src, line, text) not in warned:
                failures.append('%s: no warning "%s" for line %d:\n%s' % (base, text, line, warned))
        for text in oracle_want:
            if text.replace('%s', src) not in their_warnings:
                failures.append('%s: the oracle did not warn "%s":\n%s' %
                                (base, text, their_warnings))
        print('%s: warnings: hwt-cov:\n%s%s: warnings: oracle:\n%s' %
              (base, warned, base, their_warnings))
    for f in failures:
        print('FAIL: %s' % f)
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
