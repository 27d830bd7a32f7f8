#!/usr/bin/env python3
"""hwt-cov --per-test inside one process: each call of a test function is a
test. A small project (examples/calc's library, its tests in a framework)
is built twice, at -O0 -g and with --coverage, and run once under hwt-cov
--per-test. The oracle of a test is the framework's own filter under gcov:
the run filtered to that test, less the run filtered to no test (the
start-up, the registrations, the runner: code outside every test), as
`lcov --capture` counts them; hwt's TN section of the test must equal it
(lines run and not run, counts, function calls; gcov_oracle.py's documented
exceptions). The sections add up to the whole run, and `hwt report tests`
names the in-process tests.

Cases:
  gtest   GoogleTest (built in: TestBody, named Suite.Name from its TEST line,
          a suite name with an underscore included); filter --gtest_filter
  cmocka  cmocka (built in: a void function libcmocka calls; its int
          fixtures are not tests); filter cmocka_set_test_filter
  check   Check (built in: START_TEST(name)'s name_fn, named name), its
          tests forked (Check's default) and, with CK_FORK=no, in the
          process: both give the same sections; filter srunner_run with a
          test case per test
  cunit   CUnit (built in: registered with CU_add_test, CU_ADD_TEST or a
          CU_TestInfo, named by their strings; the suite's and the tests'
          fixtures are not tests); filter CU_get_test + CU_basic_run_test
  unity   Unity (built in: a function UnityDefaultTestRun calls through a
          pointer, named as the function; setUp and tearDown are not
          tests), the Unity that cJSON's Debian source vendors
          (tests/unity/src: $HWT_UNITY_DIR, else the cache of
          bench/select/real_suites.sh, which scripts/setup.sh --tests fills;
          skipped when there is none); filter:
          RUN_TEST of the test of that name only

Each framework's fixtures are in fixtures.c, left out of the comparison:
a test's section is its test function's call, its fixtures are outside
every test (the filtered gcov run counts them with the test). No section
is named after a fixture.

usage: per_test_function.py HWT_COV WORK_DIR CASE
Exit status 77 (skipped) when the framework is not installed.
"""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from gcov_oracle import compare, parse_lcov, run  # noqa: E402

SKIPPED = 77
CALC = os.path.join(os.path.dirname(os.path.dirname(HERE)), 'examples', 'calc')

GTEST_PROJECT = """cmake_minimum_required(VERSION 3.16)
project(per_test_function C CXX)
enable_testing()
find_package(GTest REQUIRED)
add_library(calc STATIC calc.c)
add_executable(calc_tests calc_tests.cc)
target_link_libraries(calc_tests PRIVATE calc GTest::gtest_main)
# A CTest test of one gtest test, named as gtest_discover_tests names it.
add_test(NAME Calc_Arith.Add COMMAND calc_tests --gtest_filter=Calc_Arith.Add)
"""
GTEST_TESTS = r"""#include <gtest/gtest.h>
extern "C" {
#include "calc.h"
}

static int sum_to(int n)
{
	int s = 0;
	for (int i = 1; i <= n; i++)
		calc_apply('+', s, i, &s);
	return s;
}

TEST(Calc_Arith, Add)
{
	int r = 0;
	EXPECT_EQ(calc_apply('+', 2, 3, &r), CALC_OK);
	EXPECT_EQ(r, 5);
}

TEST(Calc_Arith, Sum)
{
	EXPECT_EQ(sum_to(10), 55);
}

TEST(Prime, Small)
{
	for (int n = 2; n < 30; n++)
		if (n == 2 || n == 3)
			EXPECT_TRUE(calc_is_prime(n));
}

TEST(Gcd, Twice)
{
	EXPECT_EQ(calc_gcd(12, 18), 6);
	EXPECT_EQ(calc_gcd(sum_to(4), 4), 2);
}
"""
GTEST_NAMES = ['Calc_Arith.Add', 'Calc_Arith.Sum', 'Prime.Small', 'Gcd.Twice']

CATCH2_PROJECT = """cmake_minimum_required(VERSION 3.16)
project(per_test_function C CXX)
add_library(calc STATIC calc.c)
# Catch2's main (most of the build's time) is compiled once, by the plain build.
if(CATCH_MAIN_OBJECT)
  add_executable(calc_tests ${CATCH_MAIN_OBJECT} calc_tests.cc)
else()
  add_executable(calc_tests calc_main.cc calc_tests.cc)
endif()
target_link_libraries(calc_tests PRIVATE calc)
"""
CATCH2_MAIN = """#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
"""
CATCH2_TESTS = r"""#include <catch2/catch.hpp>
extern "C" {
#include "calc.h"
}

TEST_CASE("gcd of two numbers", "[calc]")
{
	REQUIRE(calc_gcd(12, 18) == 6);
}

TEST_CASE("primes \"small\"")
{
	int primes = 0;
	for (int n = 2; n < 20; n++)
		primes += calc_is_prime(n);
	REQUIRE(primes == 8);
}

SCENARIO("fibonacci")
{
	REQUIRE(calc_fib(7) == 13);
}
"""
CATCH2_NAMES = ['gcd of two numbers', 'primes "small"', 'Scenario: fibonacci']

C_PROJECT = """cmake_minimum_required(VERSION 3.16)
project(per_test_function C)
add_library(calc STATIC calc.c)
add_executable(calc_tests calc_tests.c fixtures.c)
target_link_libraries(calc_tests PRIVATE calc %s)
"""
CMOCKA_TESTS = r"""#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "calc.h"

int group_setup(void **state);
int group_teardown(void **state);
int per_test_setup(void **state);
int per_test_teardown(void **state);

static void test_parse(void **state)
{
	int v = 0;
	(void)state;
	assert_int_equal(calc_parse_int("42", &v), CALC_OK);
	assert_int_equal(v, 42);
	assert_int_equal(calc_parse_int("x", &v), CALC_ERR_INPUT);
}

static void test_factorial(void **state)
{
	(void)state;
	for (int n = 1; n < 6; n++)
		assert_true(calc_factorial(n) > 0);
}

static void test_fib(void **state)
{
	(void)state;
	assert_int_equal(calc_fib(10), 55);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_parse, per_test_setup, per_test_teardown),
		cmocka_unit_test(test_factorial),
		cmocka_unit_test_setup(test_fib, per_test_setup),
	};

	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
"""
CMOCKA_NAMES = ['test_parse', 'test_factorial', 'test_fib']
CMOCKA_FIXTURES = r"""int fixture_calls;

int group_setup(void **state) { (void)state; fixture_calls++; return 0; }
int group_teardown(void **state) { (void)state; fixture_calls++; return 0; }
int per_test_setup(void **state) { (void)state; fixture_calls++; return 0; }
int per_test_teardown(void **state) { (void)state; fixture_calls++; return 0; }
"""

CHECK_TESTS = r"""#include <check.h>
#include "calc.h"

void fixture_setup(void);
void fixture_teardown(void);

START_TEST(test_parse)
{
	int v = 0;
	ck_assert_int_eq(calc_parse_int("42", &v), CALC_OK);
	ck_assert_int_eq(v, 42);
	ck_assert_int_eq(calc_parse_int("x", &v), CALC_ERR_INPUT);
}
END_TEST

START_TEST(test_factorial)
{
	for (int n = 1; n < 6; n++)
		ck_assert(calc_factorial(n) > 0);
}
END_TEST

START_TEST(test_fib)
{
	ck_assert_int_eq(calc_fib(10), 55);
}
END_TEST

/* A test case per test: srunner_run runs one by its name. */
static void add(Suite *s, const char *name, const TTest *test)
{
	TCase *tc = tcase_create(name);

	tcase_add_checked_fixture(tc, fixture_setup, fixture_teardown);
	tcase_add_test(tc, test);
	suite_add_tcase(s, tc);
}

int main(int argc, char **argv)
{
	Suite *s = suite_create("calc");
	SRunner *sr;
	int failed;

	add(s, "test_parse", test_parse);
	add(s, "test_factorial", test_factorial);
	add(s, "test_fib", test_fib);
	sr = srunner_create(s);
	srunner_run(sr, NULL, argc > 1 ? argv[1] : NULL, CK_SILENT);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed != 0;
}
"""
CHECK_FIXTURES = r"""int fixture_calls;

void fixture_setup(void) { fixture_calls++; }
void fixture_teardown(void) { fixture_calls++; }
"""

CUNIT_TESTS = r"""#include <CUnit/Basic.h>
#include "calc.h"

int suite_init(void);
int suite_clean(void);
void test_setup(void);
void test_teardown(void);
void run_named(const char *name);

static void test_parse(void)
{
	int v = 0;
	CU_ASSERT_EQUAL(calc_parse_int("42", &v), CALC_OK);
	CU_ASSERT_EQUAL(v, 42);
	CU_ASSERT_EQUAL(calc_parse_int("x", &v), CALC_ERR_INPUT);
}

static void test_factorial(void)
{
	for (int n = 1; n < 6; n++)
		CU_ASSERT(calc_factorial(n) > 0);
}

static void test_fib(void)
{
	CU_ASSERT_EQUAL(calc_fib(10), 55);
}

static CU_TestInfo more_tests[] = {
	{ "fib of 10", test_fib },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
	{ "more", suite_init, suite_clean, test_setup, test_teardown, more_tests },
	CU_SUITE_INFO_NULL,
};

int main(int argc, char **argv)
{
	CU_pSuite calc;
	unsigned failed;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 2;
	calc = CU_add_suite_with_setup_and_teardown("calc", suite_init, suite_clean, test_setup,
						    test_teardown);
	CU_add_test(calc, "parse numbers", test_parse);
	CU_ADD_TEST(calc, test_factorial);
	CU_register_suites(suites);
	CU_basic_set_mode(CU_BRM_SILENT);
	if (argc > 1)
		run_named(argv[1]);
	else
		CU_basic_run_tests();
	failed = CU_get_number_of_failures();
	CU_cleanup_registry();
	return failed != 0;
}
"""
CUNIT_FIXTURES = r"""#include <CUnit/Basic.h>

int fixture_calls;

int suite_init(void) { fixture_calls++; return 0; }
int suite_clean(void) { fixture_calls++; return 0; }
void test_setup(void) { fixture_calls++; }
void test_teardown(void) { fixture_calls++; }

/* The oracle's filter: the test of that name alone, or none (its lines
   differ between the two: they are here, out of the comparison). */
void run_named(const char *name)
{
	CU_pSuite calc = CU_get_suite("calc"), more = CU_get_suite("more");
	CU_pTest t = CU_get_test(calc, name);

	if (t)
		CU_basic_run_test(calc, t);
	else if ((t = CU_get_test(more, name)))
		CU_basic_run_test(more, t);
}
"""

CASES = {
    # name: (CMakeLists.txt, test source name, its text, tests, header that
    #        says the framework is installed, filter argument (None: no test),
    #        hwt-cov options)
    'gtest': (GTEST_PROJECT, 'calc_tests.cc', GTEST_TESTS, GTEST_NAMES,
              '/usr/include/gtest/gtest.h',
              lambda name: '--gtest_filter=' + (name or '-*'), []),
    'catch2': (CATCH2_PROJECT, 'calc_tests.cc', CATCH2_TESTS, CATCH2_NAMES,
               '/usr/include/catch2/catch.hpp',
               lambda name: name.replace('"', '\\"') if name else 'no such test', []),
    'cmocka': (C_PROJECT % 'cmocka', 'calc_tests.c', CMOCKA_TESTS, CMOCKA_NAMES,
               '/usr/include/cmocka.h', lambda name: name or 'no_such_test', []),
    'check': (C_PROJECT % 'check_pic m rt pthread subunit', 'calc_tests.c', CHECK_TESTS,
              CMOCKA_NAMES, '/usr/include/check.h',
              lambda name: name or 'no_such_case', []),
    'cunit': (C_PROJECT % 'cunit', 'calc_tests.c', CUNIT_TESTS,
              ['parse numbers', 'test_factorial', 'fib of 10'], '/usr/include/CUnit/Basic.h',
              lambda name: name or 'no such test', []),
}
UNITY_PROJECT = """cmake_minimum_required(VERSION 3.16)
project(per_test_function C)
add_library(calc STATIC calc.c)
add_executable(calc_tests calc_tests.c fixtures.c ${UNITY_DIR}/unity.c)
target_include_directories(calc_tests PRIVATE ${UNITY_DIR})
target_link_libraries(calc_tests PRIVATE calc)
"""
UNITY_TESTS = r"""#include "unity.h"
#include "calc.h"

void run(UnityTestFunction test, const char *name, const char *only);

static void test_parse(void)
{
	int v = 0;
	TEST_ASSERT_EQUAL_INT(CALC_OK, calc_parse_int("42", &v));
	TEST_ASSERT_EQUAL_INT(42, v);
	TEST_ASSERT_EQUAL_INT(CALC_ERR_INPUT, calc_parse_int("x", &v));
}

static void test_factorial(void)
{
	for (int n = 1; n < 6; n++)
		TEST_ASSERT_TRUE(calc_factorial(n) > 0);
}

static void test_fib(void)
{
	TEST_ASSERT_EQUAL_INT(55, calc_fib(10));
}

int main(int argc, char **argv)
{
	const char *only = argc > 1 ? argv[1] : NULL;

	UNITY_BEGIN();
	run(test_parse, "test_parse", only);
	run(test_factorial, "test_factorial", only);
	run(test_fib, "test_fib", only);
	return UNITY_END();
}
"""
UNITY_FIXTURES = r"""#include <string.h>
#include "unity.h"

int fixture_calls;

void setUp(void) { fixture_calls++; }
void tearDown(void) { fixture_calls++; }

/* RUN_TEST(test) when only is NULL or its name (the oracle's filter). */
void run(UnityTestFunction test, const char *name, const char *only)
{
	if (!only || !strcmp(only, name))
		UnityDefaultTestRun(test, name, __LINE__);
}
"""


def unity_dir():
    """Unity's sources (cJSON's copy), or a path that does not exist."""
    if os.environ.get('HWT_UNITY_DIR'):
        return os.environ['HWT_UNITY_DIR']
    cache = os.path.join(os.environ.get('XDG_CACHE_HOME') or
                         os.path.join(os.path.expanduser('~'), '.cache'), 'hwt-bench', 'src')
    found = sorted(glob.glob(os.path.join(cache, 'cjson_*', 'tests', 'unity', 'src')))
    return found[-1] if found else os.path.join(cache, 'no-cjson-fetched')


CASES['unity'] = (UNITY_PROJECT, 'calc_tests.c', UNITY_TESTS, CMOCKA_NAMES,
                  os.path.join(unity_dir(), 'unity.h'),
                  lambda name: name or 'no_such_test', [])

# The C frameworks' fixtures (fixtures.c) and their names.
FIXTURES = {
    'cmocka': (CMOCKA_FIXTURES, ['group_setup', 'group_teardown', 'per_test_setup',
                                 'per_test_teardown']),
    'check': (CHECK_FIXTURES, ['fixture_setup', 'fixture_teardown']),
    'cunit': (CUNIT_FIXTURES, ['suite_init', 'suite_clean', 'test_setup', 'test_teardown']),
    'unity': (UNITY_FIXTURES, ['setUp', 'tearDown', 'run']),
}


def sections(path):
    """{TN: lcov text of its records}"""
    out = {}
    name = None
    for line in open(path):
        if line.startswith('TN:'):
            name = line[3:].strip()
        out.setdefault(name, []).append(line)
    return {k: ''.join(v) for k, v in out.items()}


def parse_text(text):
    fd, path = tempfile.mkstemp(suffix='.info')
    with os.fdopen(fd, 'w') as f:
        f.write(text)
    try:
        return parse_lcov(path)
    finally:
        os.unlink(path)


def build(src, out, flags, extra=()):
    r = run(['cmake', '-S', src, '-B', out, '-DCMAKE_BUILD_TYPE=', '-DCMAKE_C_COMPILER=gcc',
             '-DCMAKE_CXX_COMPILER=g++', '-DCMAKE_C_FLAGS=' + flags,
             '-DCMAKE_CXX_FLAGS=' + flags] + list(extra))
    if r.returncode == 0:
        r = run(['cmake', '--build', out, '-j2'])
    if r.returncode != 0:
        sys.exit('build failed: %s%s' % (r.stdout, r.stderr))


# The oracle's environment. Check's forked children (libcheck.a calls fork
# without gcov's wrapper) count again what their parent ran before the
# fork: gcov runs its tests in the process.
ORACLE_ENV = {'check': {'CK_FORK': 'no'}}


def gcov_run(cov, argv, name, out, env=None):
    """lcov --capture of one run of argv in the --coverage build: its parse."""
    run(['lcov', '--zerocounters', '-d', cov])
    run(argv, cwd=cov, env=dict(os.environ, **(env or {})))
    r = run(['lcov', '--quiet', '--capture', '-d', cov, '-t', name, '-o', out])
    if r.returncode != 0:
        sys.exit('lcov --capture: %s' % r.stderr)
    return parse_lcov(out)


def write_difference(one, none, path):
    """The lcov file of one's counts less none's (a test's own, as gcov sees it)."""
    with open(path, 'w') as f:
        for src in sorted(one):
            base = none.get(src, {'lines': {}, 'fns': {}})
            f.write('TN:\nSF:%s\n' % src)
            for name, c in sorted(one[src]['fns'].items()):
                f.write('FNDA:%d,%s\n' % (c - base['fns'].get(name, 0), name))
            for n, c in sorted(one[src]['lines'].items()):
                f.write('DA:%d,%d\n' % (n, c - base['lines'].get(n, 0)))
            f.write('end_of_record\n')


def main():
    hwt_cov, work, case = sys.argv[1:4]
    project, test_file, test_text, names, header, filt, options = CASES[case]
    if not os.path.exists(header):
        print('%s is not installed: skipped%s' % (header, ' (scripts/setup.sh --tests fetches '
              'it: bench/select/real_suites.sh -f cjson; or set HWT_UNITY_DIR)' if case == 'unity' else ''))
        return SKIPPED
    shutil.rmtree(work, ignore_errors=True)
    src = os.path.join(work, 'src')
    os.makedirs(src)
    for name in ('calc.c', 'calc.h'):
        shutil.copy(os.path.join(CALC, name), src)
    with open(os.path.join(src, 'CMakeLists.txt'), 'w') as f:
        f.write(project)
    with open(os.path.join(src, test_file), 'w') as f:
        f.write(test_text)
    if case == 'catch2':
        with open(os.path.join(src, 'calc_main.cc'), 'w') as f:
            f.write(CATCH2_MAIN)
    fixtures, fixture_names = FIXTURES.get(case, ('', []))
    if fixtures:
        with open(os.path.join(src, 'fixtures.c'), 'w') as f:
            f.write(fixtures)
    plain, cov = os.path.join(work, 'plain'), os.path.join(work, 'cov')
    extra = ['-DUNITY_DIR=' + unity_dir()] if case == 'unity' else []
    build(src, plain, '-O0 -g', extra)
    main_object = os.path.join(plain, 'CMakeFiles', 'calc_tests.dir', 'calc_main.cc.o')
    build(src, cov, '-O0 -g --coverage',
          ['-DCATCH_MAIN_OBJECT=' + main_object] if case == 'catch2' else extra)
    sources = [os.path.join(src, s) for s in ('calc.c', test_file)]
    hwt = os.path.join(os.path.dirname(hwt_cov), 'hwt')
    failures = []

    # One traced run of the whole suite.
    info = os.path.join(work, 'per_test.info')
    bundle = os.path.join(work, 'bundle')
    r = run([hwt_cov, '--per-test'] + options + ['--keep', bundle, '-o', info, '--',
                                                  './calc_tests'], cwd=plain)
    print(r.stderr, end='')
    if r.returncode != 0 or 'warning' in r.stderr:
        failures.append('hwt-cov --per-test: status %d or a warning' % r.returncode)
    got = sections(info) if os.path.exists(info) else {}
    tn = {n: re.sub(r'\W', '_', n) for n in names}
    print('sections: %s' % sorted(got))
    for name in names:
        if list(got).count(tn[name]) != 1:
            failures.append('no section TN:%s' % tn[name])
    for name in fixture_names:
        if name in got:
            failures.append('a fixture is a test: TN:%s' % name)

    # Check runs its tests in forked processes, or with CK_FORK=no in its
    # own: the tests' sections are the same.
    if case == 'check':
        nofork = os.path.join(work, 'nofork.info')
        r = run([hwt_cov, '-q', '--per-test', '-o', nofork, '--', './calc_tests'], cwd=plain,
                env=dict(os.environ, CK_FORK='no'))
        again = sections(nofork) if os.path.exists(nofork) else {}
        for name in names:
            if again.get(tn[name]) != got.get(tn[name]):
                failures.append('CK_FORK=no: section %s differs (status %d: %s)' %
                                (tn[name], r.returncode, r.stderr))

    # The oracle: the test alone less no test, under gcov.
    none = gcov_run(cov, ['./calc_tests', filt(None)], 'none', os.path.join(work, 'none.info'),
                    ORACLE_ENV.get(case))
    for name in names:
        if tn[name] not in got:
            continue
        one = gcov_run(cov, ['./calc_tests', filt(name)], tn[name],
                       os.path.join(work, tn[name] + '.gcov.info'), ORACLE_ENV.get(case))
        oracle = os.path.join(work, tn[name] + '.oracle.info')
        write_difference(one, none, oracle)
        mine = os.path.join(work, tn[name] + '.hwt.info')
        with open(mine, 'w') as f:
            f.write(got[tn[name]])
        print('%s:' % name)
        mismatches, stats = compare(oracle, mine, sources, 'gcc', sys.stdout)
        print('  %d lines, %d with the same count' % (stats['lines'], stats['counts_agree']))
        failures += ['%s: %s' % (name, m) for m in mismatches]

    # The kept bundle gives the same sections.
    again = os.path.join(work, 'again.info')
    r = run([hwt, 'report', 'lcov', '-q', '--per-test'] + options + ['-o', again, bundle],
            cwd=plain)
    if r.returncode != 0 or open(again).read() != open(info).read():
        failures.append('hwt report lcov --per-test BUNDLE differs: %s' % r.stderr)
    # cmocka's tests named with --test-function instead (as before cmocka
    # was built in) are the same sections.
    if case == 'cmocka':
        glob_info = os.path.join(work, 'glob.info')
        run([hwt, 'report', 'lcov', '-q', '--test-function', 'test_*', '-o', glob_info, bundle],
            cwd=plain)
        named = sections(glob_info) if os.path.exists(glob_info) else {}
        if any(named.get(tn[n]) != got.get(tn[n]) for n in names):
            failures.append('with --test-function: other sections for the tests')

    # GoogleTest under CTest (a test per gtest test, as gtest_discover_tests
    # makes them): the CTest test and the test function of one name are one
    # section (a test function named Calc.Arith_Add would be a second
    # section of the same TN), equal to the whole process under gcov.
    if case == 'gtest':
        name = 'Calc_Arith.Add'
        ctest_info = os.path.join(work, 'ctest.info')
        r = run([hwt_cov, '-q', '--per-test', '-o', ctest_info, '--', 'ctest'], cwd=plain)
        tns, cur = [], None  # (TN, SF) of each record: one of each
        for line in open(ctest_info) if os.path.exists(ctest_info) else []:
            if line.startswith('TN:'):
                cur = line[3:].strip()
            elif line.startswith('SF:'):
                tns.append((cur, line[3:].strip()))
        if r.returncode != 0 or sorted(set(t for t, _ in tns)) != [tn[name]] or \
                len(tns) != len(set(tns)):
            failures.append('under ctest: sections %s (status %d: %s)' % (tns, r.returncode,
                                                                         r.stderr))
        else:
            gcov_run(cov, ['./calc_tests', filt(name)], tn[name],
                     os.path.join(work, 'ctest.gcov.info'))
            print('%s under ctest:' % name)
            mismatches, _ = compare(os.path.join(work, 'ctest.gcov.info'), ctest_info,
                                    sources, 'gcc', sys.stdout)
            failures += ['%s under ctest: %s' % (name, m) for m in mismatches]

    # hwt report tests: the tests that ran calc_gcd / calc_fib, with calls.
    fn, want = {'gtest': ('calc_gcd', {'Gcd_Twice': 2}),
                'catch2': ('calc_gcd', {'gcd_of_two_numbers': 1}),
                'cmocka': ('calc_fib', {'test_fib': 1}),
                'check': ('calc_fib', {'test_fib': 1}),
                'unity': ('calc_fib', {'test_fib': 1}),
                'cunit': ('calc_fib', {'fib_of_10': 1})}[case]
    r = run([hwt, 'report', 'tests', info, fn])
    listed = dict((l.split()[1], int(l.split()[0])) for l in r.stdout.splitlines()[1:]
                  if l.strip() and l.strip() != '(no test)')
    if listed != want:
        failures.append('report tests %s: %s, expected %s (%s)' % (fn, listed, want, r.stdout))

    # The sections add up to the whole run: calls and branches exactly; a
    # line ran iff it ran in some section, its count between the largest and
    # the sum of theirs.
    whole = os.path.join(work, 'whole.info')
    run([hwt, 'report', 'lcov', '-q', '-o', whole, bundle], cwd=plain)
    a = parse_lcov(whole)
    parts = [parse_text(text) for text in got.values()]
    for path in set(a) | set(k for p in parts for k in p):
        mine = [p[path] for p in parts if path in p]
        w = a.get(path, {'lines': {}, 'fns': {}, 'brs': {}})
        for n in set(w['lines']) | set(k for p in mine for k in p['lines']):
            counts = [p['lines'].get(n, 0) for p in mine]
            c = w['lines'].get(n)
            if c is None or not max(counts) <= c <= sum(counts) or (c > 0) != (sum(counts) > 0):
                failures.append('%s:%d: whole %s, sections %s' % (path, n, c, counts))
        for name in set(w['fns']) | set(k for p in mine for k in p['fns']):
            total = sum(p['fns'].get(name, 0) for p in mine)
            if w['fns'].get(name) != total:
                failures.append('%s: %s: whole %s calls, sections %d' %
                                (path, name, w['fns'].get(name), total))
        for key in set(w['brs']) | set(k for p in mine for k in p['brs']):
            total = sum(p['brs'].get(key) or 0 for p in mine)
            if (w['brs'].get(key) or 0) != total:
                failures.append('%s: branch %s: whole %s, sections %d' %
                                (path, key, w['brs'].get(key), total))

    for f in failures:
        print('FAIL:', f)
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
