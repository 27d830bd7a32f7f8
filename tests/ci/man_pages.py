#!/usr/bin/env python3
"""The manual pages say what the commands take.

hwt-cov(1) and hwt-pgo(1) name every long option of the command's
--help; hwt(1) names every subcommand of `hwt --help` and every format of
`hwt report --help`, and the options of `hwt report lcov --help` and
`hwt report diff --help`. groff reads each page without a warning
(-ww), and man(1) renders it.

Every command, subcommand and report format answers --version with its
name and a version on stdout (exit 0), and a wrong option with what was
wrong, the one usage line of its --help and "see '... --help'" on stderr
(exit 2), not the whole help (issue 34). Their --help texts fit in 80
columns, and every option's description starts in the text's one column.

usage: man_pages.py HWT HWT_COV HWT_PGO MAN_DIR
"""
import os
import re
import subprocess
import sys


def help_text(cmd):
    return subprocess.run(cmd + ['--help'], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True).stdout


def long_options(text):
    return sorted(set(re.findall(r'^\s+(?:-\w, )?(--[a-z][a-z-]*)', text, re.M)))


def names(text, heading):
    block = text.split(heading + ':\n', 1)[1].split('\n\n', 1)[0]
    return [line.split()[0] for line in block.splitlines() if line.strip()]


def run(cmd):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def check_version_and_usage(cmd, failures):
    """--version and a wrong option of one command (a list: program and subcommands)."""
    shown = ' '.join([os.path.basename(cmd[0])] + cmd[1:])
    p = run(cmd + ['--version'])
    if p.returncode != 0 or not re.fullmatch(r'hwt(-cov|-pgo)? \d+\.\d+\.\d+\n', p.stdout):
        failures.append('`%s --version`: exit %d, %r' % (shown, p.returncode, p.stdout))
    usage = [l for l in help_text(cmd).splitlines() if l.startswith('usage: ')][:1]
    p = run(cmd + ['--no-such-option'])
    want = ["%s: unknown option '--no-such-option'" % shown] + usage + \
           ["see '%s --help'" % shown]
    if p.returncode != 2 or p.stdout or p.stderr.splitlines() != want or len(usage) != 1:
        failures.append('`%s --no-such-option`: exit %d, stderr %r, wanted %r'
                        % (shown, p.returncode, p.stderr[:300], want))
    if cmd[1:] or os.path.basename(cmd[0]) != 'hwt':
        # No arguments at all (but bare hwt, which lists its commands): what is
        # missing, the usage line, see --help.
        p = run(cmd)
        lines = p.stderr.splitlines()
        if p.returncode != 2 or len(lines) != 3 or lines[1:] != want[1:] or \
                not lines[0].startswith(shown + ': '):
            failures.append('`%s` with no arguments: exit %d, stderr %r, wanted 3 lines ending %r'
                            % (shown, p.returncode, p.stderr[:300], want[1:]))


def check_help_layout(cmd, failures):
    """--help: no line over 80 columns, the option descriptions in one column."""
    shown = ' '.join([os.path.basename(cmd[0])] + cmd[1:])
    text = help_text(cmd)
    columns = {}
    for line in text.splitlines():
        if len(line) > 80:
            failures.append('`%s --help`: a line of %d columns: %r' % (shown, len(line), line))
        m = re.match(r'^( {1,8}-\S.*?\S)( {2,})\S', line)
        if m:
            columns.setdefault(len(m.group(1)) + len(m.group(2)), []).append(line.strip())
    if len(columns) > 1:
        failures.append('`%s --help`: option descriptions at columns %s: %s'
                        % (shown, sorted(columns),
                           '; '.join(v[0][:40] for k, v in sorted(columns.items()))))


def page_words(path):
    """The page's text with troff's escapes of '-' undone."""
    return open(path).read().replace('\\-', '-')


def main():
    hwt, hwt_cov, hwt_pgo, man = sys.argv[1:5]
    failures = []
    checked = 0
    pages = {name: os.path.join(man, name + '.1') for name in ('hwt', 'hwt-cov', 'hwt-pgo')}
    for name, cmd in (('hwt-cov', [hwt_cov]), ('hwt-pgo', [hwt_pgo]),
                      ('hwt', [hwt, 'report', 'lcov']), ('hwt', [hwt, 'report', 'diff'])):
        text = page_words(pages[name])
        for opt in long_options(help_text(cmd)):
            checked += 1
            if opt != '--help' and not re.search(re.escape(opt) + r'(?![a-z-])', text):
                failures.append('%s(1) lacks %s of `%s --help`' % (name, opt, ' '.join(cmd)))
    text = page_words(pages['hwt'])
    for sub in names(help_text([hwt]), 'commands'):
        checked += 1
        if 'hwt ' + sub not in text:
            failures.append('hwt(1) lacks the command %s' % sub)
    for fmt in names(help_text([hwt, 'report']), 'formats'):
        checked += 1
        if 'hwt report ' + fmt not in text:
            failures.append('hwt(1) lacks hwt report %s' % fmt)
    commands = [[hwt], [hwt_cov], [hwt_pgo]]
    commands += [[hwt, sub] for sub in names(help_text([hwt]), 'commands')]
    commands += [[hwt, 'report', fmt] for fmt in names(help_text([hwt, 'report']), 'formats')]
    for cmd in commands:
        checked += 1
        check_version_and_usage(cmd, failures)
        check_help_layout(cmd, failures)
    for name, path in sorted(pages.items()):
        p = subprocess.run(['groff', '-man', '-ww', '-z', path], stderr=subprocess.PIPE,
                           text=True)
        if p.returncode != 0 or p.stderr:
            failures.append('%s: groff: %s' % (path, p.stderr.strip()))
        p = subprocess.run(['man', '-l', path], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, env=dict(os.environ, MANWIDTH='80', MANPAGER='cat',
                                               PAGER='cat'))
        if p.returncode != 0 or p.stderr or name.upper() not in p.stdout:
            failures.append('%s: man -l: exit %d: %s' % (path, p.returncode, p.stderr.strip()))
    for f in failures:
        print('  FAIL %s' % f)
    print('man_pages: %d names and commands checked, %d missing or wrong' % (checked,
                                                                          len(failures)))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
