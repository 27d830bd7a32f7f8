#!/usr/bin/env python3
"""The README's first screen, run as written (issue 34).

The commands of the shell code blocks before the README's "## Commands"
section (set-up, build, install, hwt-cov on the bundled example) run one by
one, in a copy of the source tree, so that a newcomer's first steps are
known to work. One exception: an install into the system (`sudo cmake
--install build`) goes to a prefix in the work directory instead, and its
bin/ is put first on PATH, so the commands that follow run the installed
hwt. The two project scripts (scripts/demo.sh, scripts/test.sh) are listed
but not run: the first builds what this test builds, the second is CI.
Then the outputs the README promises are checked: the lcov file and the HTML
report.

  readme_first_screen.py SOURCE_DIR WORK_DIR

Exit 77 (skipped) when set-up would have to install packages without root.
"""
import os
import re
import shutil
import subprocess
import sys

SKIP = 77
NOT_RUN = ('scripts/demo.sh', 'scripts/test.sh')


def first_screen_commands(readme):
    """The commands of the ```sh blocks before '## Commands', comments cut."""
    text = open(readme).read()
    end = text.find('\n## Commands')
    if end < 0:
        sys.exit('readme: no "## Commands" section ends the first screen')
    commands = []
    for block in re.findall(r'^```sh\n(.*?)^```', text[:end], re.M | re.S):
        for line in block.splitlines():
            # A comment starts at a '#' after a blank (none of these commands quotes one).
            command = re.sub(r'(^|\s)#.*$', '', line).strip()
            if command:
                commands.append(command)
    return commands


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    source, work = sys.argv[1], sys.argv[2]
    commands = first_screen_commands(os.path.join(source, 'README.md'))
    # What a newcomer's first screen must hold, lest the test pass on an empty one.
    for wanted in ('scripts/setup.sh', 'cmake -B build', 'cmake --install build', 'hwt-cov --html'):
        if not any(wanted in c for c in commands):
            sys.exit('readme: the first screen has no "%s" command' % wanted)

    shutil.rmtree(work, ignore_errors=True)
    tree = os.path.join(work, 'hwt')
    prefix = os.path.join(work, 'prefix')
    # The source tree as a clone has it: no build directories, no npm packages.
    def ignore(directory, names):
        top = os.path.samefile(directory, source)
        return [n for n in names if n in ('node_modules', '__pycache__')
                or (top and (n == '.git' or n.startswith('build')))]
    shutil.copytree(source, tree, symlinks=True, ignore=ignore)
    env = dict(os.environ, PATH=os.path.join(prefix, 'bin') + os.pathsep + os.environ['PATH'])
    env.pop('HWT_DECODER', None)

    for command in commands:
        if any(command.startswith(s) for s in NOT_RUN):
            print('readme: not run here:', command)
            continue
        if command.startswith('sudo '):
            command = command[len('sudo '):]
            if not re.match(r'cmake --install \S+$', command):
                sys.exit('readme: a sudo command this test cannot redirect: ' + command)
            command += ' --prefix ' + prefix
        print('readme: $', command, flush=True)
        p = subprocess.run(['bash', '-e', '-o', 'pipefail', '-c', command], cwd=tree, env=env)
        if p.returncode != 0:
            if command.startswith('scripts/setup.sh') and os.geteuid() != 0:
                print('readme: SKIP: scripts/setup.sh would install packages, as root')
                return SKIP
            sys.exit('readme: FAILED (exit %d): %s' % (p.returncode, command))

    # The installed commands ran, not some other hwt-cov on PATH.
    if not os.access(os.path.join(prefix, 'bin', 'hwt-cov'), os.X_OK):
        sys.exit('readme: cmake --install put no hwt-cov in ' + prefix)
    info = os.path.join(tree, 'hwt-cov.info')
    html = os.path.join(tree, 'cov', 'index.html')
    if not os.path.isfile(info):
        sys.exit('readme: no hwt-cov.info, which the README says hwt-cov writes')
    if not os.path.isfile(html):
        sys.exit('readme: no cov/index.html, which the README says is the report')
    lcov = open(info).read()
    calc = os.path.join(tree, 'examples', 'calc', 'calc.c')
    section = re.search(r'^SF:%s\n(.*?)^end_of_record' % re.escape(calc), lcov, re.M | re.S)
    if not section:
        sys.exit('readme: hwt-cov.info has no section for ' + calc)
    hit = re.search(r'^LH:(\d+)$', section.group(1), re.M)
    found = re.search(r'^LF:(\d+)$', section.group(1), re.M)
    if not hit or not found or int(hit.group(1)) == 0 or int(hit.group(1)) > int(found.group(1)):
        sys.exit('readme: calc.c\'s lines in hwt-cov.info are wrong: LH %s, LF %s'
                 % (hit and hit.group(1), found and found.group(1)))
    print('readme: %d commands ran; calc.c: %s of %s lines, report in cov/index.html'
          % (len(commands), hit.group(1), found.group(1)))
    return 0


if __name__ == '__main__':
    sys.exit(main())
