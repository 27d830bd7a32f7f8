#!/usr/bin/env python3
"""Every row of the exit status table (docs/exit-status.md) for every
command, outputs checked before the run, and signals sent to hwt-cov and
`hwt record` alone.

  - a bad option: 2 (every command and subcommand);
  - a missing input: 2 (every command that reads one);
  - a partial bundle (a cut sideband file, garbage in a stream): 1 from
    every report, 1 plus the gate's bit from `hwt report lcov` under a gate;
  - a command not found: 127, not executable: 126 (hwt record, hwt-cov,
    hwt flame, under each unit that runs here; hwt-pgo's compiler);
  - a command killed by signal N: 128 + N;
  - SIGINT, SIGTERM, SIGHUP, SIGQUIT sent to hwt-cov alone, and SIGINT and
    SIGTERM to `hwt record` alone, while the command sleeps: the command
    dies of it (128 + N) and the report (the bundle) holds what ran before;
    SIGINT to the whole process group (a terminal's Ctrl-C): the same;
  - an output in a missing directory, or a directory: 2 before anything
    runs (the command leaves no mark); hwt-pgo the same before its build;
  - a report that cannot be written after the run (its directory removed
    by the command): 2, never "wrote", the bundle kept and named, and
    `hwt report lcov` on it writes the report (0);
  - a coverage gate: its bit.

usage: exit_status.py HWT HWT_COV HWT_PGO WORK
"""
import fcntl
import os
import pty
import re
import shutil
import signal
import subprocess
import sys
import termios
import time

failures = []
checked = 0

PROGRAM = r'''
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int work(int n)
{
	int s = 0;

	for (int i = 0; i < n; i++)
		s += i % 7 ? i : -i;
	return s;
}

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "ok";

	if (getenv("MARK")) {
		FILE *f = fopen(getenv("MARK"), "w");
		if (f)
			fclose(f);
	}
	printf("%d\n", work(1000));                  /* LINE_BEFORE */
	if (!strcmp(what, "exit3"))
		return 3;
	if (!strcmp(what, "kill"))
		raise(SIGTERM);
	if (!strcmp(what, "unlink") && argc > 2 && unlink(argv[2]) != 0)
		return 9; /* its own binary: the trace cannot all be decoded */
	if (!strcmp(what, "rmdir") && argc > 2) {
		/* The report's directory goes away while the command runs. */
		char cmd[4096];
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", argv[2]);
		if (system(cmd) != 0)
			return 9;
	}
	if (!strcmp(what, "sleep") && argc > 2) {
		FILE *f = fopen(argv[2], "w");
		if (f)
			fclose(f);
		for (int i = 0; i < 600; i++)
			sleep(1);                       /* killed here */
		printf("not reached %d\n", work(5)); /* LINE_AFTER_SLEEP */
	}
	return 0;
}
'''


def run(cmd, env=None, cwd=None, timeout=300):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          env=env, cwd=cwd, timeout=timeout)


def expect(what, p, status, stderr_has=(), stderr_lacks=()):
    global checked
    checked += 1
    if p.returncode != status:
        failures.append('%s: exit %d, want %d\n%s' % (what, p.returncode, status, p.stderr))
        return False
    for s in stderr_has:
        if not re.search(s, p.stderr):
            failures.append('%s: stderr lacks %r:\n%s' % (what, s, p.stderr))
            return False
    for s in stderr_lacks:
        if re.search(s, p.stderr):
            failures.append('%s: stderr has %r:\n%s' % (what, s, p.stderr))
            return False
    return True


def check(what, cond, detail=''):
    global checked
    checked += 1
    if not cond:
        failures.append('%s%s' % (what, ': ' + detail if detail else ''))
    return cond


def line_counts(info, source):
    """{line: count} of source in an lcov file."""
    counts, cur = {}, None
    for line in open(info):
        line = line.strip()
        if line.startswith('SF:'):
            cur = line[3:]
        elif line.startswith('DA:') and cur and cur.endswith(source):
            n, c = line[3:].split(',')[:2]
            counts[int(n)] = int(c)
    return counts


def usable_units(hwt, work, prog):
    """The software units that record here (valgrind, qemu)."""
    units = []
    for unit in ('valgrind', 'qemu'):
        b = os.path.join(work, 'probe-' + unit + '.hwt')
        p = run([hwt, 'record', '-q', '--unit', unit, '-o', b, '--', prog])
        if p.returncode == 0:
            units.append(unit)
        else:
            print('  unit %s not usable here: %s' % (unit, p.stderr.strip().splitlines()[:1]))
    return units


def signal_run(cmd, ready, sig, group, env):
    """Starts cmd, waits for the file ready, sends sig to it (group False), its
    process group (True), or types Ctrl-C on its terminal ('tty': the kernel
    sends SIGINT to the foreground group)."""
    if os.path.exists(ready):
        os.unlink(ready)
    master = slave = None
    if group == 'tty':
        master, slave = pty.openpty()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env=env, start_new_session=True, stdin=slave,
                         preexec_fn=(lambda: fcntl.ioctl(0, termios.TIOCSCTTY, 0))
                         if slave is not None else None)
    if slave is not None:
        os.close(slave)
    deadline = time.time() + 120
    while not os.path.exists(ready) and time.time() < deadline and p.poll() is None:
        time.sleep(0.05)
    if not os.path.exists(ready):
        p.kill()
        out, err = p.communicate()
        return subprocess.CompletedProcess(cmd, -1, out, 'never ready\n' + err)
    time.sleep(0.3)
    if group == 'tty':
        os.write(master, b'\x03')
    elif group:
        os.killpg(p.pid, sig)
    else:
        os.kill(p.pid, sig)
    try:
        out, err = p.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, err = p.communicate()
        return subprocess.CompletedProcess(cmd, -2, out, 'hung after the signal\n' + err)
    finally:
        if master is not None:
            os.close(master)
    return subprocess.CompletedProcess(cmd, p.returncode, out, err)


def main():
    hwt, hwt_cov, hwt_pgo, work = [os.path.abspath(a) for a in sys.argv[1:5]]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    os.chdir(work)
    if not shutil.which('gcc'):
        print('exit_status: SKIP: no gcc')
        return 77
    src = os.path.join(work, 'prog.c')
    with open(src, 'w') as f:
        f.write(PROGRAM.lstrip('\n'))
    prog = os.path.join(work, 'prog')
    subprocess.run(['gcc', '-O0', '-g', '-o', prog, src], check=True)
    lines = PROGRAM.lstrip('\n').splitlines()
    after_line = next(i + 1 for i, l in enumerate(lines) if 'LINE_AFTER_SLEEP' in l)
    sleep_line = next(i + 1 for i, l in enumerate(lines) if 'LINE_BEFORE' in l)
    notexec = os.path.join(work, 'notexec')
    shutil.copy(prog, notexec)
    os.chmod(notexec, 0o644)
    env = dict(os.environ)
    env.pop('HWT_UNIT', None)
    units = usable_units(hwt, work, prog)
    if not units:
        print('exit_status: SKIP: no trace unit records here')
        return 77
    print('  units: %s' % ', '.join(units))
    unit = ['--unit', units[0]]

    # --- a bad option: 2 ---------------------------------------------------
    for cmd in ([hwt, '--bogus'], [hwt, 'bogus-command'], [hwt, 'record', '--bogus', prog],
                [hwt, 'report', 'lcov', '--bogus', 'x'], [hwt, 'report', 'profile', '--bogus', 'x'],
                [hwt, 'report', 'afdo', '--bogus', 'x'], [hwt, 'report', 'diff', '--bogus'],
                [hwt, 'report', 'flame', '--bogus', 'x'], [hwt, 'report', 'folded', '--bogus', 'x'],
                [hwt, 'report', 'bogus-format', 'x'], [hwt, 'flame', '--bogus', prog],
                [hwt, 'merge', '--bogus', '-o', 'x', 'y'], [hwt, 'dump', '--bogus', 'x'],
                [hwt, 'import', '--bogus', 'x'], [hwt, 'export', '--bogus', 'x'],
                [hwt_cov, '--bogus', prog], [hwt_cov, '--fail-under-lines', 'lots', prog],
                [hwt_pgo, '--bogus', '-o', 'p', src]):
        expect('bad option: %s' % ' '.join(os.path.basename(c) for c in cmd[:3]), run(cmd), 2)

    # --- a missing input: 2 -------------------------------------------------
    missing = os.path.join(work, 'no-such.hwt')
    for cmd in ([hwt, 'report', 'lcov', missing, '-o', 'm.info'],
                [hwt, 'report', 'profile', missing, '-o', 'm.prof'],
                [hwt, 'report', 'afdo', missing, '--binary', prog, '-o', 'm.afdo'],
                [hwt, 'report', 'flame', missing, '-o', 'm.svg'],
                [hwt, 'report', 'folded', missing, '-o', 'm.folded'],
                [hwt, 'dump', missing], [hwt, 'export', '-o', 'm.data', missing],
                [hwt, 'import', '-o', 'm.hwt', os.path.join(work, 'no-such.data')],
                [hwt, 'merge', '-o', 'm.prof', os.path.join(work, 'no-such.prof')]):
        expect('missing input: %s' % ' '.join(cmd[1:3]), run(cmd), 2)

    # --- a partial bundle: 1 ------------------------------------------------
    p = run([hwt, 'record', '-q'] + unit + ['-o', 'clean.hwt', '--', prog])
    expect('hwt record of a clean run', p, 0)
    p = run([hwt, 'report', 'lcov', 'clean.hwt', '-o', 'clean.info'])
    expect('report lcov of a clean bundle', p, 0, stderr_lacks=['warning'])
    shutil.copytree('clean.hwt', 'partial.hwt')
    sb = sorted(os.listdir('partial.hwt/sideband'))[0]
    size = os.path.getsize('partial.hwt/sideband/' + sb)
    os.truncate('partial.hwt/sideband/' + sb, size - 13)
    streams = sorted(os.listdir('partial.hwt/streams'),
                     key=lambda s: -os.path.getsize('partial.hwt/streams/' + s))
    pt = 'partial.hwt/streams/' + streams[0]
    size = os.path.getsize(pt)
    with open(pt, 'r+b') as f:
        f.seek(size // 3)
        f.write(bytes((i * 37 + 11) & 0xff for i in range(600)))
    for cmd, out in (([hwt, 'report', 'lcov', 'partial.hwt', '-o', 'partial.info'], 'partial.info'),
                     ([hwt, 'report', 'profile', 'partial.hwt', '-o', 'partial.prof'], 'partial.prof'),
                     ([hwt, 'report', 'flame', 'partial.hwt', '-o', 'partial.svg'], 'partial.svg'),
                     ([hwt, 'report', 'folded', 'partial.hwt', '-o', 'partial.folded'],
                      'partial.folded'),
                     ([hwt, 'dump', 'partial.hwt'], None)):
        if expect('partial bundle: %s' % ' '.join(cmd[1:3]), run(cmd), 1, ['warning']) and out:
            check('partial bundle: %s written' % out, os.path.getsize(out) > 0)
    p = run([hwt, 'report', 'lcov', 'partial.hwt', '-o', 'partial.info',
             '--fail-under-lines', '100'])
    expect('partial bundle under a line gate: 1 + 4', p, 5, ['exit status bit 4'])

    # a run whose binary is gone before the decode: a partial report, 1 (0 + 1)
    for name, cmd, out in (('hwt-cov', [hwt_cov, '-q'] + unit, 'selfdel.info'),
                           ('hwt flame', [hwt, 'flame'] + unit, 'selfdel.svg')):
        selfdel = os.path.join(work, 'selfdel')
        shutil.copy(prog, selfdel)
        p = run(cmd + ['-o', out, '--', selfdel, 'unlink', selfdel])
        if expect('%s: the binary deleted during the run: partial, 1' % name, p, 1,
                  ['warning']):
            check('%s: the partial report is written' % name, os.path.isfile(out))

    # --- gates ---------------------------------------------------------------
    p = run([hwt_cov, '-q'] + unit + ['-o', 'gate.info', '--fail-under-lines', '100', '--', prog])
    expect('hwt-cov under its line gate', p, 4, ['exit status bit 4'])

    # --- the command's status, not found (127), not runnable (126), killed ---
    for u in units:
        uo = ['--unit', u]
        for name, cmd in (('hwt record', [hwt, 'record', '-q'] + uo + ['-o', u + '-%s.hwt']),
                          ('hwt-cov', [hwt_cov, '-q'] + uo + ['-o', u + '-%s.info']),
                          ('hwt flame', [hwt, 'flame', '-q'] + uo + ['-o', u + '-%s.svg'])):
            def c(tag, *args):
                return [a.replace('%s', tag) for a in cmd] + ['--'] + list(args)
            expect('%s (%s): exit 3 passed through' % (name, u), run(c('exit3', prog, 'exit3')), 3)
            expect('%s (%s): killed by SIGTERM: 143' % (name, u), run(c('kill', prog, 'kill')),
                   128 + signal.SIGTERM)
            expect('%s (%s): command not found: 127' % (name, u),
                   run(c('nf', 'no-such-command-hwt')), 127, ['command not found'])
            expect('%s (%s): no such file: 127' % (name, u),
                   run(c('nf2', os.path.join(work, 'no-such-file'))), 127)
            expect('%s (%s): not executable: 126' % (name, u), run(c('ne', notexec)), 126,
                   ['Permission denied'])
            expect('%s (%s): a directory: 126' % (name, u), run(c('dir', work)), 126)
    check('127: no bundle made for a command not found',
          not os.path.exists(units[0] + '-nf.hwt'))

    # --- outputs checked before the run: 2, nothing run --------------------
    mark = os.path.join(work, 'ran.mark')
    menv = dict(env, MARK=mark)
    os.makedirs('a-directory', exist_ok=True)
    for what, cmd in (('hwt-cov -o in a missing directory',
                       [hwt_cov] + unit + ['-o', '/nonexistent/cov.info', '--', prog]),
                      ('hwt-cov -o a directory', [hwt_cov] + unit + ['-o', 'a-directory', '--', prog]),
                      ('hwt-cov second -o in a missing directory',
                       [hwt_cov] + unit + ['-o', 'ok.info', '-o', 'missing/cov.xml', '--', prog]),
                      ('hwt-cov --diff-output in a missing directory',
                       [hwt_cov] + unit + ['--diff', 'HEAD', '--diff-output', 'missing/d.md', '--',
                                           prog]),
                      ('hwt-cov --html under a file',
                       [hwt_cov] + unit + ['--html', os.path.join(src, 'html'), '--', prog]),
                      ('hwt flame -o in a missing directory',
                       [hwt, 'flame'] + unit + ['-o', 'missing/f.svg', '--', prog]),
                      ('hwt record -o in a missing directory',
                       [hwt, 'record'] + unit + ['-o', 'missing/r.hwt', '--', prog])):
        if os.path.exists(mark):
            os.unlink(mark)
        p = run(cmd, env=menv)
        expect(what, p, 2, ['cannot (write|create)'], ['wrote'])
        check(what + ': the command did not run', not os.path.exists(mark))
    if shutil.which('clang-19') or shutil.which('clang'):
        p = run([hwt_pgo, '-q'] + unit + ['-o', 'missing/prog', '--', src])
        expect('hwt-pgo -o in a missing directory', p, 2, ['cannot'])
        check('hwt-pgo: nothing built', not os.path.exists('missing'))
        p = run([hwt_pgo, '-q'] + unit + ['-o', 'pgo', '--profile', 'missing/p.afdo', '--', src])
        expect('hwt-pgo --profile in a missing directory', p, 2, ['cannot write missing/p.afdo'])
        check('hwt-pgo: no training binary', not os.path.exists('pgo.hwt-pgo/train'))
    else:
        print('  no clang: hwt-pgo output checks left out')
    p = run([hwt_pgo, '-q'] + unit + ['--cc', 'no-such-compiler-hwt', '-o', 'pgo1', '--', src])
    expect('hwt-pgo: compiler not found: 127', p, 127, ['command not found'])
    notexec_cc = os.path.join(work, 'notexec-cc')
    shutil.copy(notexec, notexec_cc)
    p = run([hwt_pgo, '-q'] + unit + ['--cc', notexec_cc, '-o', 'pgo2', '--', src])
    expect('hwt-pgo: compiler not executable: 126', p, 126)

    # --- a report that cannot be written after the run: 2, the bundle kept --
    os.makedirs('gone', exist_ok=True)
    p = run([hwt_cov] + unit + ['-o', 'gone/cov.info', '--', prog, 'rmdir',
                                os.path.join(work, 'gone')])
    if expect('hwt-cov: the output directory removed during the run', p, 2,
              [r'cannot write gone/cov\.info', r'the trace is kept in \S+'], [r'wrote gone']):
        kept = re.search(r'the trace is kept in (\S+?);', p.stderr).group(1)
        check('the kept bundle exists', os.path.isfile(os.path.join(kept, 'hwt-bundle')), kept)
        q = run([hwt, 'report', 'lcov', kept, '-o', 'again.info'])
        expect('hwt report lcov of the kept bundle', q, 0)
        check('the kept bundle covers the run',
              any(c > 0 for c in line_counts('again.info', 'prog.c').values()))
        shutil.rmtree(kept, ignore_errors=True)
    # a full disk: /dev/full takes the open, fails the write
    p = run([hwt_cov] + unit + ['-o', '/dev/full', '--', prog])
    if expect('hwt-cov -o /dev/full (the disk fills)', p, 2,
              [r'cannot write /dev/full: No space left', r'the trace is kept in \S+'],
              [r'wrote /dev/full']):
        shutil.rmtree(re.search(r'the trace is kept in (\S+?);', p.stderr).group(1),
                      ignore_errors=True)
    os.makedirs('gone2', exist_ok=True)
    p = run([hwt, 'flame'] + unit + ['-o', 'gone2/f.svg', '--', prog, 'rmdir',
                                     os.path.join(work, 'gone2')])
    if expect('hwt flame: the output directory removed during the run', p, 2,
              [r'the trace is kept in \S+'], [r'wrote gone2']):
        kept = re.search(r'the trace is kept in (\S+?);', p.stderr).group(1)
        check('hwt flame: the kept bundle exists',
              os.path.isfile(os.path.join(kept, 'hwt-bundle')), kept)
        shutil.rmtree(kept, ignore_errors=True)

    # --- signals sent to hwt-cov or hwt record alone, or to the group -------
    ready = os.path.join(work, 'ready')
    runs = [('hwt-cov', s, False) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP,
                                             signal.SIGQUIT)]
    runs += [('hwt record', s, False) for s in (signal.SIGINT, signal.SIGTERM)]
    runs += [('hwt-cov', signal.SIGINT, True), ('hwt record', signal.SIGINT, True),
             ('hwt-cov', signal.SIGINT, 'tty'), ('hwt record', signal.SIGINT, 'tty')]
    for u in units:
        uo = ['--unit', u]
        for name, sig, group in runs:
            if u != units[0] and (sig in (signal.SIGHUP, signal.SIGQUIT) or group):
                continue  # the first unit has every signal; the others two each
            tag = '%s-%s-%s%s' % (u, name.replace(' ', '-'), sig.name,
                                  {False: '', True: '-group', 'tty': '-tty'}[group])
            out = tag + ('.info' if name == 'hwt-cov' else '.hwt')
            cmd = ([hwt_cov, '-q'] if name == 'hwt-cov' else [hwt, 'record', '-q'])
            cmd = cmd + uo + ['-o', out, '--', prog, 'sleep', ready]
            what = '%s (%s): %s sent to %s' % (name, u, sig.name,
                                              {False: 'it alone', True: 'its process group',
                                               'tty': 'its terminal (Ctrl-C)'}[group])
            p = signal_run(cmd, ready, sig, group, env)
            if not expect(what, p, 128 + sig, stderr_lacks=['cannot write']):
                continue
            if name == 'hwt record':
                q = run([hwt, 'report', 'lcov', out, '-o', tag + '.info'])
                expect(what + ': its bundle reads', q, 0)
                out = tag + '.info'
            if check(what + ': the report is written', os.path.isfile(out)):
                counts = line_counts(out, 'prog.c')
                check(what + ': the lines before the signal ran',
                      counts.get(sleep_line, 0) > 0, str(counts))
                check(what + ': the line after the sleep did not',
                      counts.get(after_line, -1) == 0, str(counts))

    # hwt-pgo's training run: SIGINT to hwt-pgo alone ends it, the build goes on (1)
    if shutil.which('clang-19') or shutil.which('clang'):
        what = 'hwt-pgo (%s): SIGINT sent to it alone during the training run' % units[0]
        p = signal_run([hwt_pgo, '-q'] + unit + ['-o', 'trained', '--train', 'sleep ' + ready,
                                                 '--', src], ready, signal.SIGINT, False, env)
        if expect(what, p, 1, ['training run exited with status 130']):
            check(what + ': the program is built', os.access('trained', os.X_OK))
            check(what + ': its profile is written', os.path.getsize('trained.afdo') > 0)
        # its profile's directory removed by the training run: 2, the trace kept and named
        os.makedirs('pdir', exist_ok=True)
        p = run([hwt_pgo, '-q'] + unit + ['-o', 'pgo3', '--profile', 'pdir/p.afdo', '--train',
                                          'rmdir ' + os.path.join(work, 'pdir'), '--', src])
        if expect('hwt-pgo: the profile\'s directory removed by the training run', p, 2,
                  [r'the trace is kept in \S+; .hwt report afdo']):
            kept = re.search(r'the trace is kept in (\S+?);', p.stderr).group(1)
            check('hwt-pgo: the kept bundle exists',
                  os.path.isfile(os.path.join(kept, 'hwt-bundle')), kept)

    print('exit_status: %d checks, %d failures' % (checked, len(failures)))
    for f in failures:
        print('FAIL: ' + f)
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
