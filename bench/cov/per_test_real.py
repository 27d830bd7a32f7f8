#!/usr/bin/env python3
"""hwt-cov --per-test against gcov, test by test, on real projects' CTest
suites (issue 36's oracle per CTest test): Debian source packages (fetched
with `apt-get source` at run time into the cache, never stored in the
repository), each built twice with CMake, at -O0 -g and at -O0 -g
--coverage. One `hwt-cov --per-test -- ctest` in the first; for each test
of `ctest --show-only=json-v1`, `ctest -R '^NAME$'` alone in the second
and `lcov --capture -t NAME` are the oracle of its TN section: lines run
and not run, their counts, function calls, over the project's sources
that the test ran according to gcov, with the exceptions that
tests/lcov/gcov_oracle.py documents (label lines, loops on one line).
Prints a line per test (lines compared, with the same count, differences)
and the differences themselves.

With --time N it measures instead (issue 36's cost, on a real suite): the
suite recorded once (hwt-cov --keep), then `hwt report lcov` and `hwt
report lcov --per-test` on the bundle alternate N times (and the
--per-test report of another build, -B, to compare two builds on the same
bundle); CPU time (user+sys, children included), the medians.

usage: bench/cov/per_test_real.py [-b HWT_BUILD_DIR] [-w WORK_DIR] [--time N [-B OTHER]] [SUITE...]
SUITEs: double-conversion (C++, 9 tests of one program, by argument),
        json-c (C, 23 tests, each a shell script running its program)
        [default: both]
"""
import argparse
import glob
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, 'tests', 'lcov'))
from gcov_oracle import compare  # noqa: E402
from per_test import parse_lcov_text, sections  # noqa: E402

# name: (Debian source package, CMake options, environment of the tests)
SUITES = {
    'double-conversion': ('double-conversion', ['-DBUILD_TESTING=ON'], {}),
    # Its tests run under memcheck when valgrind is installed (FACTS.md):
    # a program under another Valgrind tool cannot be traced.
    'json-c': ('json-c', ['-DBUILD_TESTING=ON'], {'USE_VALGRIND': '0'}),
}


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def must(cmd, **kw):
    r = run(cmd, **kw)
    if r.returncode != 0:
        sys.exit('%s: status %d\n%s%s' % (' '.join(cmd), r.returncode, r.stdout, r.stderr))
    return r


def fetch(package, cache):
    """The unpacked source of package (apt-get source, once)."""
    os.makedirs(cache, exist_ok=True)
    def unpacked():
        return [d for d in glob.glob(os.path.join(cache, package + '-[0-9]*'))
                if os.path.isfile(os.path.join(d, 'CMakeLists.txt')) and
                not os.path.exists(os.path.join(d, 'CMakeCache.txt'))]
    found = unpacked()
    if not found:
        must(['apt-get', 'source', '-q', package], cwd=cache)
        found = unpacked()
    if not found:
        sys.exit('apt-get source %s: no source directory in %s' % (package, cache))
    return sorted(found)[-1]


def build(src, out, flags, options):
    if os.path.exists(os.path.join(out, 'CTestTestfile.cmake')):
        return
    must(['cmake', '-S', src, '-B', out, '-DCMAKE_BUILD_TYPE=', '-DBUILD_SHARED_LIBS=ON',
          '-DCMAKE_C_FLAGS=' + flags, '-DCMAKE_CXX_FLAGS=' + flags] + options)
    must(['cmake', '--build', out, '-j2'])


def ran_sources(info, src):
    """The project's sources (under src) with a line run in the lcov file."""
    out = []
    for path, f in parse_lcov_text(open(info).read()).items():
        if path.startswith(src + '/') and any(c > 0 for c in f['lines'].values()):
            out.append(path)
    return sorted(out)


def cpu(cmd, **kw):
    """CPU seconds (user+sys) of cmd and its children; exits on a failure."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    r = run(cmd, **kw)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode not in (0, 8):   # 8: a test failed, said in the report
        sys.exit('%s: status %d: %s' % (' '.join(cmd), r.returncode, r.stderr))
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def time_suite(name, build_dir, other, work, cache, repeat):
    """The per-test report's CPU time against the plain report's, on one bundle."""
    package, options, env_add = SUITES[name]
    env = dict(os.environ, **env_add)
    src = os.path.realpath(fetch(package, cache))
    plain = os.path.realpath(os.path.join(work, name + '-plain'))
    build(src, plain, '-O0 -g', options)
    hwt_cov = os.path.join(build_dir, 'bin', 'hwt-cov')
    hwt = os.path.join(build_dir, 'bin', 'hwt')
    bundle = os.path.join(work, name + '.bundle')
    shutil.rmtree(bundle, ignore_errors=True)
    record = cpu([hwt_cov, '-q', '--keep', bundle, '-o', os.path.join(work, name + '.info'),
                  '--', 'ctest'], cwd=plain, env=env)
    times = {'plain': [], 'per-test': [], 'other': []}
    out = {k: os.path.join(work, '%s.time.%s.info' % (name, k)) for k in times}
    for _ in range(repeat):
        times['plain'].append(cpu([hwt, 'report', 'lcov', '-q', '-o', out['plain'], bundle],
                                  cwd=plain, env=env))
        times['per-test'].append(cpu([hwt, 'report', 'lcov', '-q', '--per-test', '-o',
                                      out['per-test'], bundle], cwd=plain, env=env))
        if other:
            times['other'].append(cpu([os.path.join(other, 'bin', 'hwt'), 'report', 'lcov', '-q',
                                       '--per-test', '-o', out['other'], bundle],
                                      cwd=plain, env=env))
    med = {k: statistics.median(v) for k, v in times.items() if v}
    print('%s (%s): hwt-cov --keep -- ctest: %.2f s CPU' % (name, os.path.basename(src), record))
    print('  report lcov %.3f s, --per-test %.3f s (medians of %d, CPU): +%.1f%% of the recording'
          % (med['plain'], med['per-test'], repeat,
             100.0 * (med['per-test'] - med['plain']) / record))
    if other:
        same = open(out['other']).read() == open(out['per-test']).read()
        print('  %s --per-test: %.3f s; its output %s' %
              (other, med['other'], 'is the same' if same else 'DIFFERS'))
        return same
    return True


def run_suite(name, hwt_cov, work, cache):
    package, options, env_add = SUITES[name]
    env = dict(os.environ, **env_add)
    src = os.path.realpath(fetch(package, cache))
    # Real paths: lcov --capture -d through a symbolic link finds no data.
    plain = os.path.realpath(os.path.join(work, name + '-plain'))
    cov = os.path.realpath(os.path.join(work, name + '-cov'))
    build(src, plain, '-O0 -g', options)
    build(src, cov, '-O0 -g --coverage', options)
    tests = [t['name'] for t in json.loads(must(['ctest', '--show-only=json-v1'],
                                                cwd=plain).stdout)['tests']]
    info = os.path.join(work, name + '.per_test.info')
    r = run([hwt_cov, '-q', '--per-test', '-o', info, '--', 'ctest'], cwd=plain, env=env)
    if not os.path.exists(info):
        sys.exit('%s: hwt-cov --per-test: status %d: %s' % (name, r.returncode, r.stderr))
    if r.stderr.strip():
        print('%s: hwt-cov said: %s' % (name, r.stderr.strip()))
    got = sections(info)
    totals = {'tests': 0, 'equal': 0, 'lines': 0, 'same': 0, 'exceptions': 0}
    print('%s (%s): %d CTest tests' % (name, os.path.basename(src), len(tests)))
    for test in tests:
        tn = re.sub(r'\W', '_', test)
        totals['tests'] += 1
        if tn not in got:
            print('  %-28s no TN:%s section' % (test, tn))
            continue
        must(['lcov', '-q', '--zerocounters', '-d', cov])
        r = run(['ctest', '-R', '^%s$' % re.escape(test)], cwd=cov, env=env)
        oracle = os.path.join(work, '%s.%s.gcov.info' % (name, tn))
        must(['lcov', '-q', '--capture', '-d', cov, '-t', tn, '-o', oracle])
        mine = os.path.join(work, '%s.%s.hwt.info' % (name, tn))
        with open(mine, 'w') as f:
            f.write(got[tn])
        sources = ran_sources(oracle, src)
        extra = sorted(set(ran_sources(mine, src)) - set(sources))
        with open(os.path.join(work, '%s.%s.diff' % (name, tn)), 'w') as report:
            mismatches, stats = compare(oracle, mine, sources, 'gcc', report)
        mismatches += ['%s: ran according to hwt only' % s for s in extra]
        if not sources:
            mismatches.append('gcov says the test ran none of the sources: nothing compared')
        exceptions = sum(len(v) for v in stats['exceptions'].values())
        totals['lines'] += stats['lines']
        totals['same'] += stats['counts_agree']
        totals['exceptions'] += exceptions
        totals['equal'] += not mismatches
        print('  %-28s %s  %5d lines, %5d same count, %3d exceptions, %d differences%s' %
              (test, 'equal' if not mismatches else 'DIFFERS', stats['lines'],
               stats['counts_agree'], exceptions, len(mismatches),
               '' if r.returncode == 0 else ' (the test failed under gcov)'))
        for m in mismatches:
            print('    ' + m)
    print('%s: %d of %d tests equal; %d lines compared, %d with the same count, %d exceptions' %
          (name, totals['equal'], totals['tests'], totals['lines'], totals['same'],
           totals['exceptions']))
    return totals['equal'] == totals['tests']


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('-b', default=os.path.join(ROOT, 'build'), help='hwt build directory')
    ap.add_argument('-w', default='/tmp/hwt-per-test-real', help='work directory')
    ap.add_argument('--time', type=int, metavar='N',
                    help='measure the per-test report N times instead of comparing with gcov')
    ap.add_argument('-B', help='with --time: another hwt build whose --per-test report alternates')
    ap.add_argument('suites', nargs='*', default=sorted(SUITES))
    args = ap.parse_args()
    for s in args.suites:
        if s not in SUITES:
            sys.exit('unknown suite %s (known: %s)' % (s, ', '.join(sorted(SUITES))))
    cache = os.path.join(os.environ.get('XDG_CACHE_HOME') or
                         os.path.join(os.path.expanduser('~'), '.cache'), 'hwt-bench', 'apt')
    os.makedirs(args.w, exist_ok=True)
    hwt_cov = os.path.join(os.path.abspath(args.b), 'bin', 'hwt-cov')
    ok = True
    for s in args.suites:
        if args.time:
            ok &= time_suite(s, os.path.abspath(args.b), args.B and os.path.abspath(args.B),
                             os.path.abspath(args.w), cache, args.time)
        else:
            ok &= run_suite(s, hwt_cov, os.path.abspath(args.w), cache)
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
