/*
 * Values written into the text formats the converters write (JSON, XML,
 * Markdown): strings escaped as each needs, numbers in the fewest digits
 * that read back the same. For the converters' user-space libraries; they
 * write to a file the caller opened.
 */
#ifndef HWT_WRITE_TEXT_H
#define HWT_WRITE_TEXT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* s as a JSON string, quotes included (bytes >= 0x80 pass: UTF-8 stays UTF-8). */
static inline void hwt_write_json_string(FILE *file, const char *s)
{
	fputc('"', file);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(file, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", file);
		else if (c == '\t')
			fputs("\\t", file);
		else if (c < 0x20)
			fprintf(file, "\\u%04x", c);
		else
			fputc(c, file);
	}
	fputc('"', file);
}

/*
 * s as XML character data or an attribute value (quotes escaped too).
 * Control characters, which XML 1.0 cannot hold even escaped, become
 * U+FFFD.
 */
static inline void hwt_write_xml_text(FILE *file, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		switch (c) {
		case '&': fputs("&amp;", file); break;
		case '<': fputs("&lt;", file); break;
		case '>': fputs("&gt;", file); break;
		case '"': fputs("&quot;", file); break;
		case '\'': fputs("&apos;", file); break;
		default:
			if (c < 0x20 && c != '\t' && c != '\n' && c != '\r')
				fputs("&#xFFFD;", file);
			else
				fputc(c, file);
		}
	}
}

/* s in Markdown text (a table cell too): its punctuation escaped. */
static inline void hwt_write_markdown_text(FILE *file, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '|' || *s == '*' || *s == '_' || *s == '`' || *s == '[' ||
		    *s == ']' || *s == '<' || *s == '>' || *s == '#')
			fputc('\\', file);
		fputc(*s == '\n' ? ' ' : *s, file);
	}
}

/*
 * v in as few significant digits as strtod reads back to v (JSON, XML),
 * without an exponent in the range people read (40, not 4e+01).
 */
static inline void hwt_write_double(FILE *file, double v)
{
	double a = v < 0 ? -v : v;
	int plain = a == 0 || (a >= 1e-4 && a < 1e15);
	char buf[40];
	int digits;

	for (digits = 1; digits < 17; digits++) {
		snprintf(buf, sizeof(buf), "%.*g", digits, v);
		if (strtod(buf, NULL) == v && !(plain && strchr(buf, 'e')))
			break;
	}
	fprintf(file, "%.*g", digits, v);
}

#endif /* HWT_WRITE_TEXT_H */
