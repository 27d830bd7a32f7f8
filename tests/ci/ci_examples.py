#!/usr/bin/env python3
"""The CI examples (integrations/ci) run as their CI would run them.

The GitHub Actions workflow and the GitLab CI job are read (YAML) and
their steps run on the test project (ci_project.py) as a pull request /
merge request from a branch into main, with the variables those systems
set (GITHUB_BASE_REF, GITHUB_STEP_SUMMARY, CI_PROJECT_DIR,
CI_MERGE_REQUEST_DIFF_BASE_SHA, ...). Every `run:` step and every script
line is run as written, with bash -e as the runners do. Not run: the
steps that install hwt (the workflow's "Install hwt", the job's
before_script: apt-get and a download), which need root on a machine of
one's own; hwt installed from this build (cmake --install) is on PATH
instead, and tests/ci/deb_package.py checks the .deb they install. The
`uses:` steps are checked for what they need: checkout's full history,
the files codecov and upload-artifact upload.

Two pull requests: one whose changed lines all run (every step passes),
and ci_project's change, whose diff coverage is under the examples' 80%
gate: the diff coverage step fails with 32 and the steps after it that
run whatever happened (!cancelled(), artifacts when: always) still do.
GitLab's coverage regex must find hwt-cov's line percentage in the log.

usage: ci_examples.py BUILD_DIR CI_DIR WORK
"""
import os
import re
import shutil
import sys
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ci_project  # noqa: E402

try:
    import yaml
except ImportError:
    yaml = None


check = ci_project.check


def github_condition(expr):
    """A step's `if:` for a pull_request event, nothing cancelled, and
    whether an earlier step failed (failed: only !cancelled() and always() run)."""
    e = expr.strip()
    if e.startswith('${{') and e.endswith('}}'):
        e = e[3:-2].strip()
    runs_after_failure = '!cancelled()' in e or 'always()' in e
    e = e.replace('!cancelled()', 'True').replace('always()', 'True')
    e = e.replace("github.event_name == 'pull_request'", 'True').replace('&&', ' and ')
    check(re.fullmatch(r'[\sTrueand()]*', e), 'a condition this test cannot evaluate: %s' % expr)
    return bool(eval(e)), runs_after_failure  # only True, and, parentheses


def covered_change(repo):
    """A branch from main whose changed lines all run."""
    ci_project.git(repo, 'checkout', '-q', '-b', 'covered', 'origin/main')
    ci_project.edit(os.path.join(repo, 'calc.c'), 'int calc_gcd(int a, int b)\n',
                    'int calc_half(int x)\n{\n\treturn x / 2;\n}\n\nint calc_gcd(int a, int b)\n')
    ci_project.edit(os.path.join(repo, 'calc.h'), 'int calc_fib(int n);\n',
                    'int calc_fib(int n);\nint calc_half(int x);\n')
    ci_project.edit(os.path.join(repo, 'test_arith.c'), '\tCHECK(calc_factorial(0) == 1);\n',
                    '\tCHECK(calc_half(8) == 4);\n\tCHECK(calc_factorial(0) == 1);\n')
    ci_project.git(repo, 'commit', '-qam', 'calc: half')


def clean(repo):
    ci_project.git(repo, 'clean', '-qfdx')


def github(workflow, repo, env, want_diff_status, log):
    job = workflow['jobs']['coverage']
    env = dict(env, **{k: str(v) for k, v in job.get('env', {}).items()})
    summary = os.path.join(os.path.dirname(repo), 'step-summary.md')
    open(summary, 'w').close()
    env.update(GITHUB_EVENT_NAME='pull_request', GITHUB_BASE_REF='main',
               GITHUB_HEAD_REF=ci_project.git(repo, 'rev-parse', '--abbrev-ref', 'HEAD').strip(),
               GITHUB_WORKSPACE=repo, GITHUB_STEP_SUMMARY=summary, CI='true')
    failed = False
    ran = []
    for step in job['steps']:
        name = step.get('name', step.get('uses', '?'))
        holds, after_failure = github_condition(step['if']) if 'if' in step else (True, False)
        if not holds or (failed and not after_failure):
            continue
        if 'uses' in step:
            action, w = step['uses'].split('@')[0], step.get('with', {})
            if action == 'actions/checkout':
                check(w.get('fetch-depth') == 0, 'checkout without full history: no merge base')
            elif action == 'codecov/codecov-action':
                for f in w['files'].split(','):
                    check(os.path.exists(os.path.join(repo, f.strip())), 'codecov: no %s' % f)
            elif action == 'actions/upload-artifact':
                for f in w['path'].split():
                    check(os.path.exists(os.path.join(repo, f)), 'upload-artifact: no %s' % f)
            else:
                raise AssertionError('an action this test does not know: %s' % action)
            ran.append((name, 'checked'))
            continue
        if name == 'Install hwt':
            ran.append((name, 'not run (hwt on PATH from cmake --install)'))
            continue
        p = ci_project.run(['bash', '--noprofile', '--norc', '-eo', 'pipefail', '-c',
                            step['run']], cwd=repo, env=env, check=False)
        log.write('--- github: %s: exit %d\n%s%s' % (name, p.returncode, p.stdout, p.stderr))
        want = want_diff_status if name == 'Diff coverage' else 0
        check(p.returncode == want, 'github step %r: exit %d, want %d\n%s' %
              (name, p.returncode, want, p.stderr[-2000:]))
        failed |= p.returncode != 0
        ran.append((name, 'exit %d' % p.returncode))
    text = open(summary).read()
    check(text.startswith('## Diff coverage: '), 'step summary: %r' % text[:200])
    return ran, text.splitlines()[0]


def gitlab(config, repo, env, want_status, log):
    job = config['coverage']
    env = dict(env, **{k: str(v) for k, v in job.get('variables', {}).items()})
    env.update(CI='true', GITLAB_CI='true', CI_PROJECT_DIR=repo,
               CI_MERGE_REQUEST_TARGET_BRANCH_NAME='main',
               CI_MERGE_REQUEST_DIFF_BASE_SHA=ci_project.git(repo, 'merge-base', 'origin/main',
                                                             'HEAD').strip())
    # The runner runs the script's lines in one shell and stops at the first that fails.
    p = ci_project.run(['bash', '--noprofile', '--norc', '-eo', 'pipefail', '-c',
                        '\n'.join(job['script'])], cwd=repo, env=env, check=False)
    job_log = p.stdout + p.stderr
    log.write('--- gitlab: exit %d\n%s' % (p.returncode, job_log))
    check(p.returncode == want_status, 'gitlab script: exit %d, want %d\n%s' %
          (p.returncode, want_status, p.stderr[-2000:]))
    m = re.search(job['coverage'].strip('/'), job_log)
    lf = lh = 0
    for line in open(os.path.join(repo, 'coverage.info')):
        lf += int(line[3:]) if line.startswith('LF:') else 0
        lh += int(line[3:]) if line.startswith('LH:') else 0
    check(m and m.group(1) == '%.1f' % (100.0 * lh / lf),
          'coverage regex: %s, lcov says %.1f%%' % (m and m.group(0), 100.0 * lh / lf))
    art = job['artifacts']
    check(art.get('when') == 'always', 'artifacts not kept when the job fails')
    for f in art['paths']:
        check(os.path.exists(os.path.join(repo, f)), 'artifacts: no %s' % f)
    report = art['reports']['coverage_report']
    check(report['coverage_format'] == 'cobertura', 'coverage_report: %s' % report)
    root = ET.parse(os.path.join(repo, report['path'])).getroot()
    check(root.tag == 'coverage' and root.find('sources/source').text == repo,
          'the Cobertura report\'s source is not the project: %s' % ET.tostring(root)[:200])
    return m.group(0)


def main():
    build, ci_dir, work = sys.argv[1:4]
    if yaml is None:
        print('ci_examples: SKIP: no PyYAML (Debian: python3-yaml)')
        return 77
    workflow = yaml.safe_load(open(os.path.join(ci_dir, 'github-actions.yml')))
    config = yaml.safe_load(open(os.path.join(ci_dir, 'gitlab-ci.yml')))
    if os.path.exists(work):
        shutil.rmtree(work)
    repo = ci_project.make_project(os.path.join(work, 'project'))
    prefix = os.path.join(work, 'hwt')
    ci_project.run(['cmake', '--install', build, '--prefix', prefix])
    home = os.path.join(work, 'home')
    os.makedirs(home)
    env = dict(os.environ, PATH=os.path.join(prefix, 'bin') + os.pathsep + os.environ['PATH'],
               HOME=home)
    log = open(os.path.join(work, 'ci.log'), 'w')
    for branch, diff_status in (('covered', 0), ('feature', 32)):
        if branch == 'covered':
            covered_change(repo)
        else:
            ci_project.git(repo, 'checkout', '-q', 'feature')
        clean(repo)
        ran, summary = github(workflow, repo, env, diff_status, log)
        print('  github, branch %s: %s; step summary "%s"' %
              (branch, ', '.join('%s: %s' % r for r in ran), summary))
        clean(repo)
        found = gitlab(config, repo, env, diff_status, log)
        print('  gitlab, branch %s: script exit %d, coverage regex found "%s"' %
              (branch, diff_status, found))
    print('ci_examples: the GitHub Actions and GitLab CI steps ran (log: %s)' % log.name)
    return 0


if __name__ == '__main__':
    ci_project.main_of('ci_examples', main)
