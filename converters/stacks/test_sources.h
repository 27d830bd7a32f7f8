/*
 * What a program's DWARF and the sources of its compilation units say of
 * its tests, for the frameworks whose runner is a stripped library
 * (test_calls.c): a function's return type (a cmocka test returns nothing,
 * its fixtures an int) and the registrations written in the sources (a
 * CUnit test is a function registered by CU_add_test, CU_ADD_TEST or a
 * CU_TestInfo, named by its string; a cmocka test written out as a struct
 * CMUnitTest is named by its string).
 */
#ifndef HWT_TEST_SOURCES_H
#define HWT_TEST_SOURCES_H

enum {
	HWT_TEST_SOURCES_CUNIT,
	HWT_TEST_SOURCES_CMOCKA,
};

struct hwt_test_sources;

/*
 * Reads the DWARF of the ELF file at path: 0 and *sources (NULL when the
 * file has no DWARF or cannot be read), or -1 when out of memory.
 */
int hwt_test_sources_load(const char *path, struct hwt_test_sources **sources);
void hwt_test_sources_free(struct hwt_test_sources *sources);

/* Whether the function of that name (defined with code) returns a value: 1, 0, or -1 unknown. */
int hwt_test_sources_returns_value(const struct hwt_test_sources *sources, const char *function);

/*
 * Whether the sources register function as a test of framework
 * (HWT_TEST_SOURCES_*): 1 and *name (the sources'), 0, or -1 when out of
 * memory. The sources are read at the first call.
 */
int hwt_test_sources_registered(struct hwt_test_sources *sources, int framework,
				const char *function, const char **name);

#endif /* HWT_TEST_SOURCES_H */
