"""A test project for the CI tests: examples/calc as a CMake project of
its own with CTest tests, in a git repository with two commits on a
branch 'feature' made from 'main', and an 'origin' it was cloned from.

The second commit changes several files in ways diff coverage must tell
apart: a new function partly run, an old line that runs changed, lines of
a function no test calls changed, a new source file, lines removed,
a header and a README (no code), a test calling the new function.
"""
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CALC = os.path.join(ROOT, 'examples', 'calc')

CMAKE = '''cmake_minimum_required(VERSION 3.20)
project(calcproj C)
enable_testing()
add_library(calc SHARED {libsrc})
target_compile_options(calc PRIVATE -O0 -g)
foreach(t test_arith test_parse test_prime)
  add_executable(${{t}} ${{t}}.c)
  target_compile_options(${{t}} PRIVATE -O0 -g)
  target_link_libraries(${{t}} PRIVATE calc)
  add_test(NAME ${{t}} COMMAND ${{t}})
endforeach()
{extra}'''


def check(cond, what):
    """A failed expectation: the test's FAIL line says what."""
    if not cond:
        raise AssertionError(what)


def main_of(name, main):
    """Runs main() as a test's main: its status, or 1 with a FAIL line."""
    try:
        sys.exit(main())
    except (AssertionError, RuntimeError) as e:
        print('%s: FAIL: %s' % (name, e))
        sys.exit(1)


def run(cmd, cwd=None, env=None, check=True):
    p = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True)
    if check and p.returncode != 0:
        raise RuntimeError('%s: exit %d\n%s%s' % (' '.join(cmd), p.returncode, p.stdout,
                                                  p.stderr))
    return p


def git(repo, *args):
    return run(['git', '-c', 'user.name=t', '-c', 'user.email=t@example.invalid',
                '-c', 'commit.gpgsign=false'] + list(args), cwd=repo).stdout


def write(path, text):
    with open(path, 'w') as f:
        f.write(text)


def edit(path, old, new):
    text = open(path).read()
    if old not in text:
        raise RuntimeError('%s: no %r' % (path, old))
    write(path, text.replace(old, new, 1))


def make_project(work, extra_cmake=''):
    """origin (bare) and a clone at work/repo on branch feature, two
    commits: main's base, feature's change. Returns the clone's path."""
    if os.path.exists(work):
        shutil.rmtree(work)
    os.makedirs(work)
    seed = os.path.join(work, 'seed')
    os.makedirs(seed)
    for name in ('calc.c', 'calc.h', 'check.h', 'test_arith.c', 'test_parse.c',
                 'test_prime.c', 'README.md'):
        shutil.copy(os.path.join(CALC, name), seed)
    write(os.path.join(seed, 'CMakeLists.txt'), CMAKE.format(libsrc='calc.c', extra=extra_cmake))
    run(['git', 'init', '-q', '-b', 'main', seed])
    git(seed, 'add', '-A')
    git(seed, 'commit', '-qm', 'calc')
    origin = os.path.join(work, 'origin.git')
    run(['git', 'clone', '-q', '--bare', seed, origin])
    repo = os.path.join(work, 'repo')
    run(['git', 'clone', '-q', origin, repo])
    git(repo, 'checkout', '-q', '-b', 'feature')
    change(repo, extra_cmake)
    git(repo, 'add', '-A')
    git(repo, 'commit', '-qm', 'calc: twice, extra')
    return repo


def change(repo, extra_cmake=''):
    calc = os.path.join(repo, 'calc.c')
    # A new function, one branch of it never taken.
    edit(calc, 'int calc_gcd(int a, int b)\n',
         'int calc_twice(int x)\n{\n\tif (x > 1000)\n\t\treturn -1;\n\treturn 2 * x;\n}\n\n'
         'int calc_gcd(int a, int b)\n')
    # An old line that runs, changed.
    edit(calc, '\tlong r = 1;\n\n\tif (n < 0)\n\t\treturn -1;\n\tfor',
         '\tlong r = 1L;\n\n\tif (n < 0)\n\t\treturn -1;\n\tfor')
    # Lines of a function no test calls, changed.
    edit(calc, '\t\tr *= base;\n', '\t\tr = r * base;\n')
    # Lines removed (a comment).
    edit(calc, '/* libcalc. The tests leave calc_pow, calc_fib and some error branches\n'
         ' * unexercised on purpose, so that its coverage is not 100%. */\n', '')
    edit(os.path.join(repo, 'calc.h'), 'int calc_fib(int n);\n',
         'int calc_fib(int n);\nint calc_twice(int x);\nint calc_extra(int x);\n')
    edit(os.path.join(repo, 'test_arith.c'), '\tCHECK(calc_factorial(0) == 1);\n',
         '\tCHECK(calc_twice(21) == 42);\n\tCHECK(calc_extra(3) == 4);\n'
         '\tCHECK(calc_factorial(0) == 1);\n')
    # A new file, partly run.
    write(os.path.join(repo, 'extra.c'),
          '#include "calc.h"\n\nint calc_extra(int x)\n{\n\tif (x < 0)\n\t\treturn 0;\n'
          '\treturn x + 1;\n}\n\nint calc_unused(int x)\n{\n\treturn x * 3;\n}\n')
    write(os.path.join(repo, 'CMakeLists.txt'),
          CMAKE.format(libsrc='calc.c extra.c', extra=extra_cmake))
    with open(os.path.join(repo, 'README.md'), 'a') as f:
        f.write('\ncalc_twice doubles.\n')


def build(repo, build_dir='build'):
    run(['cmake', '-S', repo, '-B', os.path.join(repo, build_dir), '-DCMAKE_BUILD_TYPE=Debug'])
    run(['cmake', '--build', os.path.join(repo, build_dir)])
