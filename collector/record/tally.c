/* Counted report lines (tally.h). */
#include <stdlib.h>
#include <string.h>

#include "tally.h"

void hwt_tally_add(struct hwt_tally *t, const char *what, const char *why)
{
	size_t k;

	for (k = 0; k < t->nlines; k++)
		if (!strcmp(t->lines[k].what, what) && !strcmp(t->lines[k].why, why)) {
			t->lines[k].count++;
			return;
		}
	if (t->nlines < HWT_TALLY_LINES) {
		char *a = strdup(what), *b = strdup(why);

		if (a && b) {
			t->lines[t->nlines].what = a;
			t->lines[t->nlines].why = b;
			t->lines[t->nlines++].count = 1;
			return;
		}
		free(a);
		free(b);
	}
	t->other++;
}

size_t hwt_tally_print(struct hwt_tally *t, FILE *out, const char *prefix, const char *label,
		       const char *more)
{
	size_t k, n = t->nlines;

	for (k = 0; k < t->nlines; k++) {
		fprintf(out, "%s: %s: %s (%s)", prefix, label, t->lines[k].what, t->lines[k].why);
		if (t->lines[k].count > 1)
			fprintf(out, ", %zu times", t->lines[k].count);
		fputc('\n', out);
		free(t->lines[k].what);
		free(t->lines[k].why);
	}
	if (t->other)
		fprintf(out, "%s: %s: %zu more processes%s\n", prefix, label, t->other, more);
	t->nlines = t->other = 0;
	return n;
}
