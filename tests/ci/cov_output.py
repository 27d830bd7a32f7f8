#!/usr/bin/env python3
"""What hwt-cov prints (issue 34): the table of files, the totals, -q,
--summary-only, colour and progress.

The mini suite's test_mixed (several source files, the library's and its
own) is recorded once by hwt-cov (--keep); `hwt report lcov` reads the
bundle again for the other forms. Checked:

  - stderr not a terminal (a CI log): the table of files, each row's
    lines, functions and branches (hit/found) and missed line ranges
    computed here from the lcov file's DA, FNDA and BRDA records, the
    rows sorted by missed lines (most last, above the totals) then name,
    names relative
    to --root; a TOTAL row and the totals lines agree with it; no
    progress line (no '\\r') and no colour (no ESC) at all;
  - --summary-only: the totals without the table; -q: neither, nothing
    on stderr but warnings; a diff without changed lines says "no
    changed lines with code", not "0.0% (0 of 0 ...)";
  - under a pseudo-terminal: percentages coloured (genhtml's limits),
    the decode's progress line redrawn with '\\r' and cleared at the end;
    NO_COLOR and --color=never: no colour (progress still shown);
    --color=always without a terminal: colour; -q: no progress;
  - hwt-cov under a pseudo-terminal, the command running for more than
    a second: the recording's progress line names the unit, says
    "1 process traced" (singular) and a size in bytes/KiB/MiB, and is
    cleared before the table.

usage: cov_output.py HWT HWT_COV SUITE_BUILD_DIR SUITE_SOURCE_DIR WORK
"""
import os
import pty
import re
import select
import shutil
import subprocess
import sys

failures = []
checked = 0



def lcov_percent(hit, found):
    """As lcov shows it: rounded to a tenth, never 100.0 unless all ran nor 0.0 unless none."""
    tenths = (hit * 2000 + found) // (2 * found)
    if tenths == 1000 and hit < found:
        tenths = 999
    if tenths == 0 and hit > 0:
        tenths = 1
    return tenths / 10.0

def check(cond, what):
    global checked
    checked += 1
    if not cond:
        failures.append(what)


def run(cmd, env=None, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          env=env, **kw)


def run_pty(cmd, env=None, timeout=300):
    """cmd with stderr (and stdin) on a pseudo-terminal; (status, stdout, stderr bytes)."""
    master, slave = pty.openpty()
    p = subprocess.Popen(cmd, stdin=slave, stdout=subprocess.PIPE, stderr=slave, env=env)
    os.close(slave)
    err = b''
    while True:
        r, _, _ = select.select([master], [], [], timeout)
        if not r:
            p.kill()
            break
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the other side is closed
            break
        if not chunk:
            break
        err += chunk
    out = p.stdout.read()
    p.wait()
    os.close(master)
    return p.returncode, out.decode(errors='replace'), err.decode(errors='replace')


def parse_lcov(path):
    """{source: {'lines': {n: count}, 'fn': {name: count}, 'br': [taken or None]}}."""
    files, cur = {}, None
    for line in open(path):
        line = line.rstrip('\n')
        if line.startswith('SF:'):
            cur = files.setdefault(line[3:], {'lines': {}, 'fn': {}, 'br': []})
        elif line.startswith('DA:'):
            n, c = line[3:].split(',')[:2]
            cur['lines'][int(n)] = cur['lines'].get(int(n), 0) + int(c)
        elif line.startswith('FN:'):
            cur['fn'].setdefault(line[3:].split(',', 1)[1], 0)
        elif line.startswith('FNDA:'):
            c, name = line[5:].split(',', 1)
            cur['fn'][name] = cur['fn'].get(name, 0) + int(c)
        elif line.startswith('BRDA:'):
            taken = line[5:].split(',')[3]
            cur['br'].append(None if taken == '-' else int(taken))
    return files


def missing_ranges(lines):
    """Missed lines as ranges; a range goes on over lines without code, ends at one that ran."""
    out, start, end = [], None, None
    for n in sorted(lines):
        if lines[n] == 0:
            if start is None:
                start = n
            end = n
        elif start is not None:
            out.append((start, end))
            start = None
    if start is not None:
        out.append((start, end))
    return ','.join('%d' % a if a == b else '%d-%d' % (a, b) for a, b in out)


def expected_rows(info, root):
    rows = []
    for path, f in info.items():
        name = os.path.relpath(path, root) if path.startswith(root + '/') else path
        lh = sum(1 for c in f['lines'].values() if c)
        fh = sum(1 for c in f['fn'].values() if c)
        bh = sum(1 for t in f['br'] if t)
        rows.append((len(f['lines']) - lh, name,
                     (lh, len(f['lines'])), (fh, len(f['fn'])), (bh, len(f['br'])),
                     missing_ranges(f['lines'])))
    rows.sort(key=lambda r: (r[0], r[1]))
    return rows


CELL = r'\s+(\d+/\d+|-)\s+(\d+\.\d%|-)'
ROW = re.compile(r'^(\S*)' + CELL * 3 + r'(?:\s+(\S+))?$')


def parse_table(text):
    """[(name, (hit, found) x3, missing)] and the TOTAL row, from stderr."""
    lines = text.splitlines()
    try:
        head = next(i for i, l in enumerate(lines) if re.match(r'^File\s+Lines\s+Functions\s+'
                                                               r'Branches\s+Missing$', l))
    except StopIteration:
        return None, None
    rows, total, pending = [], None, None
    for line in lines[head + 2:]:
        if re.fullmatch(r'-+', line):
            continue
        m = ROW.match(line)
        if not m:
            if re.fullmatch(r'\S+', line):
                pending = line  # a long name, its figures on the next line
                continue
            break
        name = m.group(1) or pending
        pending = None

        def cell(k):
            v = m.group(2 + 2 * k)
            if v == '-':
                return (0, 0)
            h, f = v.split('/')
            pct = m.group(3 + 2 * k)
            check(pct == '%.1f%%' % lcov_percent(int(h), int(f)),
                  'row %s: %s is not the percentage of %s' % (name, pct, v))
            return (int(h), int(f))
        row = (name, cell(0), cell(1), cell(2), m.group(8) or '')
        if name == 'TOTAL':
            total = row
            break
        rows.append(row)
    return rows, total


def totals_lines(text, prefix):
    return [l for l in text.splitlines()
            if re.match(re.escape(prefix) + r': (lines\.{6}|functions\.\.|branches\.\.\.): ', l)]


def check_totals(text, prefix, want, what):
    got = totals_lines(text, prefix)
    nouns = ('lines', 'functions', 'branches')
    exp = []
    for label, noun, (h, f) in zip(('lines......', 'functions..', 'branches...'), nouns, want):
        exp.append('%s: %s: %s' % (prefix, label, 'no ' + noun if not f else
                                   '%.1f%% (%d of %d %s)' % (h * 1000 // f / 10.0, h, f, noun)))
    check(got == exp, '%s: totals %r, want %r' % (what, got, exp))


def main():
    hwt, hwt_cov, suite, src, work = sys.argv[1:6]
    src = os.path.realpath(src)
    hwt, hwt_cov, suite, work = (os.path.abspath(x) for x in (hwt, hwt_cov, suite, work))
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    env = dict(os.environ)
    env.pop('NO_COLOR', None)
    env['TERM'] = 'xterm'
    prog = os.path.join(suite, 'test_mixed')
    bundle = os.path.join(work, 'mixed.hwt')
    info = os.path.join(work, 'mixed.info')

    # A CI log: stderr a pipe.
    p = run([hwt_cov, '--root', src, '--keep', bundle, '-o', info, '--', prog], env=env)
    check(p.returncode == 0, 'hwt-cov: exit %d\n%s' % (p.returncode, p.stderr))
    if p.returncode != 0:
        return report()
    lcov = parse_lcov(info)
    want = expected_rows(lcov, src)
    rows, total = parse_table(p.stderr)
    check(rows is not None, 'no table of files in hwt-cov\'s stderr:\n' + p.stderr)
    if rows is not None:
        got = [(r[0], r[1], r[2], r[3], r[4]) for r in rows]
        exp = [(w[1], w[2], w[3], w[4], w[5]) for w in want]
        check(got == exp, 'table rows:\n  got  %r\n  want %r' % (got, exp))
        check(len(want) >= 3, 'the mini suite test has %d source files' % len(want))
        sums = tuple((sum(w[k][0] for w in want), sum(w[k][1] for w in want))
                     for k in (2, 3, 4))
        check(total is not None and total[1:4] == sums,
              'TOTAL row %r, want %r' % (total, sums))
        check_totals(p.stderr, 'hwt-cov', sums, 'hwt-cov')
        check(any(w[0] for w in want) and any(w[5] for w in want),
              'no file with missed lines: the ranges are not checked')
    check('\r' not in p.stderr and '\033' not in p.stderr,
          'a CI log has a progress line or colour: %r' % p.stderr[:500])
    check(re.search(r'^hwt-cov: wrote .* \(\d+ source files?\)$', p.stderr, re.M) is not None,
          'no "wrote" line')

    report_cmd = [hwt, 'report', 'lcov', '--root', src, '-o', os.path.join(work, 'r.info'),
                  bundle]
    p = run(report_cmd + ['--summary-only'], env=env)
    check(p.returncode == 0 and parse_table(p.stderr)[0] is None and
          len(totals_lines(p.stderr, 'hwt report lcov')) == 3,
          '--summary-only: exit %d, stderr:\n%s' % (p.returncode, p.stderr))
    p = run(report_cmd + ['-q'], env=env)
    check(p.returncode == 0 and all('warning' in l or 'error' in l
                                    for l in p.stderr.splitlines()),
          '-q: exit %d, stderr:\n%s' % (p.returncode, p.stderr))
    p = run(report_cmd + ['--color=always'], env=env)
    check('\033[' in p.stderr and '\r' not in p.stderr,
          '--color=always without a terminal: no colour, or progress: %r' % p.stderr[:300])
    p = run(report_cmd + ['--color=sometimes'], env=env)
    check(p.returncode == 2 and 'sometimes' in p.stderr, '--color=sometimes: exit %d: %s'
          % (p.returncode, p.stderr))

    # Nothing to count is said so: a diff without changed lines.
    repo = os.path.join(work, 'repo')
    os.makedirs(repo)
    open(os.path.join(repo, 'a.c'), 'w').write('int a;\n')
    git = ['git', '-c', 'user.name=t', '-c', 'user.email=t@t', '-c', 'init.defaultBranch=main']
    for c in (['init', '-q'], ['add', 'a.c'], ['commit', '-qm', 'a']):
        subprocess.run(git + c, cwd=repo, check=True, stdout=subprocess.DEVNULL)
    p = run(report_cmd + ['--diff', 'HEAD', '--summary-only'], env=env, cwd=repo)
    check(p.returncode == 0 and
          'hwt report lcov: diff.......: no changed lines with code\n' in p.stderr,
          '--diff without changes: exit %d, stderr:\n%s' % (p.returncode, p.stderr))

    # A terminal.
    colour = re.compile(r'\033\[[0-9;]*m')
    status, _, err = run_pty(report_cmd, env=env)
    check(status == 0, 'on a terminal: exit %d: %s' % (status, err))
    check(colour.search(err) is not None, 'on a terminal: no colour:\n%r' % err[:500])
    plain = colour.sub('', err).replace('\r\n', '\n')
    check(re.search(r'\rhwt report lcov: decoding 100% \([0-9.]+ (bytes|KiB|MiB) of [0-9.]+ '
                    r'(bytes|KiB|MiB)\)\033\[K\r\r\033\[K', plain) is not None,
          'on a terminal: no decode progress line, redrawn and cleared:\n%r' % plain[:500])
    rows_tty, _ = parse_table(re.sub(r'\r\033\[K|\r[^\n\r]*\033\[K\r', '', plain))
    check(rows_tty is not None and rows is not None and
          [r[:4] for r in rows_tty] == [r[:4] for r in rows],
          'on a terminal: another table:\n%s' % plain)
    for what, extra, e in (('NO_COLOR=1', [], dict(env, NO_COLOR='1')),
                           ('--color=never', ['--color=never'], env)):
        status, _, err = run_pty(report_cmd + extra, env=e)
        check(status == 0 and colour.search(err) is None and 'decoding 100%' in err,
              'on a terminal with %s: exit %d, colour or no progress:\n%r'
              % (what, status, err[:500]))
    status, _, err = run_pty(report_cmd + ['-q'], env=env)
    check(status == 0 and '\r' not in err.replace('\r\n', '\n') and 'decoding' not in err,
          'on a terminal with -q: progress shown:\n%r' % err[:500])

    # The recording's progress: a command that runs over a second.
    status, _, err = run_pty([hwt_cov, '--root', src, '-o', os.path.join(work, 'slow.info'),
                              '--', 'sh', '-c', '"$0" && sleep 2.5', prog], env=env)
    plain = colour.sub('', err)
    m = re.search(r'\rhwt-cov: recording \(the (\w+) unit\), \d+s: (\d+) (process|processes) '
                  r'traced, [0-9.]+ (bytes?|KiB|MiB) of trace\033\[K\r', plain)
    check(status == 0 and m is not None,
          'hwt-cov on a terminal: exit %d, no recording progress line:\n%r' % (status, plain[:800]))
    if m:
        check(m.group(2) == '1' and m.group(3) == 'process',
              'recording progress: %s %s traced, want "1 process"' % (m.group(2), m.group(3)))
        last = plain.rfind('recording (the')
        check(plain.find('\r\033[K', last) >= 0 and
              plain.find('\r\033[K', last) < plain.find('File ', last),
              'recording progress not cleared before the table:\n%r' % plain[last:last + 300])
    status, _, err = run_pty([hwt_cov, '-q', '--root', src, '-o', os.path.join(work, 'q.info'),
                              '--', 'sh', '-c', '"$0" && sleep 1.5', prog], env=env)
    check(status == 0 and 'recording' not in err and 'decoding' not in err,
          'hwt-cov -q on a terminal: exit %d, progress shown:\n%r' % (status, err[:500]))
    return report()


def report():
    for f in failures:
        print('  FAIL %s' % f)
    print('cov_output: %d checks, %d failed' % (checked, len(failures)))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
