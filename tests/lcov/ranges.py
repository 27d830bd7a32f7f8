"""Functions in several parts (DW_AT_ranges) get their FN/FNDA records.

Builds tests/lcov/src/cold_split.c, whose checked_div() has unlikely error
paths, with gcc -O2 -g (DWARF 4 and 5: gcc moves them to checked_div.cold)
or with clang-19 -O2 -g -fbasic-block-sections=all (DWARF 4 and 5: one
section per basic block, so DW_AT_ranges, DW_FORM_rnglistx in DWARF 5).
Checks that the build is what the test is about (the part symbols exist,
the DIE has DW_AT_ranges and no DW_AT_low_pc), then runs it under hwt-cov
and checks: FN and FNDA for checked_div with the number of calls the
program makes, the loader's entry address is the checked_div symbol and
the other parts' line spans belong to checked_div (lcov_ranges), and lcov
--summary and genhtml read the file without a word.

usage: ranges.py HWT_COV LCOV_RANGES SRC_DIR WORK_DIR gcc|CLANG
Exit status 77 (skipped) when the compiler is not installed.
"""
import os
import re
import shutil
import subprocess
import sys

CALLS = 123


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def func_symbols(exe):
    """name -> (address, size) of the function symbols."""
    syms = {}
    for line in run(['nm', '-S', exe]).stdout.splitlines():
        f = line.split()
        if len(f) == 4 and f[2] in 'tT':
            syms[f[3]] = (int(f[0], 16), int(f[1], 16))
    return syms


def die_of(exe, name):
    """readelf's text of the DW_TAG_subprogram DIE named name with code."""
    out = run(['readelf', '--debug-dump=info', exe]).stdout
    for die in re.split(r'\n(?= <\d+><[0-9a-f]+>)', out):
        if 'DW_TAG_subprogram' in die.split('\n')[0] and \
                re.search(r'DW_AT_name\s*:.*\b%s\s*$' % name, die, re.M) and \
                ('DW_AT_ranges' in die or 'DW_AT_low_pc' in die):
            return die
    return None


def case(label, cc, flags, part_re, args, fails):
    work = os.path.join(args['work'], label)
    os.makedirs(work)
    exe = os.path.join(work, 'cold_split')
    src = os.path.join(args['src'], 'cold_split.c')

    def fail(msg):
        print('FAIL: %s: %s' % (label, msg))
        fails.append(label)

    r = run([cc, '-O2', '-g'] + flags + ['-o', exe, src])
    if r.returncode:
        fail('build failed: %s' % r.stderr)
        return
    syms = func_symbols(exe)
    parts = [(a, a + s) for n, (a, s) in syms.items() if re.fullmatch(part_re, n)]
    die = die_of(exe, 'checked_div')
    if 'checked_div' not in syms or not parts:
        fail('no checked_div and %s symbols: not a split function' % part_re)
        return
    if not die or 'DW_AT_ranges' not in die or 'DW_AT_low_pc' in die:
        fail('the checked_div DIE has no DW_AT_ranges (or has DW_AT_low_pc)')
        return
    form = 'DW_FORM_rnglistx' if 'rnglistx' in run(['readelf', '--debug-dump=abbrev', exe]).stdout \
        else 'sec_offset'
    print('%s: checked_div at %#x, %d other part(s) %s; DW_AT_ranges (%s)' %
          (label, syms['checked_div'][0], len(parts),
           ', '.join('[%#x, %#x)' % p for p in parts), form))

    r = run([args['ranges'], exe, 'checked_div', '%x' % syms['checked_div'][0]] +
            ['%x' % v for p in parts for v in p])
    sys.stdout.write(r.stdout)
    if r.returncode:
        fail('lcov_ranges: %s' % r.stderr.strip())

    native = run([exe, str(CALLS)])
    info = os.path.join(work, 'cov.info')
    r = run([args['hwt_cov'], '-o', info, '--', exe, str(CALLS)], cwd=work)
    if r.returncode != 0 or r.stdout != native.stdout:
        fail('hwt-cov exit %d, output %r (native %r)' % (r.returncode, r.stdout, native.stdout))
        return
    for line in r.stderr.splitlines():
        if line.startswith('hwt-cov:') and ('warning' in line or 'error' in line):
            fail('hwt-cov said: %s' % line)
    text = open(info).read()
    fn = re.findall(r'^FN:(\d+),checked_div$', text, re.M)
    fnda = re.findall(r'^FNDA:(\d+),checked_div$', text, re.M)
    main = re.findall(r'^FNDA:(\d+),main$', text, re.M)
    print('%s: FN:%s,checked_div FNDA:%s,checked_div FNDA:%s,main' %
          (label, ','.join(fn), ','.join(fnda), ','.join(main)))
    if fn != ['11']:
        fail('FN for checked_div: %s, want line 11' % fn)
    if fnda != [str(CALLS)]:
        fail('FNDA for checked_div: %s, want %d calls' % (fnda, CALLS))
    if main != ['1']:
        fail('FNDA for main: %s, want 1' % main)
    r = run(['lcov', '--summary', info])
    if r.returncode or r.stderr.strip():
        fail('lcov --summary: %s' % r.stderr.strip())
    elif not re.search(r'functions\.*: 66\.7% \(2 of 3 functions\)', r.stdout):
        fail('lcov --summary: %s' % r.stdout)
    r = run(['genhtml', '--quiet', '--branch-coverage', '--function-coverage', '-o',
             os.path.join(work, 'html'), info])
    if r.returncode or r.stdout.strip() or r.stderr.strip():
        fail('genhtml: %s %s' % (r.stdout.strip(), r.stderr.strip()))


def main():
    if len(sys.argv) != 6:
        sys.exit(__doc__)
    hwt_cov, ranges, src, work, cc = sys.argv[1:6]
    if not shutil.which(cc):
        print('skipped: %s not found (scripts/setup.sh --tests installs it)' % cc)
        return 77
    shutil.rmtree(work, ignore_errors=True)
    args = {'hwt_cov': hwt_cov, 'ranges': ranges, 'src': src, 'work': work}
    fails = []
    if os.path.basename(cc).startswith('gcc'):
        cases = [('gcc-dwarf4', cc, ['-gdwarf-4'], r'checked_div\.cold'),
                 ('gcc-dwarf5', cc, [], r'checked_div\.cold')]
    else:
        bbs = ['-fbasic-block-sections=all']
        cases = [('clang-dwarf4', cc, ['-gdwarf-4'] + bbs, r'checked_div\.__part\.\d+'),
                 ('clang-dwarf5', cc, bbs, r'checked_div\.__part\.\d+')]
    for c in cases:
        case(*c, args=args, fails=fails)
    print('%d cases, %d failed' % (len(cases), len(set(fails))))
    return 1 if fails else 0


if __name__ == '__main__':
    sys.exit(main())
