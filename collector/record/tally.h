/*
 * The few lines `hwt record` prints about the processes of a recording
 * (untraced ones, ones traced for a library): each distinct (what, why)
 * pair once with its count, at most HWT_TALLY_LINES lines, the rest
 * counted.
 */
#ifndef HWT_RECORD_TALLY_H
#define HWT_RECORD_TALLY_H

#include <stddef.h>
#include <stdio.h>

#define HWT_TALLY_LINES 8

struct hwt_tally {
	struct {
		char *what, *why;
		size_t count;
	} lines[HWT_TALLY_LINES];
	size_t nlines;
	size_t other;  /* beyond the lines, or not copied (out of memory) */
};

/* Counts (what, why); the strings are copied. */
void hwt_tally_add(struct hwt_tally *t, const char *what, const char *why);

/*
 * Prints "PREFIX: LABEL: WHAT (WHY)[, N times]" per line, then
 * "PREFIX: LABEL: N more processesMORE" when some did not fit, and frees
 * the lines. Returns the number of lines printed.
 */
size_t hwt_tally_print(struct hwt_tally *t, FILE *out, const char *prefix, const char *label,
		       const char *more);

#endif /* HWT_RECORD_TALLY_H */
