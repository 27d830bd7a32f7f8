#!/usr/bin/env python3
"""The cost of hwt-cov --per-test on a suite of 200 CTest tests (issue 36:
at most 10% over plain hwt-cov): a CMake project of examples/calc's library
and three test programs, run as 200 tests (each program about 67 times,
distinct arguments), built at -O0 -g. The suite is recorded once (hwt-cov
--keep: its CPU time is the recording's, the same with or without
--per-test), then `hwt report lcov` and `hwt report lcov --per-test` on the
bundle alternate REPEAT times; CPU time (user+sys, of the command and its
children), the medians. The figure: (record + per-test report) over
(record + plain report), and the reports alone.

usage: bench/cov/per_test.py BUILD_DIR [TESTS [REPEAT]]
"""
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CALC = os.path.join(ROOT, 'examples', 'calc')
PROGRAMS = ['test_arith', 'test_parse', 'test_prime']


def cpu(cmd, **kw):
    """CPU seconds (user+sys) of cmd and its children."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, **kw)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode != 0:
        sys.exit('%s: status %d: %s' % (' '.join(cmd), r.returncode, r.stderr))
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main():
    build = os.path.abspath(sys.argv[1])
    tests = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    repeat = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    hwt_cov, hwt = os.path.join(build, 'bin', 'hwt-cov'), os.path.join(build, 'bin', 'hwt')
    work = tempfile.mkdtemp(prefix='hwt-bench-per-test.')
    try:
        src = os.path.join(work, 'src')
        os.makedirs(src)
        for name in os.listdir(CALC):
            if name.endswith(('.c', '.h')):
                shutil.copy(os.path.join(CALC, name), src)
        with open(os.path.join(src, 'CMakeLists.txt'), 'w') as f:
            f.write('cmake_minimum_required(VERSION 3.16)\nproject(bench C)\nenable_testing()\n'
                    'add_library(calc SHARED calc.c)\n')
            for p in PROGRAMS:
                f.write('add_executable(%s %s.c)\ntarget_link_libraries(%s PRIVATE calc)\n' %
                        (p, p, p))
            for i in range(tests):
                p = PROGRAMS[i % len(PROGRAMS)]
                f.write('add_test(NAME t%03d.%s COMMAND %s %d)\n' % (i, p, p, i))
        out = os.path.join(work, 'build')
        for cmd in (['cmake', '-S', src, '-B', out, '-DCMAKE_C_FLAGS=-O0 -g'],
                    ['cmake', '--build', out, '-j2']):
            subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        bundle = os.path.join(work, 'bundle')
        record = cpu([hwt_cov, '-q', '--keep', bundle, '-o', os.path.join(work, 'a.info'),
                      '--', 'ctest'], cwd=out)
        plain, per = [], []
        for _ in range(repeat):
            plain.append(cpu([hwt, 'report', 'lcov', '-q', '-o', os.path.join(work, 'p.info'),
                              bundle], cwd=out))
            per.append(cpu([hwt, 'report', 'lcov', '-q', '--per-test', '-o',
                            os.path.join(work, 't.info'), bundle], cwd=out))
        sections = sum(1 for l in open(os.path.join(work, 't.info')) if l.startswith('TN:'))
        p, t = statistics.median(plain), statistics.median(per)
        print('tests: %d (TN records: %d)' % (tests, sections))
        print('hwt-cov --keep (record + decode + report), CPU: %.2f s' % record)
        print('report lcov: %.3f s; --per-test: %.3f s (medians of %d, CPU)' % (p, t, repeat))
        print('hwt-cov total: plain %.2f s, --per-test %.2f s: +%.1f%%' %
              (record, record - p + t, 100.0 * (t - p) / record))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == '__main__':
    main()
