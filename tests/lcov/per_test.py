#!/usr/bin/env python3
"""hwt-cov --per-test against gcov, test by test: a small CMake project
(examples/calc's library and tests, as four CTest tests, one of them a
shell script that runs the three programs) is built twice, at -O0 -g and
with --coverage. hwt-cov --per-test runs its ctest once; for each test,
`ctest -R '^NAME$'` alone in the --coverage build and `lcov --capture -t
NAME` are the oracle that hwt's TN section of that test must equal (lines
run and not run, their counts, function calls; the documented exceptions of
gcov_oracle.py), and genhtml --show-details must read the file. The
JSON summary's tests have their sections' totals; its whole run, and
Cobertura (no place for tests), are those of a report without --per-test. Under a
generic driver (sh), each traced process tree is a test named by its
command line, or by --test-name.

usage: per_test.py HWT_COV WORK_DIR
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from gcov_oracle import compare, parse_lcov, run  # noqa: E402

CALC = os.path.join(os.path.dirname(os.path.dirname(HERE)), 'examples', 'calc')
TESTS = ['test_arith', 'test_parse', 'test_prime']
PROJECT = """cmake_minimum_required(VERSION 3.16)
project(per_test C)
enable_testing()
add_library(calc SHARED {calc}/calc.c)
target_include_directories(calc PUBLIC {calc})
foreach(t test_arith test_parse test_prime)
  add_executable(${{t}} {calc}/${{t}}.c)
  target_link_libraries(${{t}} PRIVATE calc)
  add_test(NAME calc.${{t}} COMMAND ${{t}})
endforeach()
configure_file({calc}/run-tests.sh ${{CMAKE_BINARY_DIR}}/run-tests.sh COPYONLY)
add_test(NAME calc.script COMMAND sh ${{CMAKE_BINARY_DIR}}/run-tests.sh)
"""
NAMES = ['calc.' + t for t in TESTS] + ['calc.script']


def sections(path):
    """{TN: lcov text of its records}"""
    out = {}
    name = None
    for line in open(path):
        if line.startswith('TN:'):
            name = line[3:].strip()
        out.setdefault(name, []).append(line)
    return {k: ''.join(v) for k, v in out.items()}


def parse_lcov_text(text):
    """parse_lcov of a section's text"""
    fd, path = tempfile.mkstemp(suffix='.info')
    with os.fdopen(fd, 'w') as f:
        f.write(text)
    try:
        return parse_lcov(path)
    finally:
        os.unlink(path)


def totals(parsed):
    """{path: gcovr's summary keys} and the same summed, of parse_lcov's result"""
    keys = ('line_total', 'line_covered', 'function_total', 'function_covered',
            'branch_total', 'branch_covered')
    files, whole = {}, dict.fromkeys(keys, 0)
    for path, f in parsed.items():
        files[path] = dict(zip(keys, (
            len(f['lines']), sum(c > 0 for c in f['lines'].values()),
            len(f['fns']), sum(c > 0 for c in f['fns'].values()),
            len(f['brs']), sum(bool(t) for t in f['brs'].values()))))
        for k in keys:
            whole[k] += files[path][k]
    return files, whole


def json_totals(entry, root):
    """totals() of an object of the JSON summary (the whole run, a test)"""
    files = {}
    for f in entry['files']:
        path = os.path.normpath(os.path.join(root, f['filename']))
        files[path] = {k: v for k, v in f.items() if k.endswith(('_total', '_covered'))}
    return files, {k: v for k, v in entry.items() if k.endswith(('_total', '_covered'))}


def check_summary(path, info_sections, tn, failures):
    """The JSON summary of --per-test: a test each with the totals of its lcov section."""
    try:
        summary = json.load(open(path))
    except (OSError, ValueError) as e:
        failures.append('%s: %s' % (path, e))
        return
    root = summary.get('root') or '/'
    entries = {t.get('name'): t for t in summary.get('tests', [])}
    if sorted(entries) != sorted(tn):
        failures.append('JSON tests %s, want %s' % (sorted(entries), sorted(tn)))
    wanted = [(name, entries.get(name), tn[name]) for name in tn]
    if '' in info_sections:
        wanted.append(('(outside every test)', summary.get('outside_tests'), ''))
    for name, entry, section in wanted:
        if entry is None or section not in info_sections:
            failures.append('JSON: %s: no entry or no TN:%s section' % (name, section))
            continue
        if 'name' in entry and entry.get('lcov_test_name') != section:
            failures.append('JSON: %s: lcov_test_name %r' % (name, entry.get('lcov_test_name')))
        want = totals(parse_lcov_text(info_sections[section]))
        got = json_totals(entry, root)
        if got != want:
            failures.append('JSON: %s: totals %s, its lcov section %s' % (name, got, want))
        print('JSON summary, %s: %d files, %d of %d lines' %
              (name, len(got[0]), got[1]['line_covered'], got[1]['line_total']))
    return summary


def build(src, out, flags):
    r = run(['cmake', '-S', src, '-B', out, '-DCMAKE_BUILD_TYPE=', '-DCMAKE_C_COMPILER=gcc',
             '-DCMAKE_C_FLAGS=' + flags])
    if r.returncode == 0:
        r = run(['cmake', '--build', out, '-j2'])
    if r.returncode != 0:
        sys.exit('build failed: %s%s' % (r.stdout, r.stderr))


def main():
    hwt_cov, work = sys.argv[1:3]
    shutil.rmtree(work, ignore_errors=True)
    src = os.path.join(work, 'src')
    os.makedirs(src)
    # The sources in the project (the selection traces what it built).
    for name in os.listdir(CALC):
        if name.endswith(('.c', '.h', '.sh')):
            shutil.copy(os.path.join(CALC, name), src)
    with open(os.path.join(src, 'CMakeLists.txt'), 'w') as f:
        f.write(PROJECT.format(calc=src))
    plain, cov = os.path.join(work, 'plain'), os.path.join(work, 'cov')
    build(src, plain, '-O0 -g')
    build(src, cov, '-O0 -g --coverage')
    sources = [os.path.join(src, s + '.c') for s in ['calc'] + TESTS]
    failures = []

    # One traced run of the whole suite, a section per CTest test.
    info = os.path.join(work, 'per_test.info')
    bundle = os.path.join(work, 'bundle')
    summary_json, xml = os.path.join(work, 'per_test.json'), os.path.join(work, 'per_test.xml')
    epoch = dict(os.environ, SOURCE_DATE_EPOCH='1')
    r = run([hwt_cov, '--per-test', '--keep', bundle, '-o', info, '-o', summary_json, '-o', xml,
             '--html', os.path.join(work, 'html'), '--', 'ctest'], cwd=plain, env=epoch)
    print(r.stderr, end='')
    if r.returncode != 0 or 'warning' in r.stderr:
        failures.append('hwt-cov --per-test ctest: status %d or a warning' % r.returncode)
    got = sections(info)
    tn = {n: re.sub(r'\W', '_', n) for n in NAMES}
    for name in NAMES:
        if tn[name] not in got:
            failures.append('no section TN:%s (sections: %s)' % (tn[name], sorted(got)))
    # genhtml --show-details lists the tests on each source page.
    detail = os.path.join(work, 'html', 'src', 'index-detail.html')
    page = open(detail).read() if os.path.exists(detail) else ''
    for name in NAMES:
        if tn[name] not in page:
            failures.append('genhtml --show-details: %s not in %s' % (tn[name], detail))

    hwt = os.path.join(os.path.dirname(hwt_cov), 'hwt')
    # The JSON summary carries the tests (their totals: those of their
    # sections); beside them, and in Cobertura (no place for tests), the
    # whole run, as hwt report lcov writes it without --per-test.
    summary = check_summary(summary_json, got, tn, failures)
    whole_json, whole_xml = os.path.join(work, 'whole.json'), os.path.join(work, 'whole.xml')
    r = run([hwt, 'report', 'lcov', '-q', '-o', whole_json, '-o', whole_xml, bundle], cwd=plain,
            env=epoch)
    if summary is not None and r.returncode == 0:
        whole = json.load(open(whole_json))
        if {k: v for k, v in summary.items() if k not in ('tests', 'outside_tests')} != whole:
            failures.append('JSON summary of --per-test: the whole run differs from %s' %
                            whole_json)
    try:
        per_test_xml = ET.parse(xml).getroot()
        if ET.tostring(per_test_xml) != ET.tostring(ET.parse(whole_xml).getroot()) or \
                not per_test_xml.findall('.//class/lines/line'):
            failures.append('Cobertura of --per-test: not the whole run of %s' % whole_xml)
    except (OSError, ET.ParseError) as e:
        failures.append('Cobertura: %s' % e)
    # The kept bundle gives the same sections (ctest's list taken where it ran).
    again = os.path.join(work, 'again.info')
    r = run([hwt, 'report', 'lcov', '-q', '--per-test', '-o', again, bundle], cwd=plain)
    if r.returncode != 0 or open(again).read() != open(info).read():
        failures.append('hwt report lcov --per-test BUNDLE differs: %s' % r.stderr)
    # A bundle's command is data: one a shell would run more of is not run.
    evil = os.path.join(work, 'evil.bundle')
    shutil.copytree(bundle, evil)
    header = os.path.join(evil, 'hwt-bundle')
    text = open(header).read().replace('command=ctest\n', 'command=ctest $(touch PWNED)\n')
    open(header, 'w').write(text)
    r = run([hwt, 'report', 'lcov', '-q', '--per-test', '-o', os.path.join(work, 'evil.info'),
             evil], cwd=plain)
    if os.path.exists(os.path.join(plain, 'PWNED')) or r.returncode != 0 or \
            'named by their command lines' not in r.stderr:
        failures.append('a bundle command with $(...): status %d, %r' % (r.returncode, r.stderr))
    # Bad input: a clear message and status 2, nothing written.
    for cmd in ([hwt_cov, '--test-name', '(', '--', 'true'],
                [hwt, 'report', 'tests', os.path.join(src, 'calc.c'), 'calc_add'],
                [hwt, 'report', 'impact', '--diff', 'HEAD', info]):
        r = run(cmd, cwd='/')
        if r.returncode != 2 or not r.stderr.strip() or 'Traceback' in r.stderr:
            failures.append('%s: status %d, %r' % (' '.join(cmd[1:]), r.returncode, r.stderr))

    # The oracle: each test alone under gcov.
    oracles = {}
    for name in NAMES:
        if tn[name] not in got:
            continue
        run(['lcov', '--zerocounters', '-d', cov])
        r = run(['ctest', '-R', '^%s$' % re.escape(name)], cwd=cov)
        if r.returncode != 0:
            failures.append('%s: ctest under gcov failed' % name)
        oracle = os.path.join(work, name + '.gcov.info')
        r = run(['lcov', '--quiet', '--capture', '-d', cov, '-t', name, '-o', oracle])
        if r.returncode != 0:
            failures.append('%s: lcov --capture: %s' % (name, r.stderr))
            continue
        mine = os.path.join(work, name + '.hwt.info')
        with open(mine, 'w') as f:
            f.write(got[tn[name]])
        # The sources the test ran (a program's own sources only in its test).
        ran = [s for s in sources if ('SF:' + s) in open(oracle).read()]
        print('%s: %d source files' % (name, len(ran)))
        oracles[name] = parse_lcov(oracle)
        mismatches, stats = compare(oracle, mine, ran, 'gcc', sys.stdout)
        print('  %d lines, %d with the same count' % (stats['lines'], stats['counts_agree']))
        failures += ['%s: %s' % (name, m) for m in mismatches]
        # A test's own program appears in its section only.
        for t in TESTS:
            path = os.path.join(src, t + '.c')
            in_mine = ('SF:' + path) in got[tn[name]]
            expected = name in ('calc.' + t, 'calc.script')
            if in_mine != expected:
                failures.append('%s: %s.c %s its section' % (name, t, 'missing from' if expected else 'in'))

    # Impact: a change to one function (calc_is_prime's body, its lines
    # kept) lists exactly the tests whose gcov coverage runs a changed line.
    git = ['git', '-c', 'user.name=t', '-c', 'user.email=t@t', '-c', 'init.defaultBranch=main']
    for cmd in (['init', '-q'], ['add', '.'], ['commit', '-qm', 'base']):
        run(git + cmd, cwd=src)
    calc_c = os.path.join(src, 'calc.c')
    text = open(calc_c).read().split('\n')
    start = next(i for i, l in enumerate(text) if l.startswith('int calc_is_prime('))
    changed = [n for n in range(start + 1, start + 12) if '%' in text[n - 1]]
    for n in changed:
        text[n - 1] += ' /* changed */'
    open(calc_c, 'w').write('\n'.join(text))
    expected = sorted(tn[name] for name in oracles
                      if any(oracles[name].get(calc_c, {'lines': {}})['lines'].get(n, 0) > 0
                             for n in changed))
    r = run([hwt, 'report', 'impact', '--diff', 'HEAD', info], cwd=src)
    listed = sorted(r.stdout.split())
    print('impact of lines %s of calc.c: %s (gcov: %s)' % (changed, listed, expected))
    # Some tests but not all: a list of every test would pass otherwise.
    if r.returncode != 0 or listed != expected or not 0 < len(expected) < len(oracles):
        failures.append('impact: %s, gcov says %s: %s' % (listed, expected, r.stderr))
    r = run([hwt, 'report', 'impact', '--diff', 'HEAD', '--format', 'regex', info], cwd=src)
    sel = run(['ctest', '-N', '-R', r.stdout.strip()], cwd=plain)
    selected = sorted(re.sub(r'\W', '_', m) for m in re.findall(r'Test +#\d+: (\S+)', sel.stdout))
    if selected != expected:
        failures.append('impact --format regex %r selects %s' % (r.stdout.strip(), selected))
    r = run([hwt, 'report', 'impact', '--diff', 'HEAD', '--format', 'json', info], cwd=src)
    try:
        if sorted(t['name'] for t in json.loads(r.stdout)['tests']) != expected:
            failures.append('impact --format json: %s' % r.stdout)
    except ValueError:
        failures.append('impact --format json: not JSON: %s' % r.stdout)
    # The tests that ran a function, with its calls in each.
    r = run([hwt, 'report', 'tests', info, 'calc_is_prime'])
    got_calls = dict((l.split()[1], int(l.split()[0])) for l in r.stdout.splitlines()[1:]
                     if l.strip() != '(no test)')
    want_calls = dict((tn[n], o[calc_c]['fns'].get('calc_is_prime', 0)) for n, o in oracles.items()
                      if o.get(calc_c) and o[calc_c]['fns'].get('calc_is_prime', 0) > 0)
    if got_calls != want_calls:
        failures.append('report tests calc_is_prime: %s, gcov %s' % (got_calls, want_calls))

    # A generic driver: each traced process tree a test, named by its command line.
    info2 = os.path.join(work, 'generic.info')
    script = ' ; '.join('./%s' % t for t in TESTS)
    gbundle = os.path.join(work, 'generic.bundle')
    r = run([hwt_cov, '-q', '--per-test', '--keep', gbundle, '-o', info2, '--', 'sh', '-c', script],
            cwd=plain)
    got2 = sections(info2)
    for t in TESTS:
        if '__' + t not in got2:
            failures.append('generic driver: no section for ./%s (sections: %s)' % (t, sorted(got2)))
    # The same named by --test-name.
    info3 = os.path.join(work, 'named.info')
    r = run([hwt, 'report', 'lcov', '-q', '--test-name', r'test_(\w+)', '-o', info3, gbundle],
            cwd=plain)
    got3 = sections(info3)
    if sorted(k for k in got3 if k) != ['arith', 'parse', 'prime']:
        failures.append('--test-name: sections %s' % sorted(got3))
    # The sections add up to the whole run: function calls and branches
    # exactly; a line ran iff it ran in some section, its count between the
    # largest and the sum of theirs (the most any of its instructions ran).
    whole = os.path.join(work, 'whole.info')
    run([hwt, 'report', 'lcov', '-q', '-o', whole, gbundle], cwd=plain)
    a = parse_lcov(whole)
    parts = [parse_lcov_text(text) for text in got2.values()]
    for src in set(a) | set(k for p in parts for k in p):
        mine = [p[src] for p in parts if src in p]
        w = a.get(src, {'lines': {}, 'fns': {}, 'brs': {}})
        for n in set(w['lines']) | set(k for p in mine for k in p['lines']):
            counts = [p['lines'].get(n, 0) for p in mine]
            c = w['lines'].get(n)
            if c is None or not max(counts) <= c <= sum(counts) or (c > 0) != (sum(counts) > 0):
                failures.append('%s:%d: whole %s, sections %s' % (src, n, c, counts))
        for name in set(w['fns']) | set(k for p in mine for k in p['fns']):
            total = sum(p['fns'].get(name, 0) for p in mine)
            if w['fns'].get(name) != total:
                failures.append('%s: %s: whole %s calls, sections %d' %
                                (src, name, w['fns'].get(name), total))
        for key in set(w['brs']) | set(k for p in mine for k in p['brs']):
            total = sum(p['brs'].get(key) or 0 for p in mine)
            if (w['brs'].get(key) or 0) != total:
                failures.append('%s: branch %s: whole %s, sections %d' %
                                (src, key, w['brs'].get(key), total))

    for f in failures:
        print('FAIL:', f)
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
