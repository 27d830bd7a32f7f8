/* tokenize.c [ROUNDS] - a parsing workload of a few ms natively: generates
 * a 50 KB JSON-like document, then tokenises it ROUNDS times (default 20),
 * counting strings, numbers, literals and punctuation. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DOC_SIZE (50 * 1024)

static char doc[DOC_SIZE + 256];

static size_t gen(void)
{
	size_t n = 0;
	unsigned seed = 12345;
	n += (size_t)sprintf(doc + n, "[");
	for (int i = 0; n < DOC_SIZE; i++) {
		seed = seed * 1103515245u + 12345u;
		switch ((seed >> 16) % 4) {
		case 0:
			n += (size_t)sprintf(doc + n,
					     "{\"id\": %d, \"name\": \"item%u\"},",
					     i, seed % 1000);
			break;
		case 1:
			n += (size_t)sprintf(doc + n, "%d.%u,", i,
					     (seed >> 8) % 100);
			break;
		case 2:
			n += (size_t)sprintf(doc + n, "[true, false, null],");
			break;
		default:
			n += (size_t)sprintf(doc + n,
					     "\"esc\\\"aped \\\\ text %u\",",
					     seed % 77);
			break;
		}
	}
	doc[n++] = '0';
	doc[n++] = ']';
	doc[n] = 0;
	return n;
}

struct counts {
	long str, num, lit, punct, bad;
};

static void tokenize(const char *p, struct counts *c)
{
	while (*p) {
		if (isspace((unsigned char)*p)) {
			p++;
		} else if (*p == '"') {
			for (p++; *p && *p != '"'; p++)
				if (*p == '\\' && p[1])
					p++;
			if (*p)
				p++;
			c->str++;
		} else if (*p == '-' || isdigit((unsigned char)*p)) {
			char *end;
			strtod(p, &end);
			p = end > p ? end : p + 1;
			c->num++;
		} else if (!strncmp(p, "true", 4) || !strncmp(p, "null", 4)) {
			p += 4;
			c->lit++;
		} else if (!strncmp(p, "false", 5)) {
			p += 5;
			c->lit++;
		} else if (strchr("[]{}:,", *p)) {
			p++;
			c->punct++;
		} else {
			p++;
			c->bad++;
		}
	}
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 20;
	size_t n = gen();
	struct counts c = { 0 };
	for (int r = 0; r < rounds; r++)
		tokenize(doc, &c);
	printf("%zu bytes: %ld strings %ld numbers %ld literals %ld punct %ld bad\n",
	       n, c.str, c.num, c.lit, c.punct, c.bad);
	return c.bad != 0;
}
