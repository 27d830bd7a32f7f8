/*
 * Tests inside one process (hwt-cov --per-test): each call of a test
 * function, from its entry until it returns, callees included, is a test
 * of its own. A consumer of the decoder's ordered flow (hwt_flow.h) that
 * counts what each thread ran into one profile per test, as the profile
 * accumulator counts the whole run:
 *  - a process test (the process-tree split, given per bundle image) gets
 *    what its processes ran outside every test function;
 *  - the images of no process test get it in the "outside" profile;
 *  - each test function found (hwt_test_calls_at) gets what ran from its
 *    entry to its return, whatever process test it ran in.
 * The profiles add up to the whole run's.
 *
 * Test functions are recognised by their symbol, by the function or the
 * library that calls them, and for cmocka and CUnit by their DWARF and
 * sources (hwt_test_framework). Their names are the functions' or their
 * frameworks' (the caller names GoogleTest's and Catch2's tests from their
 * source lines).
 */
#ifndef HWT_TEST_CALLS_H
#define HWT_TEST_CALLS_H

#include <stddef.h>
#include <stdint.h>

#include "hwt_flow.h"
#include "hwt_stacks.h"

#ifdef __cplusplus
extern "C" {
#endif

enum hwt_test_framework {
	hwt_test_gtest,       /* a Suite_Name_Test::TestBody(); with the call of
	                         testing::TestInfo::Run() around it when there is one
	                         (constructor, SetUp, TearDown, destructor: the
	                         test as --gtest_filter runs it) */
	hwt_test_catch2,      /* a C_A_T_C_H_T_E_S_T_N function (older: ____C_A_T_C_H____T_E_S_T____N) */
	hwt_test_unity,       /* called through a pointer by UnityDefaultTestRun */
	hwt_test_cmocka,      /* called by libcmocka, returning nothing (its fixtures
	                         return an int): named as the function, or by the
	                         string of a struct CMUnitTest written out */
	hwt_test_check,       /* a START_TEST(name)'s name_fn, called by Check's
	                         runner (tcase_run_tfun_fork, _nofork or
	                         srunner_run_tagged, or libcheck.so): named name */
	hwt_test_cunit,       /* called by libcunit and registered in the sources
	                         (CU_add_test, CU_ADD_TEST, CU_TEST_INFO, a
	                         CU_TestInfo): named by its string */
	hwt_test_function,    /* matched a --test-function glob */
};

struct hwt_test_calls_options {
	/* --test-function globs (fnmatch, on the function's name, C++ names
	   demangled without their parameters, or its linkage name); NULL-terminated
	   or NULL. */
	const char *const *functions;
	/* Per bundle image: its process test (< process_tests), -1 none. */
	const int32_t *image_test;
	size_t images;
	size_t process_tests;
};

struct hwt_test_calls;

/*
 * Names the functions with symbols (the profile a decode gives its blocks'
 * images), which must outlive it. NULL when out of memory.
 */
struct hwt_test_calls *hwt_test_calls_alloc(struct hwt_stacks_symbols *symbols,
					    const struct hwt_test_calls_options *options);
void hwt_test_calls_free(struct hwt_test_calls *calls);

/* The consumer to give the decode (hwt_decode_options.flow). */
const struct hwt_flow_consumer *hwt_test_calls_consumer(struct hwt_test_calls *calls);

struct hwt_test_call {
	const char *function;     /* linkage name (as the symbol table has it) */
	const char *name;         /* C++: demangled, without parameters; else function */
	enum hwt_test_framework framework;
	uint64_t calls;           /* times it was called */
};

/* After the decode: the test functions that ran, in the order the decode found them
   (a parallel decode's threads find them in an order of their own making). */
size_t hwt_test_calls_count(const struct hwt_test_calls *calls);
const struct hwt_test_call *hwt_test_calls_at(const struct hwt_test_calls *calls, size_t i);

/*
 * After the decode: the profile of process test i (< process_tests),
 * outside every test (i == process_tests), or of test function
 * i - process_tests - 1. NULL when there is none (nothing ran there).
 */
struct hwt_profile *hwt_test_calls_profile(const struct hwt_test_calls *calls, size_t i);

/* 0, or -hse_nomem when something could not be counted. */
int hwt_test_calls_status(const struct hwt_test_calls *calls);

/*
 * Whether the ELF file at path holds a function that the built-in
 * frameworks or the globs name as a test (a GoogleTest TestBody, a Catch2
 * test case, Unity's or Check's runner), or that needs libcmocka, libcheck
 * or libcunit: 1, else 0 (also when it cannot be read).
 * Cheap enough to decide whether the ordered flow is needed at all.
 */
int hwt_test_calls_in_file(const char *path, const char *const *functions);

#ifdef __cplusplus
}
#endif

#endif /* HWT_TEST_CALLS_H */
