/*
 * Exclusion markers in source comments, as lcov 1.16 (geninfo) and gcovr
 * 5.2 honour them (docs/hwt-cov.md, "Exclusion markers"):
 *
 *  - lcov's: LCOV_EXCL_LINE, LCOV_EXCL_START .. LCOV_EXCL_STOP leave out
 *    the line (DA), its branches and the functions that start on it;
 *    LCOV_EXCL_BR_LINE, LCOV_EXCL_BR_START .. LCOV_EXCL_BR_STOP only the
 *    branches. A marker counts anywhere in a line. A section is one flag,
 *    not nested: STOP ends it (a line with both ends it), the START line is
 *    in it and the STOP line is not; a START never stopped runs to the end
 *    of the file, with a warning.
 *  - gcovr's: GCOVR_EXCL_LINE, GCOVR_EXCL_START .. GCOVR_EXCL_STOP leave out
 *    the line and its branches, not the function (gcovr keeps it);
 *    GCOVR_EXCL_BR_* the branches. Sections nest (a STOP closes the last
 *    START); a START never stopped excludes nothing, a STOP without START
 *    and a LINE inside a section are ignored, each with a warning.
 */
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "hwt_lcov.h"
#include "lcov_int.h"

/* The marker words after "_EXCL_" (BR_ words are the branch kind). */
enum marker_word { word_line, word_start, word_stop };

/* An open gcovr section. */
struct gcovr_stack {
	uint32_t *start;
	size_t depth, cap;
};

struct scan {
	uint8_t *flags;
	uint32_t lines;
	struct hwt_exclusion_problem *problems;
	size_t max;
	long nproblems;
	int lcov_open[2];           /* lcov's sections: lines, branches */
	uint32_t lcov_started[2];
	struct gcovr_stack gcovr[2];
};

static const char *const lcov_names[2][3] = {
	{ "LCOV_EXCL_LINE", "LCOV_EXCL_START", "LCOV_EXCL_STOP" },
	{ "LCOV_EXCL_BR_LINE", "LCOV_EXCL_BR_START", "LCOV_EXCL_BR_STOP" },
};
static const char *const gcovr_names[2][3] = {
	{ "GCOVR_EXCL_LINE", "GCOVR_EXCL_START", "GCOVR_EXCL_STOP" },
	{ "GCOVR_EXCL_BR_LINE", "GCOVR_EXCL_BR_START", "GCOVR_EXCL_BR_STOP" },
};

/* The flags a marker of each kind (lines, branches) sets, per family. */
static const uint8_t lcov_flags[2] = {
	HWT_EXCLUDE_LINE | HWT_EXCLUDE_BRANCH | HWT_EXCLUDE_FUNCTION, HWT_EXCLUDE_BRANCH
};
static const uint8_t gcovr_flags[2] = { HWT_EXCLUDE_LINE | HWT_EXCLUDE_BRANCH, HWT_EXCLUDE_BRANCH };

static void problem(struct scan *s, uint32_t line, const char *marker, const char *what)
{
	if ((size_t)s->nproblems < s->max) {
		s->problems[s->nproblems].line = line;
		s->problems[s->nproblems].marker = marker;
		s->problems[s->nproblems].what = what;
	}
	s->nproblems++;
}

/* memmem for a NUL-terminated needle. */
static int has(const char *line, size_t len, const char *word)
{
	return memmem(line, len, word, strlen(word)) != NULL;
}

/* lcov: each marker is looked for as a substring of the line, STOP before START. */
static void lcov_line(struct scan *s, uint32_t line, const char *text, size_t len)
{
	int kind;

	for (kind = 0; kind < 2; kind++) {
		const char *const *name = lcov_names[kind];

		if (has(text, len, name[word_stop])) {
			s->lcov_open[kind] = 0;
		} else if (has(text, len, name[word_start])) {
			s->lcov_open[kind] = 1;
			s->lcov_started[kind] = line;
		}
		if (s->lcov_open[kind] || has(text, len, name[word_line]))
			s->flags[line] |= lcov_flags[kind];
	}
}

/* gcovr: the markers of a line in their order; sections on a stack. */
static int gcovr_marker(struct scan *s, uint32_t line, int kind, enum marker_word word)
{
	struct gcovr_stack *st = &s->gcovr[kind];
	const char *const *name = gcovr_names[kind];
	uint32_t k, start, *p;

	switch (word) {
	case word_line:
		if (st->depth)
			problem(s, line, name[word_line], "inside a section: ignored (as gcovr)");
		else
			s->flags[line] |= gcovr_flags[kind];
		return 0;
	case word_start:
		p = hwt_grow_array(st->start, &st->cap, st->depth + 1, sizeof(*p));
		if (!p)
			return -hle_nomem;
		st->start = p;
		st->start[st->depth++] = line;
		return 0;
	case word_stop:
		if (!st->depth) {
			problem(s, line, name[word_stop], "without a START: ignored (as gcovr)");
			return 0;
		}
		start = st->start[--st->depth];
		for (k = start; k < line; k++)
			s->flags[k] |= gcovr_flags[kind];
		return 0;
	}
	return 0;
}

/* Every "GCOVR_EXCL_[BR_](LINE|START|STOP)" of the line, left to right. */
static int gcovr_line(struct scan *s, uint32_t line, const char *text, size_t len)
{
	static const char head[] = "GCOVR_EXCL_";
	static const char *const words[3] = { "LINE", "START", "STOP" };
	const char *p = text, *end = text + len;

	while ((p = memmem(p, (size_t)(end - p), head, sizeof(head) - 1)) != NULL) {
		int kind = 0, w;

		p += sizeof(head) - 1;
		if (end - p >= 3 && !memcmp(p, "BR_", 3)) {
			kind = 1;
			p += 3;
		}
		for (w = 0; w < 3; w++) {
			size_t n = strlen(words[w]);

			if ((size_t)(end - p) >= n && !memcmp(p, words[w], n)) {
				int rc = gcovr_marker(s, line, kind, (enum marker_word)w);

				if (rc < 0)
					return rc;
				p += n;
				break;
			}
		}
	}
	return 0;
}

long hwt_exclusion_scan(const struct hwt_source_text *text, uint8_t *flags,
			struct hwt_exclusion_problem *problems, size_t max)
{
	struct scan s;
	uint32_t line;
	int kind, rc = 0;

	memset(&s, 0, sizeof(s));
	s.flags = flags;
	s.lines = text->lines;
	s.problems = problems;
	s.max = max;
	for (line = 1; line <= text->lines && rc == 0; line++) {
		size_t len;
		const char *p = hwt_source_text_line(text, line, &len);

		/* Both families need "_EXCL_": most lines have no marker at all. */
		if (!memmem(p, len, "_EXCL_", 6)) {
			for (kind = 0; kind < 2; kind++)
				if (s.lcov_open[kind])
					flags[line] |= lcov_flags[kind];
			continue;
		}
		lcov_line(&s, line, p, len);
		rc = gcovr_line(&s, line, p, len);
	}
	for (kind = 0; kind < 2 && rc == 0; kind++) {
		if (s.lcov_open[kind])
			problem(&s, s.lcov_started[kind], lcov_names[kind][word_start],
				"without a STOP: excluded to the end of the file (as lcov)");
		while (s.gcovr[kind].depth)
			problem(&s, s.gcovr[kind].start[--s.gcovr[kind].depth],
				gcovr_names[kind][word_start],
				"without a STOP: ignored (as gcovr)");
	}
	free(s.gcovr[0].start);
	free(s.gcovr[1].start);
	return rc < 0 ? rc : s.nproblems;
}
