#!/usr/bin/env python3
"""hwt's Cobertura against gcovr's (Debian's gcovr, from gcov data).

examples/calc and its three tests are built twice from the same sources
with gcc: with --coverage (run, then `gcovr --cobertura`: the oracle) and
at -O0 -g (run under `hwt-cov -o hwt.xml`). Both reports must list the
same files with the same line and branch rates per file, up to the gcov
differences docs/hwt-cov.md lists: a label's line (gcov only; the rules
of tests/lcov/gcov_oracle.py recognise them) and the branches of a switch
statement (gcov counts one branch per case, hwt-cov the conditional jumps
the compiler wrote). Files with none of those must have equal rate
attributes; the others equal rates once those lines are left out of both.
Each report's rates must also be the ones its own lines give.

usage: gcovr_oracle.py HWT_COV WORK
"""
import os
import re
import shutil
import sys
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CALC = os.path.join(ROOT, 'examples', 'calc')
sys.path.insert(0, os.path.join(ROOT, 'tests', 'lcov'))
sys.path.insert(0, HERE)
import ci_project  # noqa: E402
import gcov_oracle  # noqa: E402  (the label rule)

SWITCH = re.compile(r'\bswitch\s*\(')


run = ci_project.run


def build(out, flags):
    os.makedirs(out)
    run(['gcc'] + flags + ['-shared', '-fPIC', '-o', os.path.join(out, 'libcalc.so'),
                           os.path.join(CALC, 'calc.c')])
    for t in ('test_arith', 'test_parse', 'test_prime'):
        run(['gcc'] + flags + ['-I', CALC, '-o', os.path.join(out, t),
                               os.path.join(CALC, t + '.c'), '-L', out, '-lcalc',
                               '-Wl,-rpath,' + out])


def parse(path):
    """{filename: {'line-rate', 'branch-rate', 'lines': {n: (hits, covered, total)}}}"""
    out = {}
    for c in ET.parse(path).getroot().iter('class'):
        lines = {}
        for line in c.find('lines').iter('line'):
            m = re.search(r'\((\d+)/(\d+)\)', line.get('condition-coverage', ''))
            lines[int(line.get('number'))] = (int(line.get('hits')),
                                              int(m.group(1)) if m else 0,
                                              int(m.group(2)) if m else 0)
        out[c.get('filename')] = {'line-rate': float(c.get('line-rate')),
                                  'branch-rate': float(c.get('branch-rate')), 'lines': lines}
    return out


def rates(lines, skip_lines=(), skip_branches=()):
    """(lines hit, lines, branches taken, branches) of the lines kept."""
    lh = lf = bh = bf = 0
    for n, (hits, covered, total) in lines.items():
        if n in skip_lines:
            continue
        lf += 1
        lh += hits > 0
        if n not in skip_branches:
            bh += covered
            bf += total
    return lh, lf, bh, bf


def rate(hit, total, empty):
    return hit / total if total else empty


def close(a, b):
    return abs(a - b) < 1e-12


def main():
    if not shutil.which('gcovr'):
        print('gcovr_oracle: SKIP: no gcovr (Debian: gcovr)')
        return 77
    hwt_cov, work = sys.argv[1:3]
    if os.path.exists(work):
        shutil.rmtree(work)
    os.makedirs(work)
    gcov_dir, hwt_dir = os.path.join(work, 'gcov'), os.path.join(work, 'hwt')
    build(gcov_dir, ['--coverage', '-O0', '-g'])
    build(hwt_dir, ['-O0', '-g'])
    run(['sh', os.path.join(CALC, 'run-tests.sh'), gcov_dir], cwd=gcov_dir)
    gcovr_xml, hwt_xml = os.path.join(work, 'gcovr.xml'), os.path.join(work, 'hwt.xml')
    run(['gcovr', '--root', CALC, '--cobertura', gcovr_xml, gcov_dir], cwd=gcov_dir)
    run([hwt_cov, '-q', '-o', hwt_xml, '--root', CALC, '--include', CALC + '/*', '--',
         'sh', os.path.join(CALC, 'run-tests.sh'), hwt_dir], cwd=work)
    g, h = parse(gcovr_xml), parse(hwt_xml)
    failures = []
    if sorted(g) != sorted(h):
        failures.append('files: gcovr %s, hwt %s' % (sorted(g), sorted(h)))
    for name in sorted(set(g) & set(h)):
        text = open(os.path.join(CALC, name)).read().split('\n')
        gl, hl = g[name]['lines'], h[name]['lines']
        # The gcov differences of docs/hwt-cov.md, line by line.
        labels = {n for n in set(gl) - set(hl) if gcov_oracle.LABEL.match(text[n - 1])}
        switches = {n for n in set(gl) | set(hl) if SWITCH.search(text[n - 1])}
        other = (set(gl) ^ set(hl)) - labels
        if other:
            failures.append('%s: lines in one report only, no rule says why: %s' %
                            (name, sorted(other)))
        # Each report's attributes are its own lines' rates.
        for who, r in (('gcovr', g[name]), ('hwt', h[name])):
            lh, lf, bh, bf = rates(r['lines'])
            if not close(r['line-rate'], rate(lh, lf, 0.0)) or \
               not close(r['branch-rate'], rate(bh, bf, 0.0 if who == 'gcovr' else 1.0)):
                failures.append('%s: %s rates %s/%s are not those of its lines' %
                                (name, who, r['line-rate'], r['branch-rate']))
        glr, hlr = g[name]['line-rate'], h[name]['line-rate']
        gbr, hbr = g[name]['branch-rate'], h[name]['branch-rate']
        if not labels and not switches:
            if not close(glr, hlr) or not close(gbr, hbr):
                failures.append('%s: line rate gcovr %r, hwt %r; branch rate gcovr %r, hwt %r'
                                % (name, glr, hlr, gbr, hbr))
            print('  %-13s line rate %.4f = %.4f, branch rate %.4f = %.4f' %
                  (name, glr, hlr, gbr, hbr))
            continue
        gr = rates(gl, labels, switches)
        hr = rates(hl, labels, switches)
        if gr != hr:
            failures.append('%s: without labels %s and switches %s: gcovr %s, hwt %s' %
                            (name, sorted(labels), sorted(switches), gr, hr))
        print('  %-13s line rate gcovr %.4f hwt %.4f, branch rate gcovr %.4f hwt %.4f; '
              'without %d label lines and %d switch lines: lines %d/%d = %d/%d, branches '
              '%d/%d = %d/%d' % (name, glr, hlr, gbr, hbr, len(labels), len(switches),
                                 gr[0], gr[1], hr[0], hr[1], gr[2], gr[3], hr[2], hr[3]))
    for f in failures:
        print('  MISMATCH %s' % f)
    if failures:
        print('gcovr_oracle: FAIL')
        return 1
    print('gcovr_oracle: Cobertura rates agree with gcovr for %d files' % len(g))
    return 0


if __name__ == '__main__':
    sys.exit(main())
