#!/usr/bin/env python3
"""The manual pages say what the commands take, so that they cannot drift
from the --help texts (issue 34).

hwt-cov(1) and hwt-pgo(1) name every long option of the command's
--help, every option the page describes is one the command takes, and
each option's default in --help ("[DEFAULT]" at the end of a line, or
"(default: DEFAULT)") is in the page's entry of that option. hwt(1)
names every subcommand of `hwt --help` and every format of `hwt report
--help`; the entry of each (every command and report format) names every
long option of its --help, and states its defaults, itself, in an entry
it names ("as hwt record does") or, for the options every command
shares, in the paragraph after the commands; and every option the entry
names is one that command takes. groff reads each page without a
warning (-ww), and man(1) renders it.

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


def long_options_anywhere(text):
    return set(re.findall(r'(?<![\w-])(--[a-z][a-z-]*)', text))


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


def option_entries(text):
    """{--option: its description} of a --help, continuation lines joined by newlines."""
    out, cur = {}, []
    for line in text.splitlines():
        m = re.match(r'^ {1,8}(-\S.*?)(?: {2,}(.*))?$', line)
        if m and '--' in m.group(1):
            # "--pid PID, --tid TID": several options, one description
            cur = re.findall(r'(--[a-z][a-z-]*)', m.group(1))
            for opt in cur:
                out[opt] = out.get(opt, '') + (m.group(2) or '')
        elif cur and re.match(r'^ {9,}\S', line):
            for opt in cur:
                out[opt] += '\n' + line.strip()
        else:
            cur = []
    return out


def defaults(description):
    """The defaults a description states: "[D]" ending a line or a clause, "(default: D)"."""
    found = re.findall(r'\[([^\]]+)\](?=$|[;,.)]|\n)', description)
    found += re.findall(r'\(default:? ([^;)]+)', description)
    return [d.replace('\n', ' ') for d in found]


def squash(text):
    """Text without troff's fonts and escapes, case, blanks and punctuation; stderr
    is "standard error"."""
    text = re.sub(r'\\f[BIRP]', '', text).replace('\\-', '-').replace('\\&', '')
    text = re.sub(r'^\.[A-Z]{1,2}\b', '', text, flags=re.M)
    text = text.lower().replace('stderr', 'standard error')
    return re.sub(r'[^a-z0-9]', '', text)


def page_option_entries(path):
    """{--option: the text of its .TP entries} of a page's OPTIONS."""
    s = open(path).read()
    s = s.split('.SH OPTIONS', 1)[1].split('\n.SH ', 1)[0]
    out = {}
    for entry in s.split('\n.TP\n')[1:]:
        head, _, body = entry.partition('\n')
        for opt in re.findall(r'(--[a-z][a-z-]*)', head.replace('\\-', '-')):
            out[opt] = out.get(opt, '') + '\n' + body
    return out


def check_command_page(name, cmd, path, failures):
    """hwt-cov(1), hwt-pgo(1): the options both ways, and each option's defaults."""
    helped = option_entries(help_text(cmd))
    paged = page_option_entries(path)
    checked = 0
    for opt in sorted(set(paged) - set(helped)):
        failures.append('%s(1) describes %s, which `%s --help` lacks' % (name, opt, name))
    for opt, desc in sorted(helped.items()):
        for d in defaults(desc):
            checked += 1
            if squash(d) not in squash(paged.get(opt, '')):
                failures.append('%s(1): the entry of %s lacks its default "%s" of --help'
                                % (name, opt, d))
    return checked


def hwt_entries(path):
    """{"record": text, "report lcov": text, ...} of hwt(1)'s COMMANDS, and the paragraph
    after them (the options every command shares)."""
    s = open(path).read().split('.SH COMMANDS', 1)[1].split('\n.SH ', 1)[0]
    body, _, shared = s.rpartition('\n.PP\n')
    out = {}
    for entry in body.split('\n.TP\n')[1:]:
        m = re.match(r'\\fBhwt ((?:report )?[a-z-]+)', entry)
        if not m:
            continue
        name = m.group(1)
        # "hwt report flame|folded|...": one entry for several formats
        rest = re.match(r'\\fBhwt report [a-z-]+\\fP((?:\|\\fB[a-z-]+\\fP)+)', entry)
        names = [name] + (['report ' + n for n in re.findall(r'\\fB([a-z-]+)\\fP',
                                                              rest.group(1))] if rest else [])
        for n in names:
            out[n] = entry
    return out, shared


def check_hwt_page(hwt, path, subs, failures):
    entries, shared = hwt_entries(path)
    shared_opts = set(re.findall(r'(--[a-z][a-z-]*)', shared.replace('\\-', '-')))
    checked = 0
    for sub in subs:
        entry = entries.get(sub)
        if entry is None:
            failures.append('hwt(1) has no entry of hwt %s' % sub)
            continue
        # An entry that names another command ("as hwt record does") takes its text too.
        text = entry
        for other in re.findall(r'hwt ((?:report )?[a-z-]+)', entry.replace('\\fB', '')
                                .replace('\\fP', '').replace('"', '')):
            if other != sub and other in entries:
                text += entries[other]
        words = text.replace('\\-', '-')
        helped = option_entries(help_text([hwt] + sub.split()))
        for opt, desc in sorted(helped.items()):
            checked += 1
            if opt in ('--help', '--version'):
                continue
            if not re.search(re.escape(opt) + r'(?![a-z-])', words) and opt not in shared_opts:
                failures.append('hwt(1): the entry of hwt %s lacks %s' % (sub, opt))
            for d in defaults(desc):
                checked += 1
                if squash(d) not in squash(text + shared):
                    failures.append('hwt(1): the entry of hwt %s lacks the default "%s" of %s'
                                    % (sub, d, opt))
        # Every option the entry itself names is one the command (or a format of it) takes;
        # a line that quotes another program (perf, create_llvm_prof) names its options.
        takes = set(long_options_anywhere(help_text([hwt] + sub.split())))
        for other, e in entries.items():
            if e is entry and other != sub:
                takes |= set(long_options_anywhere(help_text([hwt] + other.split())))
        own = '\n'.join(l for l in entry.replace('\\-', '-').splitlines()
                        if not re.search(r'\b(perf|create_llvm_prof|clang|llvm-[a-z]+)\b', l))
        for opt in sorted(set(re.findall(r'(--[a-z][a-z-]*)', own))):
            checked += 1
            if opt not in takes:
                failures.append('hwt(1): the entry of hwt %s names %s, which its --help lacks'
                                % (sub, opt))
    return checked


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
    checked += check_command_page('hwt-cov', [hwt_cov], pages['hwt-cov'], failures)
    checked += check_command_page('hwt-pgo', [hwt_pgo], pages['hwt-pgo'], failures)
    subs = [sub for sub in names(help_text([hwt]), 'commands') if sub != 'report']
    subs += ['report ' + fmt for fmt in names(help_text([hwt, 'report']), 'formats')]
    checked += check_hwt_page(hwt, pages['hwt'], subs, failures)
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
