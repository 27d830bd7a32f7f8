#!/usr/bin/env python3
"""Diff coverage against diff-cover (Debian's diff-cover, not ours).

A test repository with two commits (ci_project.py: the calc example on
main, then a change on a branch touching several files) is built and its
CTest suite run under hwt-cov, which writes lcov and Cobertura and its own
diff report (--diff origin/main). Then:

  - diff-cover on hwt's lcov, and diff-cover on hwt's Cobertura, give the
    per-file and total figures of `hwt report diff --base origin/main`:
    the same files, the same lines not run, the same percentages, the
    same totals (diff-cover truncates the total to an integer);
  - hwt-cov --diff wrote the same report as hwt report diff;
  - the figures are the ones the change was made to have.

usage: diff_cover_oracle.py HWT HWT_COV WORK
"""
import json
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ci_project  # noqa: E402


check = ci_project.check


def diff_cover(repo, report, out):
    p = ci_project.run(['diff-cover', report, '--compare-branch=origin/main',
                        '--json-report', out], cwd=repo, check=False)
    check(p.returncode == 0, 'diff-cover %s: exit %d: %s' % (report, p.returncode, p.stderr))
    return json.load(open(out))


def compare(dc, hwt, what):
    """diff-cover's JSON report against hwt's; returns the lines compared."""
    stats = dc['src_stats']
    files = {f['path']: f for f in hwt['files']}
    check(sorted(stats) == sorted(files),
          '%s: files: diff-cover %s, hwt %s' % (what, sorted(stats), sorted(files)))
    for path, s in sorted(stats.items()):
        f = files[path]
        check(s['violation_lines'] == f['lines_not_run'],
              '%s: %s: lines not run: diff-cover %s, hwt %s' %
              (what, path, s['violation_lines'], f['lines_not_run']))
        check(abs(s['percent_covered'] - f['percent_covered']) < 1e-9,
              '%s: %s: diff-cover %r%%, hwt %r%%' %
              (what, path, s['percent_covered'], f['percent_covered']))
        print('  %s %-14s diff-cover %6.2f%%  hwt %6.2f%%  (%d of %d lines; not run %s)' %
              (what, path, s['percent_covered'], f['percent_covered'], f['lines_covered'],
               f['lines_measured'], f['lines_not_run']))
    check(dc['total_num_lines'] == hwt['lines_measured'],
          '%s: total lines: diff-cover %d, hwt %d' % (what, dc['total_num_lines'],
                                                       hwt['lines_measured']))
    check(dc['total_num_violations'] == hwt['lines_measured'] - hwt['lines_covered'],
          '%s: lines not run: diff-cover %d, hwt %d' %
          (what, dc['total_num_violations'], hwt['lines_measured'] - hwt['lines_covered']))
    check(dc['total_percent_covered'] == int(hwt['percent_covered']),
          '%s: total: diff-cover %r%%, hwt %r%%' % (what, dc['total_percent_covered'],
                                                    hwt['percent_covered']))
    check(dc['num_changed_lines'] == hwt['lines_changed'],
          '%s: changed lines: diff-cover %d, hwt %d' % (what, dc['num_changed_lines'],
                                                       hwt['lines_changed']))
    print('  %s total: diff-cover %d%% (%d lines, %d not run, %d changed), hwt %.2f%%' %
          (what, dc['total_percent_covered'], dc['total_num_lines'],
           dc['total_num_violations'], dc['num_changed_lines'], hwt['percent_covered']))


def main():
    if not shutil.which('diff-cover'):
        print('diff_cover_oracle: SKIP: no diff-cover (Debian: diff-cover)')
        return 77
    hwt, hwt_cov, work = sys.argv[1:4]
    repo = ci_project.make_project(work)
    ci_project.build(repo)
    p = ci_project.run([hwt_cov, '-o', 'cov.info', '-o', 'cov.xml', '--diff', 'origin/main',
                        '--diff-output', 'hwt-cov-diff.json', '--', 'ctest', '--test-dir',
                        'build'], cwd=repo, check=False)
    check(p.returncode == 0, 'hwt-cov: exit %d: %s' % (p.returncode, p.stderr))
    p = ci_project.run([hwt, 'report', 'diff', '--base', 'origin/main', '--format', 'json',
                        '-o', 'report.json', 'cov.info'], cwd=repo, check=False)
    check(p.returncode == 0, 'hwt report diff: exit %d: %s' % (p.returncode, p.stderr))
    report = json.load(open(os.path.join(repo, 'report.json')))
    check(json.load(open(os.path.join(repo, 'hwt-cov-diff.json'))) == report,
          'hwt-cov --diff and hwt report diff differ')

    compare(diff_cover(repo, 'cov.info', os.path.join(work, 'dc-lcov.json')), report, 'lcov')
    compare(diff_cover(repo, 'cov.xml', os.path.join(work, 'dc-cobertura.json')), report,
            'cobertura')

    # What the change was made to have (ci_project.change).
    files = {f['path']: f for f in report['files']}
    check(sorted(files) == ['calc.c', 'extra.c', 'test_arith.c'],
          'files with changed code: %s' % sorted(files))
    check(files['test_arith.c']['lines_covered'] == files['test_arith.c']['lines_measured'] == 2,
          'test_arith.c: %s' % files['test_arith.c'])
    check(0 < files['calc.c']['lines_covered'] < files['calc.c']['lines_measured'],
          'calc.c: partly run: %s' % files['calc.c'])
    check(0 < files['extra.c']['lines_covered'] < files['extra.c']['lines_measured'],
          'extra.c: partly run: %s' % files['extra.c'])
    # Without the change there is nothing to measure: 100%, as diff-cover says.
    ci_project.git(repo, 'checkout', '-q', 'origin/main')
    p = ci_project.run([hwt, 'report', 'diff', '--base', 'origin/main', '--format', 'json',
                        '--fail-under-diff', '100', 'cov.info'], cwd=repo, check=False)
    empty = json.loads(p.stdout)
    check(p.returncode == 0 and empty['files'] == [] and empty['percent_covered'] == 100,
          'no change: exit %d, %s' % (p.returncode, p.stdout))
    print('diff_cover_oracle: hwt report diff agrees with diff-cover on lcov and on Cobertura')
    return 0


if __name__ == '__main__':
    ci_project.main_of('diff_cover_oracle', main)
