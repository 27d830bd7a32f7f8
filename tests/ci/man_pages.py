#!/usr/bin/env python3
"""The manual pages say what the commands take.

hwt-cov(1) and hwt-pgo(1) name every long option of the command's
--help; hwt(1) names every subcommand of `hwt --help` and every format of
`hwt report --help`, and the options of `hwt report lcov --help` and
`hwt report diff --help`. groff reads each page without a warning
(-ww), and man(1) renders it.

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
    print('man_pages: %d names checked in 3 pages, %d missing or wrong' % (checked,
                                                                          len(failures)))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
