#!/usr/bin/env python3
"""The Debian package: `cpack -G DEB` of the build, its contents and
fields, and the demo run from a tree unpacked from it.

The .deb is built from BUILD's CPack configuration into WORK, listed
(dpkg-deb -c: every file is printed with the count) and its control
fields read: Depends must name the Debian packages of the shared
libraries the commands link (found here with dpkg -S) and Valgrind at the
version the tool was built against; every package named in Depends and
Recommends must be one Debian has (apt-cache show). The package is not
installed system-wide: `dpkg -x` unpacks it into a temporary root, and
the demo runs from there: the bundled example (ROOT/usr/share/doc/hwt/
examples/calc) is built and its suite measured by ROOT/usr/bin/hwt-cov,
lcov and HTML, and the figures must be those of the build tree's hwt-cov.

usage: deb_package.py BUILD_DIR WORK
"""
import glob
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ci_project  # noqa: E402

run = ci_project.run


check = ci_project.check


def packages_of(field):
    """Package names of a Depends-style field."""
    names = []
    for alt in field.split(','):
        for p in alt.split('|'):
            p = p.strip()
            if p:
                names.append(re.split(r'[\s(]', p)[0])
    return names


def packages_holding(paths):
    """{path: the package that holds it} for the PATHS dpkg -S finds.

    One dpkg -S for all of them (a call reads dpkg's whole file list); a
    path that its answer does not name is asked about again on its own."""
    owners = {}
    if not paths:
        return owners
    p = subprocess.run(['dpkg', '-S'] + paths, stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, text=True)
    for line in p.stdout.splitlines():
        if ': ' in line and not line.startswith('diversion by '):
            holders, path = line.rsplit(': ', 1)
            if path in paths:
                owners.setdefault(path, holders.split(':')[0])
    for path in paths:
        if path not in owners:
            p = subprocess.run(['dpkg', '-S', path], stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True)
            if p.returncode == 0:
                owners[path] = p.stdout.split(':')[0]
    return owners


def debian_packages(names):
    """The NAMES that `apt-cache show` knows.

    One call for all of them: each call reads every package list again
    (Debian's container images turn apt's binary cache off), about 2 s of
    CPU here. A name the one call did not show (it skips unknown names, and
    fails on a virtual one) is asked about on its own."""
    known = set()
    if not names:
        return known
    p = subprocess.run(['apt-cache', 'show'] + names, stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, text=True)
    if p.returncode == 0:
        known = set(re.findall(r'^Package: (\S+)$', p.stdout, re.M)) & set(names)
    for name in names:
        if name not in known:
            p = subprocess.run(['apt-cache', 'show', name], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
            if p.returncode == 0:
                known.add(name)
    return known


def lcov_summary(info):
    """{file base name: (LH, LF)}"""
    out, cur = {}, None
    for line in open(info):
        if line.startswith('SF:'):
            cur = os.path.basename(line[3:].strip())
        elif line.startswith('LF:'):
            lf = int(line[3:])
        elif line.startswith('LH:'):
            out[cur] = (int(line[3:]), lf)
    return out


def main():
    build, work = sys.argv[1:3]
    for tool in ('dpkg-deb', 'dpkg-shlibdeps', 'cpack'):
        if not shutil.which(tool):
            print('deb_package: SKIP: no %s (Debian: dpkg-dev, cmake)' % tool)
            return 77
    if os.path.exists(work):
        shutil.rmtree(work)
    os.makedirs(work)
    run(['cpack', '--config', os.path.join(build, 'CPackConfig.cmake'), '-G', 'DEB', '-B', work])
    debs = glob.glob(os.path.join(work, '*.deb'))
    check(len(debs) == 1, 'cpack wrote %s' % debs)
    deb = debs[0]
    listing = run(['dpkg-deb', '-c', deb]).stdout.splitlines()
    print('  %s: %d entries:' % (os.path.basename(deb), len(listing)))
    for line in listing:
        print('    ' + line)
    paths = {line.split()[5].lstrip('.') for line in listing}
    for f in ('/usr/bin/hwt', '/usr/bin/hwt-cov', '/usr/bin/hwt-pgo',
              '/usr/lib/hwt/libhwt-preload.so', '/usr/lib/hwt/qemu/libhwt-qemu.so',
              '/usr/lib/hwt/valgrind/hwt-amd64-linux', '/usr/lib/cmake/hwt/hwtConfig.cmake',
              '/usr/share/man/man1/hwt-cov.1.gz', '/usr/share/bash-completion/completions/hwt',
              '/usr/share/doc/hwt/examples/calc/calc.c', '/usr/share/doc/hwt/ci/gitlab-ci.yml'):
        check(f in paths, 'the package lacks %s' % f)

    fields = {}
    for name in ('Package', 'Version', 'Architecture', 'Depends', 'Recommends', 'Suggests'):
        fields[name] = run(['dpkg-deb', '-f', deb, name]).stdout.strip()
        print('  %s: %s' % (name, fields[name]))
    depends = packages_of(fields['Depends'])
    # The libraries the commands link (DT_NEEDED), and the packages that hold them here.
    wanted = set()
    linked = []
    for exe in ('hwt', 'hwt-cov', 'hwt-pgo'):
        path = os.path.join(build, 'bin', exe)
        needed = re.findall(r'\(NEEDED\)\s+Shared library: \[([^]]+)\]',
                            run(['readelf', '-d', path]).stdout)
        where = dict(re.findall(r'^\s*(\S+) => (/\S+)', run(['ldd', path]).stdout, re.M))
        for soname in needed:
            linked.append((exe, soname, [c for c in (where.get(soname, ''),
                                                     os.path.realpath(where.get(soname, ''))) if c]))
    owners = packages_holding(sorted({c for _, _, cs in linked for c in cs}))
    for exe, soname, candidates in linked:
        for candidate in candidates:
            if candidate in owners:
                wanted.add(owners[candidate])
                break
        else:
            raise AssertionError('%s: no package holds %s' % (exe, soname))
    missing = sorted(w for w in wanted if w not in depends and not w.startswith('libasan') and
                     not w.startswith('libubsan'))
    check(not missing, 'Depends lacks %s (the libraries the commands link)' % missing)
    # and those they load when first needed (perfdata/hwt_opencsd.h, converters/stacks/util.c)
    for loaded in ('libopencsd1', 'libstdc++6'):
        check(loaded in depends, 'Depends lacks %s (a library the commands load)' % loaded)
    vg = run(['dpkg-query', '-W', '-f=${Version}', 'valgrind']).stdout
    upstream = re.match(r'^(\d+:)?[\d.]+', vg).group(0)
    check('valgrind (>= %s)' % upstream in fields['Depends'],
          'Depends does not hold Valgrind at %s: %s' % (upstream, fields['Depends']))
    named = depends + packages_of(fields['Recommends']) + packages_of(fields['Suggests'])
    unknown = sorted(set(named) - debian_packages(sorted(set(named))))
    check(not unknown, '%s (in the control fields): no Debian package' % ', '.join(unknown))
    print('  Depends names %s (the linked libraries: %s)' % (', '.join(sorted(set(depends))),
                                                              ', '.join(sorted(wanted))))

    # The demo, from a tree unpacked from the package (not installed system-wide).
    root = os.path.join(work, 'root')
    run(['dpkg', '-x', deb, root])
    usr = os.path.join(root, 'usr')
    version = run([os.path.join(usr, 'bin', 'hwt'), '--version']).stdout.strip()
    check(version == 'hwt ' + fields['Version'], 'hwt --version: %s' % version)
    calc = os.path.join(work, 'calc')
    shutil.copytree(os.path.join(usr, 'share', 'doc', 'hwt', 'examples', 'calc'), calc)
    run(['cmake', '-S', calc, '-B', os.path.join(calc, 'build')])
    run(['cmake', '--build', os.path.join(calc, 'build')])
    demo = os.path.join(work, 'demo')
    p = run([os.path.join(usr, 'bin', 'hwt-cov'), '-o', demo + '.info', '--html', demo,
             '--', 'sh', os.path.join(calc, 'run-tests.sh'), os.path.join(calc, 'build')])
    check(os.path.exists(os.path.join(demo, 'index.html')), 'the demo wrote no HTML')
    from_deb = lcov_summary(demo + '.info')
    p2 = run([os.path.join(build, 'bin', 'hwt-cov'), '-q', '-o', demo + '-build.info', '--',
              'sh', os.path.join(calc, 'run-tests.sh'), os.path.join(calc, 'build')])
    check(from_deb == lcov_summary(demo + '-build.info'),
          'the unpacked hwt-cov: %s, the build tree\'s: %s' %
          (from_deb, lcov_summary(demo + '-build.info')))
    print('  the demo from the unpacked tree (dpkg -x): %s' %
          ', '.join('%s %d/%d lines' % (f, h, n) for f, (h, n) in sorted(from_deb.items())))
    print('deb_package: %s built, listed, unpacked; the demo ran from it' %
          os.path.basename(deb))
    return 0


if __name__ == '__main__':
    ci_project.main_of('deb_package', main)
