#!/usr/bin/env python3
"""The installed tree: relocatable, with the CMake package working.

`cmake --install BUILD --prefix P`, then P is moved elsewhere. From the
moved tree:
  - the layout: the commands, lib/hwt (preloaded library, QEMU plugin,
    Valgrind tool with valid links to Valgrind's files), the CMake
    package, the manual pages, bash completion, the docs and the example;
  - hwt-cov finds its trace units relative to itself: under --unit
    valgrind and (when qemu-x86_64 is there) --unit qemu it reports the
    test project's suite;
  - a project outside the tree (ci_project.py) uses find_package(hwt)
    with CMAKE_PREFIX_PATH the moved prefix; `cmake --build . --target
    coverage` in a fresh build directory (nothing built before) builds the
    project, runs its CTest suite under hwt-cov and writes lcov, Cobertura
    and HTML into the build tree; a target with COMMAND runs only that
    command; FAIL_UNDER_LINES above the coverage fails the build with the
    gate's message.

usage: install_tree.py BUILD_DIR WORK
"""
import os
import shutil
import sys
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ci_project  # noqa: E402

EXTRA = '''find_package(hwt 0.1 REQUIRED)
hwt_add_coverage_target(coverage FAIL_UNDER_LINES 50)
hwt_add_coverage_target(coverage_arith COMMAND $<TARGET_FILE:test_arith>)
hwt_add_coverage_target(coverage_strict INCLUDE "*/extra.c" FAIL_UNDER_LINES 99
                        OPTIONS --fail-under-branches 10)
'''


check = ci_project.check


def lcov_files(path):
    return sorted(os.path.basename(line[3:].strip()) for line in open(path)
                  if line.startswith('SF:'))


def main():
    build, work = sys.argv[1:3]
    if os.path.exists(work):
        shutil.rmtree(work)
    os.makedirs(work)
    staged, prefix = os.path.join(work, 'staged'), os.path.join(work, 'moved', 'hwt')
    ci_project.run(['cmake', '--install', build, '--prefix', staged])
    os.makedirs(os.path.dirname(prefix))
    os.rename(staged, prefix)

    for f in ('bin/hwt', 'bin/hwt-cov', 'bin/hwt-pgo', 'lib/hwt/libhwt-preload.so',
              'lib/hwt/qemu/libhwt-qemu.so', 'lib/hwt/valgrind/hwt-amd64-linux',
              'lib/hwt/valgrind/none-amd64-linux', 'lib/cmake/hwt/hwtConfig.cmake',
              'lib/cmake/hwt/hwtConfigVersion.cmake', 'lib/cmake/hwt/hwtCoverage.cmake',
              'share/man/man1/hwt.1.gz', 'share/man/man1/hwt-cov.1.gz',
              'share/man/man1/hwt-pgo.1.gz',
              'share/bash-completion/completions/hwt', 'share/bash-completion/completions/hwt-cov',
              'share/doc/hwt/docs/ci.md', 'share/doc/hwt/ci/github-actions.yml',
              'share/doc/hwt/examples/calc/calc.c'):
        check(os.path.exists(os.path.join(prefix, f)), 'installed tree lacks %s' % f)
    vg = os.path.join(prefix, 'lib/hwt/valgrind')
    links = [n for n in os.listdir(vg) if os.path.islink(os.path.join(vg, n))]
    broken = [n for n in links if not os.path.exists(os.path.join(vg, n))]
    check(links and not broken, 'Valgrind links: %d, broken %s' % (len(links), broken))
    total = sum(len(files) for _, _, files in os.walk(prefix))
    print('  installed %d files (%d links to Valgrind) into %s, moved there after the install'
          % (total, len(links), prefix))

    repo = ci_project.make_project(os.path.join(work, 'project'), EXTRA)
    hwt_cov = os.path.join(prefix, 'bin', 'hwt-cov')
    units = ['valgrind'] + (['qemu'] if shutil.which('qemu-x86_64') else [])
    plain = os.path.join(repo, 'plain')
    ci_project.run(['cmake', '-S', repo, '-B', plain, '-DCMAKE_PREFIX_PATH=' + prefix])
    ci_project.run(['cmake', '--build', plain])
    for unit in units:
        out = os.path.join(work, unit + '.info')
        p = ci_project.run([hwt_cov, '--unit', unit, '-o', out, '--', 'ctest', '--test-dir',
                            plain], check=False)
        check(p.returncode == 0, 'moved hwt-cov --unit %s: exit %d: %s' %
              (unit, p.returncode, p.stderr))
        check(lcov_files(out) == ['calc.c', 'extra.c', 'test_arith.c', 'test_parse.c',
                                  'test_prime.c'], '%s: files %s' % (unit, lcov_files(out)))
        summary = [line for line in p.stderr.splitlines() if 'lines......' in line]
        print('  moved hwt-cov --unit %s: %s' % (unit, summary[0] if summary else '?'))

    # The CMake package, from a build directory where nothing was built.
    b = os.path.join(repo, 'b')
    ci_project.run(['cmake', '-S', repo, '-B', b, '-DCMAKE_PREFIX_PATH=' + prefix])
    p = ci_project.run(['cmake', '--build', b, '--target', 'coverage'], check=False)
    check(p.returncode == 0, 'cmake --build --target coverage: exit %d\n%s%s' %
          (p.returncode, p.stdout[-3000:], p.stderr[-3000:]))
    out = os.path.join(b, 'coverage')
    for f in ('coverage.info', 'coverage.xml', 'html/index.html'):
        check(os.path.exists(os.path.join(out, f)), 'coverage target: no %s' % f)
    files = lcov_files(os.path.join(out, 'coverage.info'))
    check(files == ['calc.c', 'extra.c', 'test_arith.c', 'test_parse.c', 'test_prime.c'],
          'coverage target: files %s' % files)
    root = ET.parse(os.path.join(out, 'coverage.xml')).getroot()
    lf = lh = 0
    for line in open(os.path.join(out, 'coverage.info')):
        if line.startswith('LF:'):
            lf += int(line[3:])
        elif line.startswith('LH:'):
            lh += int(line[3:])
    check(int(root.get('lines-valid')) == lf and int(root.get('lines-covered')) == lh,
          'Cobertura %s/%s lines, lcov %d/%d' % (root.get('lines-covered'),
                                                root.get('lines-valid'), lh, lf))
    print('  cmake --build --target coverage: %s (lines %d of %d), coverage.xml, html/' %
          (', '.join(files), lh, lf))

    p = ci_project.run(['cmake', '--build', b, '--target', 'coverage_arith'], check=False)
    files = lcov_files(os.path.join(b, 'coverage_arith', 'coverage.info'))
    check(p.returncode == 0 and files == ['calc.c', 'extra.c', 'test_arith.c'],
          'coverage_arith: exit %d, files %s' % (p.returncode, files))
    p = ci_project.run(['cmake', '--build', b, '--target', 'coverage_strict'], check=False)
    check(p.returncode != 0 and '--fail-under-lines 99' in p.stdout + p.stderr,
          'coverage_strict: exit %d\n%s%s' % (p.returncode, p.stdout[-2000:], p.stderr[-2000:]))
    files = lcov_files(os.path.join(b, 'coverage_strict', 'coverage.info'))
    check(files == ['extra.c'], 'coverage_strict: files %s' % files)
    print('  COMMAND: only test_arith ran; INCLUDE and FAIL_UNDER_LINES 99: the build fails')
    print('install_tree: the moved tree records, reports and serves find_package(hwt)')
    return 0


if __name__ == '__main__':
    ci_project.main_of('install_tree', main)
