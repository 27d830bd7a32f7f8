/*
 * struct hwt_test_sources: what a program's DWARF and the sources of its
 * compilation units say of its tests (test_sources.h).
 *
 * The DWARF walk keeps each function defined at the top of a unit (its
 * name, whether it returns a value) and each unit's source file. The
 * sources are read when a registration is first asked for; only calls
 * written in them are found (not those a macro of the project makes).
 */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <libdwarf/dwarf.h>

#include "grow.h"
#include "hwt_dwarf.h"
#include "test_sources.h"

struct source_function {
	char *name;
	int returns_value;
};

struct registration {
	int framework;
	char *function;
	char *name;
};

struct hwt_test_sources {
	struct source_function *functions;
	size_t nfunctions, cfunctions;
	char **files;                 /* the units' source files, once each */
	size_t nfiles, cfiles;
	struct registration *regs;
	size_t nregs, cregs;
	int scanned;                  /* the sources were read */
	int nomem;
};

static void add_file(struct hwt_test_sources *ts, const char *dir, const char *name)
{
	char *path, **files;

	if (!name)
		return;
	if (name[0] == '/' || !dir)
		path = strdup(name);
	else if ((path = malloc(strlen(dir) + strlen(name) + 2)))
		sprintf(path, "%s/%s", dir, name);
	if (!path) {
		ts->nomem = 1;
		return;
	}
	for (size_t i = 0; i < ts->nfiles; i++)
		if (!strcmp(ts->files[i], path)) {
			free(path);
			return;
		}
	files = hwt_grow_array(ts->files, &ts->cfiles, ts->nfiles + 1, sizeof(*ts->files));
	if (!files) {
		free(path);
		ts->nomem = 1;
		return;
	}
	ts->files = files;
	ts->files[ts->nfiles++] = path;
}

static int visit(void *arg, Dwarf_Die die, Dwarf_Half tag, int level)
{
	struct hwt_test_sources *ts = ((void **)arg)[0];
	Dwarf_Debug dbg = ((void **)arg)[1];
	struct hwt_dwarf_function fn;
	struct source_function *functions;

	if (level == 0) {
		char *name = hwt_dwarf_attr_strdup(dbg, die, DW_AT_name);
		char *dir = hwt_dwarf_attr_strdup(dbg, die, DW_AT_comp_dir);

		add_file(ts, dir, name);
		free(name);
		free(dir);
		return 1;
	}
	/* Functions with code (a declaration has none). */
	if (tag != DW_TAG_subprogram || !(hwt_dwarf_has_attr(dbg, die, DW_AT_low_pc) ||
					  hwt_dwarf_has_attr(dbg, die, DW_AT_ranges)))
		return 0;
	hwt_dwarf_function_read(dbg, die, &fn);
	if (!fn.name)
		return 0;
	functions = hwt_grow_array(ts->functions, &ts->cfunctions, ts->nfunctions + 1,
				   sizeof(*ts->functions));
	if (!functions) {
		free(fn.name);
		ts->nomem = 1;
		return -1;
	}
	ts->functions = functions;
	ts->functions[ts->nfunctions].name = fn.name;
	ts->functions[ts->nfunctions++].returns_value = fn.has_type;
	return 0;
}

int hwt_test_sources_load(const char *path, struct hwt_test_sources **out)
{
	struct hwt_test_sources *ts;
	struct hwt_dwarf *dwarf;
	struct hwt_dwarf_cu cu;
	void *arg[2];
	int rc;

	*out = NULL;
	rc = hwt_dwarf_open(path, &dwarf);
	if (rc < 0)
		return rc == -hde_nomem ? -1 : 0;
	ts = calloc(1, sizeof(*ts));
	if (!ts) {
		hwt_dwarf_close(dwarf);
		return -1;
	}
	arg[0] = ts;
	arg[1] = hwt_dwarf_debug(dwarf);
	while (!ts->nomem && hwt_dwarf_next_cu(dwarf, &cu) == 1)
		hwt_dwarf_walk(hwt_dwarf_debug(dwarf), cu.die, 1, visit, arg);
	hwt_dwarf_close(dwarf);
	if (ts->nomem) {
		hwt_test_sources_free(ts);
		return -1;
	}
	*out = ts;
	return 0;
}

void hwt_test_sources_free(struct hwt_test_sources *ts)
{
	if (!ts)
		return;
	for (size_t i = 0; i < ts->nfunctions; i++)
		free(ts->functions[i].name);
	for (size_t i = 0; i < ts->nfiles; i++)
		free(ts->files[i]);
	for (size_t i = 0; i < ts->nregs; i++) {
		free(ts->regs[i].function);
		free(ts->regs[i].name);
	}
	free(ts->functions);
	free(ts->files);
	free(ts->regs);
	free(ts);
}

int hwt_test_sources_returns_value(const struct hwt_test_sources *ts, const char *function)
{
	for (size_t i = 0; ts && i < ts->nfunctions; i++)
		if (!strcmp(ts->functions[i].name, function))
			return ts->functions[i].returns_value;
	return -1;
}

/* ----- Registrations in the sources --------------------------------------- */

static const char *blanks(const char *p)
{
	for (;;) {
		while (isspace((unsigned char)*p))
			p++;
		if (p[0] == '/' && p[1] == '*') {
			const char *end = strstr(p + 2, "*/");

			if (!end)
				return p + strlen(p);
			p = end + 2;
		} else if (p[0] == '/' && p[1] == '/') {
			while (*p && *p != '\n')
				p++;
		} else {
			return p;
		}
	}
}

/* A C identifier at *p (after blanks): malloc'd, *p past it; NULL: none. */
static char *identifier(const char **p)
{
	const char *q = blanks(*p), *begin = q;

	if (!isalpha((unsigned char)*q) && *q != '_')
		return NULL;
	while (isalnum((unsigned char)*q) || *q == '_')
		q++;
	*p = q;
	return strndup(begin, (size_t)(q - begin));
}

/* Past the string literal at p (its opening quote): NULL when it does not end. */
static const char *past_literal(const char *p)
{
	for (p++; *p && *p != '"' && *p != '\n'; p++)
		if (*p == '\\' && p[1])
			p++;
	return *p == '"' ? p + 1 : NULL;
}

/* A string literal at *p (after blanks; adjacent ones joined, simple
   escapes undone): malloc'd, *p past it; NULL: none. */
static char *string_literal(const char **p)
{
	const char *q = blanks(*p), *end = q;
	char *s;
	size_t n = 0;

	if (*q != '"')
		return NULL;
	/* Its extent first: the copy is no longer than it. */
	while (*end == '"') {
		end = past_literal(end);
		if (!end)
			return NULL;
		end = blanks(end);
	}
	s = malloc((size_t)(end - q) + 1);
	if (!s)
		return NULL;
	while (*q == '"') {
		for (q++; *q != '"'; q++) {
			if (*q == '\\' && q[1]) {
				q++;
				s[n++] = *q == 'n' ? '\n' : *q == 't' ? '\t' : *q;
			} else {
				s[n++] = *q;
			}
		}
		q = blanks(q + 1);
	}
	s[n] = 0;
	*p = q;
	return s;
}

/* Past the first argument of a call (the next ',' outside brackets); NULL: none. */
static const char *past_argument(const char *p)
{
	int depth = 0;

	for (; *p; p++) {
		if (*p == '(' || *p == '[' || *p == '{')
			depth++;
		else if (*p == ')' || *p == ']' || *p == '}') {
			if (--depth < 0)
				return NULL;
		} else if (*p == ',' && !depth) {
			return p + 1;
		}
	}
	return NULL;
}

static int expect(const char **p, char c)
{
	const char *q = blanks(*p);

	if (*q != c)
		return 0;
	*p = q + 1;
	return 1;
}

static void add_registration(struct hwt_test_sources *ts, int framework, char *function,
			     char *name)
{
	struct registration *regs = function && name ?
		hwt_grow_array(ts->regs, &ts->cregs, ts->nregs + 1, sizeof(*ts->regs)) : NULL;

	if (!regs) {
		free(function);
		free(name);
		ts->nomem = 1;
		return;
	}
	ts->regs = regs;
	ts->regs[ts->nregs].framework = framework;
	ts->regs[ts->nregs].function = function;
	ts->regs[ts->nregs++].name = name;
}

/* CU_add_test(suite, "name", f) at p: 1 when added. */
static int cu_add_test(struct hwt_test_sources *ts, const char *p)
{
	char *name = NULL, *function = NULL;
	const char *q = p + 11;

	if (expect(&q, '(') && (q = past_argument(q)) && (name = string_literal(&q)) &&
	    expect(&q, ',') && (function = identifier(&q)) && expect(&q, ')')) {
		add_registration(ts, HWT_TEST_SOURCES_CUNIT, function, name);
		return 1;
	}
	free(name);
	free(function);
	return 0;
}

/* CU_ADD_TEST(suite, f) or CU_TEST_INFO(f) at p ("f"): 1 when added. */
static int cu_add_macro(struct hwt_test_sources *ts, const char *p, int with_suite)
{
	const char *q = p + (with_suite ? 11 : 12);
	char *function = NULL;

	if (expect(&q, '(') && (!with_suite || (q = past_argument(q))) &&
	    (function = identifier(&q)) && expect(&q, ')')) {
		add_registration(ts, HWT_TEST_SOURCES_CUNIT, function, strdup(function));
		return 1;
	}
	free(function);
	return 0;
}

/* { "name", f } (a CU_TestInfo) or { "name", f, ... } (a struct CMUnitTest) at p. */
static int initializer(struct hwt_test_sources *ts, const char *p)
{
	const char *q = p + 1;
	char *name = NULL, *function = NULL;

	if ((name = string_literal(&q)) && expect(&q, ',') && (function = identifier(&q))) {
		q = blanks(q);
		if (*q == '}' || *q == ',') {
			add_registration(ts, *q == '}' ? HWT_TEST_SOURCES_CUNIT
						      : HWT_TEST_SOURCES_CMOCKA, function, name);
			return 1;
		}
	}
	free(name);
	free(function);
	return 0;
}

/*
 * The registrations in text:
 *  CUnit: CU_add_test(suite, "name", f), CU_ADD_TEST(suite, f) ("f"),
 *         CU_TEST_INFO(f) ("f"), a CU_TestInfo { "name", f };
 *  cmocka: a struct CMUnitTest written out, { "name", f, ... }.
 */
static void scan_text(struct hwt_test_sources *ts, const char *text)
{
	for (const char *p = text; *p && !ts->nomem; p++) {
		int word = !(p > text && (isalnum((unsigned char)p[-1]) || p[-1] == '_'));

		if (word && !strncmp(p, "CU_add_test", 11))
			cu_add_test(ts, p);
		else if (word && !strncmp(p, "CU_ADD_TEST", 11))
			cu_add_macro(ts, p, 1);
		else if (word && !strncmp(p, "CU_TEST_INFO", 12) && !isalnum((unsigned char)p[12]) &&
			 p[12] != '_')
			cu_add_macro(ts, p, 0);
		else if (*p == '{')
			initializer(ts, p);
	}
}

/* Sources larger than this are not test sources: passed over. */
#define SOURCE_MAX (16u << 20)

static void scan(struct hwt_test_sources *ts)
{
	ts->scanned = 1;
	for (size_t i = 0; i < ts->nfiles && !ts->nomem; i++) {
		FILE *f = fopen(ts->files[i], "r");
		struct stat st;
		char *text;
		size_t size;

		if (!f)
			continue;
		/* A regular file only (a directory opens too). */
		if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
		    (uint64_t)st.st_size <= SOURCE_MAX) {
			size = (size_t)st.st_size;
			text = malloc(size + 1);
			if (!text)
				ts->nomem = 1;
			else if (fread(text, 1, size, f) == size) {
				text[size] = 0;
				scan_text(ts, text);
			}
			free(text);
		}
		fclose(f);
	}
}

int hwt_test_sources_registered(struct hwt_test_sources *ts, int framework, const char *function,
				const char **name)
{
	*name = NULL;
	if (!ts)
		return 0;
	if (!ts->scanned)
		scan(ts);
	if (ts->nomem)
		return -1;
	for (size_t i = 0; i < ts->nregs; i++)
		if (ts->regs[i].framework == framework && !strcmp(ts->regs[i].function, function)) {
			*name = ts->regs[i].name;
			return 1;
		}
	return 0;
}
