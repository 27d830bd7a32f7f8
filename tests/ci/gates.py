#!/usr/bin/env python3
"""The coverage gates' exit statuses, alone and combined, with a passing
and a failing command (docs/ci.md, "Gates").

On the test project (ci_project.py), its CTest suite is recorded once
under hwt-cov (--keep); its line, function, branch and diff coverage are
read from the JSON summary and the diff report. Then:

  - hwt report lcov on the kept bundle, for every subset of the four
    gates set just above the coverage (the others at it, which passes):
    the exit status is the sum of the subset's bits (4, 8, 16, 32), and
    each failing gate says so on stderr;
  - hwt-cov with a passing command: the same statuses; with a failing
    command (exit 3, or killed): the command's status, gates or not;
    with a report that cannot be written: 2;
  - hwt report diff: 0 at or under its gate, 32 above, 2 without a report;
  - no line at all is 0% (fails any line gate), no function or branch is
    100%; a gate that is not a percentage is a usage error (2).

usage: gates.py HWT HWT_COV WORK
"""
import itertools
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ci_project  # noqa: E402

BITS = {'lines': 4, 'functions': 8, 'branches': 16, 'diff': 32}
failures = []
checked = 0


def expect(what, p, status, stderr_has=()):
    global checked
    checked += 1
    if p.returncode != status:
        failures.append('%s: exit %d, want %d\n%s' % (what, p.returncode, status, p.stderr))
        return
    for s in stderr_has:
        if s not in p.stderr:
            failures.append('%s: stderr lacks %r:\n%s' % (what, s, p.stderr))


def gate_args(pct, failing):
    """Options of the four gates: just above the coverage for those in failing, at it else."""
    args = []
    for kind in ('lines', 'functions', 'branches', 'diff'):
        v = pct[kind]
        if kind in failing:
            args += ['--fail-under-' + kind, '%.4f' % min(100.0, v + 0.01)]
        else:
            args += ['--fail-under-' + kind, '%.4f' % (int(v * 10000) / 10000.0)]
    return args


def main():
    hwt, hwt_cov, work = sys.argv[1:4]
    repo = ci_project.make_project(work)
    ci_project.build(repo)
    run = lambda cmd: ci_project.run(cmd, cwd=repo, check=False)  # noqa: E731
    ctest = ['--', 'ctest', '--test-dir', 'build']
    p = run([hwt_cov, '-q', '--keep', 'run.hwt', '-o', 'cov.json', '-o', 'cov.info', '--diff',
             'origin/main', '--diff-output', 'diff.json'] + ctest)
    expect('hwt-cov, no gates', p, 0)
    if failures:
        raise RuntimeError(failures[0])
    s = json.load(open(os.path.join(repo, 'cov.json')))
    d = json.load(open(os.path.join(repo, 'diff.json')))
    pct = {'lines': 100.0 * s['line_covered'] / s['line_total'],
           'functions': 100.0 * s['function_covered'] / s['function_total'],
           'branches': 100.0 * s['branch_covered'] / s['branch_total'],
           'diff': d['percent_covered']}
    print('  coverage: lines %.2f%%, functions %.2f%%, branches %.2f%%, diff %.2f%%' %
          (pct['lines'], pct['functions'], pct['branches'], pct['diff']))
    for kind, v in pct.items():
        if not 0 < v < 100:
            raise RuntimeError('%s coverage %.2f%%: the project should leave some unrun' %
                               (kind, v))

    report = [hwt, 'report', 'lcov', '-q', '-o', 'gate.info', '--diff', 'origin/main']
    for n in range(5):
        for failing in itertools.combinations(sorted(BITS), n):
            status = sum(BITS[k] for k in failing)
            p = run(report + gate_args(pct, failing) + ['run.hwt'])
            expect('hwt report lcov, failing %s' % (failing,), p, status,
                   ['--fail-under-%s' % k for k in failing])
    print('  hwt report lcov: 16 combinations of the four gates')

    # hwt-cov: a passing command.
    for failing in ((), ('lines',), ('branches', 'functions'), tuple(sorted(BITS))):
        p = run([hwt_cov, '-q', '-o', 'gate.info', '--diff', 'origin/main'] +
                gate_args(pct, failing) + ctest)
        expect('hwt-cov, passing command, failing %s' % (failing,), p,
               sum(BITS[k] for k in failing))
    # A failing command: its status wins, gates failing or not.
    fail3 = ['--', 'sh', '-c', 'build/test_arith && exit 3']
    killed = ['--', 'sh', '-c', 'build/test_arith && kill -TERM $$']
    for failing in ((), tuple(sorted(BITS))):
        p = run([hwt_cov, '-q', '-o', 'gate.info', '--diff', 'origin/main'] +
                gate_args(pct, failing) + fail3)
        expect('hwt-cov, command exits 3, failing %s' % (failing,), p, 3)
        p = run([hwt_cov, '-q', '-o', 'gate.info'] + gate_args(pct, failing)[:6] + killed)
        expect('hwt-cov, command killed, failing %s' % (failing,), p, 128 + 15)
    # No report: 2, not the gates' bits.
    p = run([hwt_cov, '-q', '-o', '/nonexistent/dir/cov.info'] +
            gate_args(pct, ('lines',))[:6] + ctest)
    expect('hwt-cov, report not written, lines gate failing', p, 2, ['cannot write'])
    p = run([hwt_cov, '-q', '-o', 'gate.info', '--diff', 'no-such-revision'] + ctest)
    expect('hwt-cov, --diff of no revision', p, 2)
    print('  hwt-cov: passing command (0, 4, 24, 60), failing command (3, 143), no report (2)')

    # hwt report diff.
    base = [hwt, 'report', 'diff', '--base', 'origin/main', '-q', '-o', '/dev/null']
    expect('report diff at its gate', run(base + ['--fail-under-diff', '%.4f' % (
        int(pct['diff'] * 10000) / 10000.0), 'cov.info']), 0)
    expect('report diff above its gate', run(base + ['--fail-under-diff', '%.4f' % (
        pct['diff'] + 0.01), 'cov.info']), 32, ['--fail-under-diff'])
    expect('report diff, no such revision', run(
        [hwt, 'report', 'diff', '--base', 'no-such-revision', 'cov.info']), 2)
    with open(os.path.join(repo, 'bad.info'), 'w') as f:
        f.write('SF:/x.c\nDA:1,1\nXYZ:2\nend_of_record\n')
    expect('report diff, not lcov', run(base + ['bad.info']), 2, ['bad.info:3: not an lcov record'])
    expect('report diff, no --base', run([hwt, 'report', 'diff', 'cov.info']), 2,
           ['--base REF is needed'])

    # Nothing measured: lines 0%, functions and branches 100%.
    none = [hwt, 'report', 'lcov', '-q', '-o', 'none.info', '--include', '/nonexistent/*']
    expect('no line, line gate', run(none + ['--fail-under-lines', '1', 'run.hwt']), 4)
    expect('no function or branch, gates at 100', run(
        none + ['--fail-under-functions', '100', '--fail-under-branches', '100', 'run.hwt']), 0)
    for bad in ('101', '-1', 'abc', '50%', ''):
        expect('--fail-under-lines %r' % bad, run(
            [hwt, 'report', 'lcov', '--fail-under-lines', bad, 'run.hwt']), 2,
            ['wants a percentage'])

    for f in failures:
        print('  FAIL %s' % f)
    print('gates: %d exit statuses checked, %d wrong' % (checked, len(failures)))
    return 1 if failures else 0


if __name__ == '__main__':
    try:
        sys.exit(main())
    except RuntimeError as e:
        print('gates: FAIL: %s' % e)
        sys.exit(1)
