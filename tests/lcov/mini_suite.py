#!/usr/bin/env python3
"""A multi-process test suite gives one merged lcov file: hwt-cov on the
mini suite's run-tests.sh (six test programs sharing libminicalc.so) must
list each source file once, and agree with six hwt-cov runs of the test
programs one by one: function and branch counts are their sums (they count
single instructions), a line ran iff it ran in some test, and a line's
count lies between the largest and the sum of the per-test counts (it is
the largest count among the line's instructions, and at -O2 different tests
may run different instructions of one line).

usage: mini_suite.py HWT_COV SUITE_DIR WORK_DIR
"""
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gcov_oracle import parse_lcov  # noqa: E402

TESTS = ['test_expr_basic', 'test_expr_errors', 'test_strutil', 'test_checked',
         'test_number_theory', 'test_mixed']
LIBRARY = ['checked.c', 'expr.c', 'strutil.c']


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def main():
    hwt_cov, suite, work = sys.argv[1:4]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    failures = []
    native = run(['sh', os.path.join(suite, 'run-tests.sh'), suite])
    info = os.path.join(work, 'suite.info')
    r = run([hwt_cov, '-o', info, '--html', os.path.join(work, 'html'), '--',
             'sh', os.path.join(suite, 'run-tests.sh'), suite])
    print(r.stderr, end='')
    if r.returncode != native.returncode or r.stdout != native.stdout:
        failures.append('hwt-cov status %d (native %d) or output differs' %
                        (r.returncode, native.returncode))
    if 'warning' in r.stderr or 'genhtml' in r.stderr:
        failures.append('hwt-cov warned')
    s = run(['lcov', '--summary', info])
    if s.returncode != 0 or s.stderr:
        failures.append('lcov --summary: %s' % s.stderr)
    sf = [l[3:].strip() for l in open(info) if l.startswith('SF:')]
    for name in LIBRARY + [t + '.c' for t in TESTS]:
        n = sum(1 for p in sf if os.path.basename(p) == name)
        if n != 1:
            failures.append('%s appears %d times in the merged report' % (name, n))
    if len(sf) != len(set(sf)):
        failures.append('duplicate SF records')
    merged = parse_lcov(info)
    # The same suite, one test program at a time.
    per_test = []
    for t in TESTS:
        one = os.path.join(work, t + '.info')
        r = run([hwt_cov, '-q', '-o', one, '--', os.path.join(suite, t)])
        if r.returncode != 0:
            failures.append('%s under hwt-cov: status %d' % (t, r.returncode))
        per_test.append(parse_lcov(one))
    lines = fns = brs = 0
    for src in sorted(set(merged) | set(k for p in per_test for k in p)):
        a = merged.get(src)
        if a is None:
            failures.append('%s: in a per-test report, not in the merged one' % src)
            continue
        parts = [p[src] for p in per_test if src in p]
        keys = set(a['lines']) | set(n for p in parts for n in p['lines'])
        for n in sorted(keys):
            counts = [p['lines'].get(n, 0) for p in parts]
            c = a['lines'].get(n)
            if c is None or not (max(counts) <= c <= sum(counts)) or \
                    (c > 0) != (sum(counts) > 0):
                failures.append('%s:%d: merged %s, per test %s' % (src, n, c, counts))
            lines += 1
        for name in set(a['fns']) | set(k for p in parts for k in p['fns']):
            total = sum(p['fns'].get(name, 0) for p in parts)
            if a['fns'].get(name) != total:
                failures.append('%s: %s: merged %s calls, per-test sum %d' %
                                (src, name, a['fns'].get(name), total))
            fns += 1
        for key in set(a['brs']) | set(k for p in parts for k in p['brs']):
            vals = [p['brs'][key] for p in parts if p['brs'].get(key) is not None]
            want = sum(vals) if vals else None
            if a['brs'].get(key) != want:
                failures.append('%s: branch %s: merged %s, per-test sum %s' %
                                (src, key, a['brs'].get(key), want))
            brs += 1
    print('mini_suite: checked %d lines, %d functions, %d branches against 6 single runs' %
          (lines, fns, brs))
    lib_hits = {os.path.basename(p): sum(1 for c in merged[p]['lines'].values() if c)
                for p in merged if os.path.basename(p) in LIBRARY}
    print('mini_suite: %d source files; library lines hit: %s' % (len(merged), lib_hits))
    for f in failures:
        print('FAIL: %s' % f)
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
