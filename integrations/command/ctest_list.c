/*
 * The tests CTest would run: `COMMAND --show-only=json-v1` (the recorded
 * ctest command line, so that --test-dir, -R, -L and -C select as they
 * did; run without a shell) read for each test's name and command. Only the part of JSON that
 * CTest writes is read: objects, arrays, strings (\uXXXX to UTF-8),
 * numbers, true, false, null.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "hwt_command.h"

struct reader {
	const char *p, *end;
	int bad;
};

static void skip_space(struct reader *r)
{
	while (r->p < r->end && strchr(" \t\r\n", *r->p))
		r->p++;
}

static void put_utf8(char **o, unsigned c)
{
	if (c < 0x80) {
		*(*o)++ = (char)c;
	} else if (c < 0x800) {
		*(*o)++ = (char)(0xc0 | c >> 6);
		*(*o)++ = (char)(0x80 | (c & 0x3f));
	} else {
		*(*o)++ = (char)(0xe0 | c >> 12);
		*(*o)++ = (char)(0x80 | ((c >> 6) & 0x3f));
		*(*o)++ = (char)(0x80 | (c & 0x3f));
	}
}

/* A string at r->p ('"'): malloc'd, or NULL (r->bad set when malformed). */
static char *read_string(struct reader *r)
{
	char *s, *o;

	if (r->p >= r->end || *r->p != '"') {
		r->bad = 1;
		return NULL;
	}
	r->p++;
	/* Never longer than the text it comes from. */
	s = o = malloc((size_t)(r->end - r->p) + 1);
	if (!s) {
		r->bad = 1;
		return NULL;
	}
	while (r->p < r->end && *r->p != '"') {
		char c = *r->p++;
		unsigned u;

		if (c != '\\') {
			*o++ = c;
			continue;
		}
		if (r->p >= r->end)
			break;
		c = *r->p++;
		switch (c) {
		case 'n': *o++ = '\n'; break;
		case 't': *o++ = '\t'; break;
		case 'r': *o++ = '\r'; break;
		case 'b': *o++ = '\b'; break;
		case 'f': *o++ = '\f'; break;
		case 'u':
			if (r->end - r->p < 4 || sscanf(r->p, "%4x", &u) != 1) {
				r->bad = 1;
				free(s);
				return NULL;
			}
			r->p += 4;
			put_utf8(&o, u);
			break;
		default: *o++ = c; break; /* \" \\ \/ */
		}
	}
	if (r->p >= r->end) {
		r->bad = 1;
		free(s);
		return NULL;
	}
	r->p++;
	*o = 0;
	return s;
}

static void skip_value(struct reader *r);

/* Calls item for each member of the object (key) or array (key NULL) at r->p. */
static void read_compound(struct reader *r, void (*item)(struct reader *, const char *, void *),
			  void *context)
{
	char open = *r->p, close = open == '{' ? '}' : ']';

	r->p++;
	skip_space(r);
	if (r->p < r->end && *r->p == close) {
		r->p++;
		return;
	}
	while (!r->bad) {
		char *key = NULL;

		skip_space(r);
		if (open == '{') {
			key = read_string(r);
			skip_space(r);
			if (r->bad || r->p >= r->end || *r->p != ':') {
				free(key);
				r->bad = 1;
				return;
			}
			r->p++;
			skip_space(r);
		}
		if (item)
			item(r, key, context);
		else
			skip_value(r);
		free(key);
		skip_space(r);
		if (r->p < r->end && *r->p == ',') {
			r->p++;
			continue;
		}
		if (r->p < r->end && *r->p == close) {
			r->p++;
			return;
		}
		r->bad = 1;
	}
}

static void skip_value(struct reader *r)
{
	skip_space(r);
	if (r->p >= r->end) {
		r->bad = 1;
	} else if (*r->p == '{' || *r->p == '[') {
		read_compound(r, NULL, NULL);
	} else if (*r->p == '"') {
		free(read_string(r));
	} else {
		const char *start = r->p;

		while (r->p < r->end && strchr("+-.0123456789eEtruefalsn", *r->p))
			r->p++;
		if (r->p == start)
			r->bad = 1;
	}
}

/* ----- the tests ----- */

struct list_build {
	struct hwt_ctest_list *list;
	struct hwt_ctest_test *test; /* being read */
};

static void command_item(struct reader *r, const char *key, void *context)
{
	struct hwt_ctest_test *t = context;
	char **argv;

	(void)key;
	if (r->p >= r->end || *r->p != '"') {
		skip_value(r);
		return;
	}
	argv = realloc(t->argv, (t->argc + 2) * sizeof(*argv));
	if (!argv) {
		r->bad = 1;
		return;
	}
	t->argv = argv;
	argv[t->argc] = read_string(r);
	if (argv[t->argc])
		t->argc++;
	argv[t->argc] = NULL;
}

static void test_member(struct reader *r, const char *key, void *context)
{
	struct hwt_ctest_test *t = context;

	if (key && !strcmp(key, "name") && r->p < r->end && *r->p == '"') {
		free(t->name);
		t->name = read_string(r);
	} else if (key && !strcmp(key, "command") && r->p < r->end && *r->p == '[') {
		read_compound(r, command_item, t);
	} else {
		skip_value(r);
	}
}

static void test_item(struct reader *r, const char *key, void *context)
{
	struct hwt_ctest_list *list = context;
	struct hwt_ctest_test *tests, *t;

	(void)key;
	if (r->p >= r->end || *r->p != '{') {
		skip_value(r);
		return;
	}
	tests = realloc(list->tests, (list->count + 1) * sizeof(*tests));
	if (!tests) {
		r->bad = 1;
		return;
	}
	list->tests = tests;
	t = &tests[list->count++];
	memset(t, 0, sizeof(*t));
	read_compound(r, test_member, t);
}

static void top_member(struct reader *r, const char *key, void *context)
{
	if (key && !strcmp(key, "tests") && r->p < r->end && *r->p == '[')
		read_compound(r, test_item, context);
	else
		skip_value(r);
}

int hwt_ctest_list_parse(struct hwt_ctest_list *list, const char *json, size_t size)
{
	struct reader r = { json, json + size, 0 };

	memset(list, 0, sizeof(*list));
	skip_space(&r);
	if (r.p >= r.end || *r.p != '{')
		return -1;
	read_compound(&r, top_member, list);
	if (r.bad) {
		hwt_ctest_list_fini(list);
		return -1;
	}
	return 0;
}

void hwt_ctest_list_fini(struct hwt_ctest_list *list)
{
	for (size_t i = 0; i < list->count; i++) {
		free(list->tests[i].name);
		for (size_t k = 0; k < list->tests[i].argc; k++)
			free(list->tests[i].argv[k]);
		free(list->tests[i].argv);
	}
	free(list->tests);
	memset(list, 0, sizeof(*list));
}

/*
 * The words of a command line as hwt_bundle_quote_argv writes it (plain
 * words, '...' with '\'' for a quote, $'...' with \n \t \\ \' \xHH),
 * malloc'd and NULL-terminated; NULL for anything else: a bundle is data,
 * and its command is never handed to a shell.
 */
static char **unquote(const char *line)
{
	size_t n = 0, len = strlen(line);
	char **argv = calloc(len / 2 + 2, sizeof(*argv));
	const char *p = line;

	while (argv && *p) {
		char *word = malloc(len + 1), *o = word;

		if (!word)
			goto bad;
		argv[n++] = word;
		while (*p && *p != ' ') {
			if (*p == '\'') {
				for (p++; *p && *p != '\''; p++)
					*o++ = *p;
				if (!*p++)
					goto bad;
			} else if (p[0] == '$' && p[1] == '\'') {
				for (p += 2; *p && *p != '\''; p++) {
					unsigned x;

					if (*p != '\\') {
						*o++ = *p;
						continue;
					}
					p++;
					if (*p == 'n')
						*o++ = '\n';
					else if (*p == 't')
						*o++ = '\t';
					else if (*p == '\\' || *p == '\'')
						*o++ = *p;
					else if (*p == 'x' && sscanf(p + 1, "%2x", &x) == 1 && x)
						*o++ = (char)x, p += 2;
					else
						goto bad;
				}
				if (!*p++)
					goto bad;
			} else if (strchr("@%+=:,./_-", *p) || (*p >= 'a' && *p <= 'z') ||
				   (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')) {
				*o++ = *p++;
			} else {
				goto bad; /* what a shell would read as more than a word */
			}
		}
		*o = 0;
		while (*p == ' ')
			p++;
	}
	return argv;
bad:
	for (size_t i = 0; i < n; i++)
		free(argv[i]);
	free(argv);
	return NULL;
}

int hwt_ctest_list_run(struct hwt_ctest_list *list, const char *command, const char *prefix)
{
	char *text = NULL, **argv = unquote(command), **with = NULL;
	FILE *out = tmpfile();
	size_t size = 0, n = 0;
	long end;
	int err, status, rc = -1;

	memset(list, 0, sizeof(*list));
	while (argv && argv[n])
		n++;
	with = argv && n ? calloc(n + 2, sizeof(*with)) : NULL;
	if (!out || !with) {
		fprintf(stderr, "%s: %s: the tests are named by their command lines\n", prefix,
			!argv || (argv && !n) ? "not a command line that can be run again"
					      : "out of memory");
		goto out;
	}
	memcpy(with, argv, n * sizeof(*with));
	with[n] = "--show-only=json-v1";
	err = hwt_command_run_output(with, out, &status);
	if (err || !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "%s: '%s --show-only=json-v1' failed: the tests are named by their "
			"command lines\n", prefix, command);
		goto out;
	}
	end = ftell(out);
	if (end > 0 && (text = malloc((size_t)end)) && fseek(out, 0, SEEK_SET) == 0)
		size = fread(text, 1, (size_t)end, out);
	if (!size || hwt_ctest_list_parse(list, text, size) < 0) {
		fprintf(stderr, "%s: '%s --show-only=json-v1' wrote no test list that can be read: "
			"the tests are named by their command lines\n", prefix, command);
		goto out;
	}
	rc = 0;
out:
	if (out)
		fclose(out);
	for (size_t i = 0; argv && i < n; i++)
		free(argv[i]);
	free(argv);
	free(with);
	free(text);
	return rc;
}
