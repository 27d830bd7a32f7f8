/*
 * The selection rule's shared code (common/hwt_select_rule.c): glob cases,
 * glob lists, system directories and the decision order, table-driven;
 * then the matcher against glibc's fnmatch(3) with flags 0 (the rule's
 * definition) on generated patterns over a small alphabet.
 *   select_rule_unit [ROUNDS]
 */
#include <fnmatch.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hwt_select_rule.h"

static int failures;

#define CHECK(cond, ...)                                                        \
	do {                                                                    \
		if (!(cond)) {                                                  \
			fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);    \
			fprintf(stderr, __VA_ARGS__);                           \
			fputc('\n', stderr);                                    \
			failures++;                                             \
		}                                                               \
	} while (0)

struct glob_case {
	const char *pat;
	const char *str;
	int match;
};

static const struct glob_case glob_cases[] = {
	/* '*' crosses '/' and matches leading dots; the empty pattern matches "" only. */
	{ "*", "", 1 },
	{ "*", "/usr/bin/ls", 1 },
	{ "*", ".hidden", 1 },
	{ "**", "a/b", 1 },
	{ "/opt/*", "/opt/t/prog", 1 },
	{ "/opt/*/prog", "/opt/a/b/prog", 1 },
	{ "*/prog", "/opt/t/prog", 1 },
	{ "*prog", "/opt/t/prog", 1 },
	{ "*.so*", "/lib/x86_64-linux-gnu/libc.so.6", 1 },
	{ "a*b*c", "aXbYc", 1 },
	{ "a*b*c", "aXbYcZ", 0 },
	{ "a*bc", "abcbc", 1 },
	{ "*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", 0 },
	{ "", "", 1 },
	{ "", "a", 0 },
	{ "a", "", 0 },
	/* '?' is one byte, '/' included. */
	{ "?", "a", 1 },
	{ "?", "/", 1 },
	{ "?", "", 0 },
	{ "?", "ab", 0 },
	{ "/opt/t/t?st", "/opt/t/test", 1 },
	/* Brackets. */
	{ "[a-z]", "m", 1 },
	{ "[a-z]", "M", 0 },
	{ "[a-z]", "-", 0 },
	{ "[!x]", "y", 1 },
	{ "[!x]", "x", 0 },
	{ "[^x]", "y", 1 },
	{ "[!a-c]", "/", 1 },
	{ "[/]", "/", 1 },
	{ "[]]", "]", 1 },
	{ "[!]]", "a", 1 },
	{ "[!]]", "]", 0 },
	{ "[]-a]", "^", 1 },
	{ "[]-a]", "b", 0 },
	{ "[a-]", "-", 1 },
	{ "[-a]", "-", 1 },
	{ "[a-c-e]", "-", 1 },
	{ "[a-c-e]", "d", 0 },
	{ "[z-a]", "m", 0 },
	{ "[[:alpha:]]", "a", 1 },
	{ "[[:alpha:]]", "1", 0 },
	{ "[[:digit:][:upper:]]", "Q", 1 },
	{ "[![:space:]]", " ", 0 },
	{ "[[.a.]]", "a", 1 },
	{ "[[=a=]]", "a", 1 },
	{ "[[.a.]-c]", "b", 1 },
	{ "[[]", "[", 1 },
	{ "[.]", ".", 1 },
	/* An unterminated '[' is itself. */
	{ "[", "[", 1 },
	{ "[a", "[a", 1 },
	{ "[!", "[!", 1 },
	{ "[!]", "[!]", 1 },
	{ "[]", "[]", 1 },
	{ "[]a", "]a", 0 },
	{ "[[:alpha:]", "a", 0 },
	/* Errors match nothing. */
	{ "[[:foo:]]", "a", 0 },
	{ "[[.ab.]]", "a", 0 },
	{ "\\", "\\", 0 },
	{ "a\\", "a\\", 0 },
	{ "a\\", "a", 0 },
	{ "[\\", "[\\", 0 },
	{ "*\\", "x\\", 0 },
	/* Escapes. */
	{ "\\*", "*", 1 },
	{ "\\*", "a", 0 },
	{ "\\?", "?", 1 },
	{ "\\[a]", "[a]", 1 },
	{ "\\a", "a", 1 },
	{ "[\\]]", "]", 1 },
	{ "[\\!a]", "!", 1 },
	{ "[a-\\]]", "]", 0 },
	/* A trailing '/' needs one in the string: it never names a directory's contents. */
	{ "/opt/t/", "/opt/t/prog", 0 },
	{ "/opt/t/", "/opt/t/", 1 },
	{ "*/", "a/", 1 },
	{ "/opt/t/*", "/opt/t/prog", 1 },
	/* Bytes compare unsigned. */
	{ "[\x80-\xff]", "\xe9", 1 },
	{ "\xe9*", "\xe9t\xe9", 1 },
};

struct list_case {
	const char *globs;
	const char *path;
	int match;
};

static const struct list_case list_cases[] = {
	{ "", "/opt/t/prog", 0 },
	{ "\n\n", "/opt/t/prog", 0 },
	{ "prog", "/opt/t/prog", 1 },		/* no '/': base name */
	{ "pro?", "/opt/t/prog", 1 },
	{ "t/prog", "/opt/t/prog", 0 },		/* a '/': the whole path */
	{ "*/t/prog", "/opt/t/prog", 1 },
	{ "other\nprog", "/opt/t/prog", 1 },
	{ "other\n\nprog\n", "/opt/t/prog", 1 },
	{ "other\nnone", "/opt/t/prog", 0 },
	{ "busybox", "/bin/busybox", 1 },
	{ "/bin/*", "/bin/busybox", 1 },
	{ "*", "/x", 1 },
	{ "sh*", "/bin/sh", 1 },
	{ "[!s]*", "/bin/sh", 1 },		/* the whole path starts with '/' */
	{ "prog", "prog", 1 },
	{ "", "", 0 },
};

struct dir_case {
	const char *path;
	int system;
};

static const struct dir_case dir_cases[] = {
	{ "/usr/bin/ls", 1 },
	{ "/usr", 1 },
	{ "/bin/sh", 1 },
	{ "/sbin/init", 1 },
	{ "/lib/x86_64-linux-gnu/libc.so.6", 1 },
	{ "/lib32/x", 1 },
	{ "/lib64/ld-linux-x86-64.so.2", 1 },
	{ "/libx32/x", 1 },
	{ "/etc/x", 1 },
	{ "/usrlocal/bin/x", 0 },
	{ "/library/x", 0 },
	{ "/opt/t/prog", 0 },
	{ "/tmp/prog", 0 },
	{ "/home/u/usr/bin/x", 0 },
	{ "usr/bin/x", 0 },
	{ "", 0 },
	{ "/", 0 },
};

struct decide_case {
	struct hwt_rule_facts f;
	enum hwt_rule_verdict v;
	const char *why;
};

/* Facts: no_trace, set_id, elf, trace, system_dir, debug_info, outside_project. */
static const struct decide_case decide_cases[] = {
	{ { 0, 0, 1, 0, 0, 1, 0 }, HWT_RULE_TRACE, NULL },
	{ { 0, 0, 1, 0, 0, 0, 0 }, HWT_RULE_NATIVE, HWT_RULE_WHY_NO_DEBUG },
	{ { 0, 0, 1, 0, 0, -1, 0 }, HWT_RULE_NEED_DEBUG_INFO, NULL },
	{ { 0, 0, 1, 0, 1, -1, 0 }, HWT_RULE_NATIVE, HWT_RULE_WHY_SYSTEM },
	{ { 0, 0, 1, 0, 1, 1, 0 }, HWT_RULE_NATIVE, HWT_RULE_WHY_SYSTEM },
	{ { 0, 0, 1, 1, 1, -1, 0 }, HWT_RULE_TRACE, NULL },	/* --trace beats system dir */
	{ { 0, 0, 1, 1, 0, 0, 0 }, HWT_RULE_TRACE, NULL },	/* and missing debug info */
	{ { 0, 0, 0, 1, 0, 1, 0 }, HWT_RULE_NATIVE, HWT_RULE_WHY_NOT_ELF },	/* not beats not-ELF */
	{ { 0, 1, 1, 1, 0, 1, 0 }, HWT_RULE_NATIVE, HWT_RULE_WHY_SET_ID },	/* nor set-ID */
	{ { 0, 1, 0, 0, 0, -1, 0 }, HWT_RULE_NATIVE, HWT_RULE_WHY_SET_ID },
	{ { 1, 0, 1, 1, 0, 1, 0 }, HWT_RULE_NATIVE, HWT_RULE_WHY_NO_TRACE },	/* --no-trace first */
	{ { 1, 1, 0, 1, 1, 0, 0 }, HWT_RULE_NATIVE, HWT_RULE_WHY_NO_TRACE },
	/* Selection by project: after the debug info, before tracing. */
	{ { 0, 0, 1, 0, 0, 1, -1 }, HWT_RULE_NEED_PROJECT, NULL },
	{ { 0, 0, 1, 0, 0, 1, HWT_RULE_OUTSIDE }, HWT_RULE_NATIVE, HWT_RULE_WHY_OUTSIDE },
	{ { 0, 0, 1, 0, 0, 1, HWT_RULE_UNREADABLE }, HWT_RULE_NATIVE, HWT_RULE_WHY_UNREADABLE },
	{ { 0, 0, 1, 0, 0, 0, -1 }, HWT_RULE_NATIVE, HWT_RULE_WHY_NO_DEBUG },
	{ { 0, 0, 1, 0, 1, 1, -1 }, HWT_RULE_NATIVE, HWT_RULE_WHY_SYSTEM },
	{ { 0, 0, 1, 1, 0, 1, HWT_RULE_OUTSIDE }, HWT_RULE_TRACE, NULL },	/* --trace beats it */
	{ { 0, 1, 1, 1, 0, 1, 0 }, HWT_RULE_NATIVE, HWT_RULE_WHY_SET_ID },
};

static int fnmatch_says(const char *pat, const char *str)
{
	return fnmatch(pat, str, 0) == 0;
}

/* Random patterns over the characters that matter, against fnmatch(3). */
static void fuzz(unsigned long rounds)
{
	static const char pchars[] = "ab/*?[]!^-\\";
	static const char *const pieces[] = { "[:alpha:]", "[:digit:]", "[!a]", "[a-b]",
					      "[]a]", "[!", "[^", "]" };
	static const char schars[] = "ab/.[]!-\\:1";
	unsigned long seed = 12345, i;
	char pat[32], str[16];
	unsigned long compared = 0;
	int mismatches = 0;

	for (i = 0; i < rounds; i++) {
		size_t pl = 0, sl, k, n;

		n = (seed = seed * 6364136223846793005ul + 1442695040888963407ul) >> 60;
		for (k = 0; k < n && pl < sizeof(pat) - 12; k++) {
			seed = seed * 6364136223846793005ul + 1442695040888963407ul;
			if ((seed >> 33) % 8 == 0) {
				const char *piece = pieces[(seed >> 40) % 8];

				/* glibc's own reading of "[[:" and "-[:" is not the rule's. */
				if (piece[1] == ':' && pl && (pat[pl - 1] == '[' || pat[pl - 1] == '-'))
					continue;
				memcpy(pat + pl, piece, strlen(piece));
				pl += strlen(piece);
			} else {
				pat[pl++] = pchars[(seed >> 40) % (sizeof(pchars) - 1)];
			}
		}
		pat[pl] = '\0';
		seed = seed * 6364136223846793005ul + 1442695040888963407ul;
		sl = (seed >> 60) % 8;
		for (k = 0; k < sl; k++) {
			seed = seed * 6364136223846793005ul + 1442695040888963407ul;
			str[k] = schars[(seed >> 40) % (sizeof(schars) - 1)];
		}
		str[sl] = '\0';
		/* glibc fails an unterminated bracket that ends in a range's '-'. */
		if (pl && pat[pl - 1] == '-' && memchr(pat, '[', pl))
			continue;
		compared++;
		if (hwt_rule_glob(pat, pl, str, sl) != fnmatch_says(pat, str) && ++mismatches <= 20)
			CHECK(0, "fuzz: pattern \"%s\" string \"%s\": rule %d, fnmatch %d", pat, str,
			      hwt_rule_glob(pat, pl, str, sl), fnmatch_says(pat, str));
	}
	printf("fuzz: %lu patterns compared with fnmatch, %d differ\n", compared, mismatches);
}

int main(int argc, char **argv)
{
	unsigned long rounds = argc > 1 ? strtoul(argv[1], NULL, 0) : 300000;
	size_t i;

	setlocale(LC_ALL, "C");
	for (i = 0; i < sizeof(glob_cases) / sizeof(glob_cases[0]); i++) {
		const struct glob_case *c = &glob_cases[i];
		int got = hwt_rule_glob(c->pat, strlen(c->pat), c->str, strlen(c->str));

		CHECK(got == c->match, "glob \"%s\" on \"%s\": %d, want %d", c->pat, c->str, got,
		      c->match);
		/* The table is fnmatch's behaviour too. */
		CHECK(fnmatch_says(c->pat, c->str) == c->match, "fnmatch \"%s\" on \"%s\" disagrees",
		      c->pat, c->str);
		/* Counted: bytes past plen and slen are not looked at. */
		if (c->pat[0]) {
			char buf[64];

			snprintf(buf, sizeof(buf), "%sZZ", c->pat);
			CHECK(hwt_rule_glob(buf, strlen(c->pat), c->str, strlen(c->str)) == c->match,
			      "counted glob \"%s\"", c->pat);
		}
	}
	for (i = 0; i < sizeof(list_cases) / sizeof(list_cases[0]); i++) {
		const struct list_case *c = &list_cases[i];
		int got = hwt_rule_globs(c->globs, strlen(c->globs), c->path);

		CHECK(got == c->match, "globs \"%s\" on \"%s\": %d, want %d", c->globs, c->path, got,
		      c->match);
	}
	/* A counted list stops at its length. */
	CHECK(!hwt_rule_globs("nothing\nprog", 7, "/opt/t/prog"), "list length ignored");
	CHECK(hwt_rule_globs("nothing\nprog", 12, "/opt/t/prog"), "list last entry");
	for (i = 0; i < sizeof(dir_cases) / sizeof(dir_cases[0]); i++) {
		const struct dir_case *c = &dir_cases[i];

		CHECK(hwt_rule_system_dir(c->path) == c->system, "system dir \"%s\": want %d",
		      c->path, c->system);
	}
	for (i = 0; i < sizeof(decide_cases) / sizeof(decide_cases[0]); i++) {
		const struct decide_case *c = &decide_cases[i];
		const char *why = "unset";
		enum hwt_rule_verdict v = hwt_rule_decide(&c->f, &why);

		CHECK(v == c->v, "decide case %zu: verdict %d, want %d", i, v, c->v);
		CHECK(why == c->why || (why && c->why && !strcmp(why, c->why)),
		      "decide case %zu: reason \"%s\", want \"%s\"", i, why ? why : "(null)",
		      c->why ? c->why : "(null)");
	}
	fuzz(rounds);
	printf("select_rule_unit: %zu glob, %zu list, %zu dir, %zu decide cases, %lu fuzz rounds, "
	       "%d failures\n",
	       sizeof(glob_cases) / sizeof(glob_cases[0]), sizeof(list_cases) / sizeof(list_cases[0]),
	       sizeof(dir_cases) / sizeof(dir_cases[0]),
	       sizeof(decide_cases) / sizeof(decide_cases[0]), rounds, failures);
	return failures ? 1 : 0;
}
