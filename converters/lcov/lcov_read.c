/*
 * Reading an lcov tracefile back into a coverage object (hwt report diff,
 * conversions): the records geninfo(1) describes for lcov 1.x, and lcov
 * 2's FN with an end line. A line that is none of them is an error, not
 * skipped: a report read in part would be wrong without a word.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hwt_lcov.h"

/* A decimal number up to max at *s, which moves past it; -1 when there is none. */
static int number(const char **s, uint64_t max, uint64_t *value)
{
	const char *p = *s;
	uint64_t v = 0;

	if (*p < '0' || *p > '9')
		return -1;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (v > (max - (uint64_t)(*p - '0')) / 10)
			return -1;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	*s = p;
	*value = v;
	return 0;
}

/* A number then c (or the end of the text when c is 0). */
static int field(const char **s, uint64_t max, char c, uint64_t *value)
{
	if (number(s, max, value) < 0 || **s != c)
		return -1;
	if (c)
		(*s)++;
	return 0;
}

/* One record, with source *cur (-1: none yet); 0, -hle_syntax, -hle_nomem. */
static int record(struct hwt_coverage *cov, const char *text, long *cur)
{
	const char *p = strchr(text, ':');
	size_t tag = p ? (size_t)(p - text) : strlen(text);
	uint64_t line, count, block, branch, end;

#define TAG(name) (tag == sizeof(name) - 1 && !strncmp(text, name, tag))
	if (!p)
		return TAG("end_of_record") ? (*cur = -1, 0) : -hle_syntax;
	p++;
	if (TAG("TN") || TAG("VER") || TAG("FNF") || TAG("FNH") || TAG("BRF") || TAG("BRH") ||
	    TAG("LF") || TAG("LH"))
		return 0;
	if (TAG("SF")) {
		if (!*p)
			return -hle_syntax;
		*cur = hwt_coverage_source_add(cov, p);
		return *cur < 0 ? (int)*cur : 0;
	}
	if (*cur < 0)
		return -hle_syntax; /* a record outside SF ... end_of_record */
	if (TAG("DA")) {
		/* DA:line,count[,checksum] */
		if (number(&p, UINT32_MAX, &line) < 0 || *p++ != ',' ||
		    number(&p, UINT64_MAX, &count) < 0 || (*p && *p != ','))
			return -hle_syntax;
		return hwt_coverage_source_add_line(cov, (size_t)*cur, (uint32_t)line, count);
	}
	if (TAG("FN")) {
		/* FN:line,name or (lcov 2) FN:line,end,name; a name starts with no digit. */
		if (field(&p, UINT32_MAX, ',', &line) < 0)
			return -hle_syntax;
		if (*p >= '0' && *p <= '9' && field(&p, UINT32_MAX, ',', &end) < 0)
			return -hle_syntax;
		if (!*p)
			return -hle_syntax;
		return hwt_coverage_source_add_function(cov, (size_t)*cur, p, (uint32_t)line, 0);
	}
	if (TAG("FNDA")) {
		if (field(&p, UINT64_MAX, ',', &count) < 0 || !*p)
			return -hle_syntax;
		return hwt_coverage_source_add_function(cov, (size_t)*cur, p, 0, count);
	}
	if (TAG("BRDA")) {
		/* BRDA:line,block,branch,taken|- (lcov 2: block "e<n>" for an exception's) */
		if (field(&p, UINT32_MAX, ',', &line) < 0)
			return -hle_syntax;
		if (*p == 'e')
			p++;
		if (field(&p, UINT32_MAX, ',', &block) < 0 || field(&p, UINT32_MAX, ',', &branch) < 0)
			return -hle_syntax;
		if (!strcmp(p, "-"))
			return hwt_coverage_source_add_branch(cov, (size_t)*cur, (uint32_t)line,
							      (uint32_t)block, (uint32_t)branch, 0, 0);
		if (field(&p, UINT64_MAX, 0, &count) < 0)
			return -hle_syntax;
		return hwt_coverage_source_add_branch(cov, (size_t)*cur, (uint32_t)line,
						      (uint32_t)block, (uint32_t)branch, 1, count);
	}
#undef TAG
	return -hle_syntax;
}

int hwt_coverage_read_lcov(struct hwt_coverage *cov, FILE *file, size_t *bad_line)
{
	char *text = NULL;
	size_t cap = 0, number_of_line = 0;
	ssize_t n;
	long cur = -1;
	int rc = 0;

	if (bad_line)
		*bad_line = 0;
	if (!cov || !file)
		return -hle_invalid;
	errno = 0;
	while ((n = getline(&text, &cap, file)) >= 0) {
		number_of_line++;
		while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == '\r'))
			text[--n] = '\0';
		if (n == 0)
			continue;
		rc = record(cov, text, &cur);
		if (rc < 0) {
			if (rc == -hle_syntax && bad_line)
				*bad_line = number_of_line;
			break;
		}
	}
	if (rc == 0 && ferror(file))
		rc = errno == ENOMEM ? -hle_nomem : -hle_io;
	free(text);
	return rc;
}
