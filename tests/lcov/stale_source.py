#!/usr/bin/env python3
"""Sources edited after the build, as gcov warns about them ("source file is
newer than notes file"): one run of a gcc -O0 -g build of src/cov_basic.c,
kept as a bundle, then reported by `hwt report lcov` (and once by hwt-cov)
after its source changed:

 - untouched: no warning about the source;
 - touched (newer than the binary, same text): one warning naming the source
   and the binary, the report unchanged;
 - truncated (shorter than the line table says): one warning naming both and
   the lines left out; no line, function or branch past the new end, in the
   lcov file and in the Cobertura one; the lines before it as they were.

usage: stale_source.py HWT_COV REPORT_LCOV SRC_DIR WORK_DIR
"""
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gcov_oracle import parse_lcov  # noqa: E402

ARG = '7'


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def warnings_about(stderr, src):
    return [l for l in stderr.splitlines() if 'warning: %s:' % src in l]


def main():
    hwt_cov, report, src_dir, work = sys.argv[1:5]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    failures = []
    src = os.path.join(work, 'cov_basic.c')
    shutil.copy(os.path.join(src_dir, 'cov_basic.c'), src)
    prog = os.path.join(work, 'cov_basic')
    bundle = os.path.join(work, 'run.hwt')
    r = run(['gcc', '-O0', '-g', '-o', prog, src])
    if r.returncode:
        print(r.stderr)
        return 1
    # The source older than the binary, whatever the clock did.
    st = os.stat(prog)
    os.utime(src, ns=(st.st_atime_ns, st.st_mtime_ns - 10**9))
    base_info = os.path.join(work, 'base.info')
    r = run([hwt_cov, '-q', '--keep', bundle, '-o', base_info, prog, ARG])
    if r.returncode != 0 or warnings_about(r.stderr, src):
        failures.append('untouched source: status %d, or warned:\n%s' % (r.returncode, r.stderr))
    base = parse_lcov(base_info)[src]
    last = max(base['lines'])

    # Touched: newer than the binary.
    os.utime(src, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    touched_info = os.path.join(work, 'touched.info')
    for cmd in ([report, bundle, '-o', touched_info],
                [hwt_cov, '-q', '-o', os.path.join(work, 'touched2.info'), prog, ARG]):
        r = run(cmd)
        w = warnings_about(r.stderr, src)
        want = '%s: the source file is newer than %s, built from it' % (src, prog)
        if r.returncode != 0 or len(w) != 1 or want not in w[0]:
            failures.append('%s on a touched source: status %d, want one warning "%s":\n%s' %
                            (os.path.basename(cmd[0]), r.returncode, want, r.stderr))
        else:
            print('ok: touched: %s' % w[0])
    if parse_lcov(touched_info).get(src) != base:
        failures.append('touched source: the report changed')

    # Truncated: the last ten lines with code gone.
    keep = sorted(base['lines'])[-10] - 1
    text = open(src).read().split('\n')
    with open(src, 'w') as f:
        f.write('\n'.join(text[:keep]) + '\n')
    trunc_info = os.path.join(work, 'trunc.info')
    trunc_xml = os.path.join(work, 'trunc.xml')
    r = run([report, bundle, '-o', trunc_info, '-o', trunc_xml])
    w = warnings_about(r.stderr, src)
    gone = sum(1 for n in base['lines'] if n > keep)
    # The closing brace rule reads the source: with the text gone, a
    # function's last brace may count as a line too (past the end).
    want = re.compile(re.escape('%s: the source file has %d lines but the line table of %s '
                                'names line ' % (src, keep, prog)) +
                      r'(\d+): changed since the build; (\d+) lines past its end left out$')
    m = want.search(w[0]) if len(w) == 1 else None
    if r.returncode != 0 or not m or int(m.group(1)) < last or int(m.group(2)) < gone:
        failures.append('truncated source: status %d, want one warning "%s" naming line %d '
                        'or later, %d lines or more:\n%s' %
                        (r.returncode, want.pattern, last, gone, r.stderr))
    else:
        print('ok: truncated: %s' % w[0])
    trunc = parse_lcov(trunc_info).get(src, {'lines': {}, 'fns': {}, 'brs': {}})
    if trunc['lines'] != {n: c for n, c in base['lines'].items() if n <= keep}:
        failures.append('truncated source: the lines up to %d differ from the full report, '
                        'or lines past it are left' % keep)
    fn_lines = {}
    for l in open(trunc_info):
        if l.startswith('FN:'):
            n, name = l[3:].strip().split(',', 1)
            fn_lines[name] = int(n)
    past = [n for n in fn_lines.values() if n > keep] + [k[0] for k in trunc['brs'] if k[0] > keep]
    if past or not fn_lines:
        failures.append('truncated source: functions or branches past line %d: %s' % (keep, past))
    if set(trunc['fns']) != set(fn_lines):
        failures.append('truncated source: FNDA without FN')
    xml_lines = [int(n) for n in re.findall(r'<line number="(\d+)"', open(trunc_xml).read())]
    if not xml_lines or max(xml_lines) > keep:
        failures.append('truncated source: Cobertura has lines past %d: %s' %
                        (keep, max(xml_lines or [0])))
    print('truncated at %d lines: %d of %d lines with code left out' %
          (keep, gone, len(base['lines'])))
    for f in failures:
        print('FAIL: %s' % f)
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
