/*
 * A command's --help, printed with every option's description in one
 * column (issue 34). The texts are put together from blocks that several
 * commands share (the trace unit's options, -j, --decoder), each written
 * for its own column; here the option lines are set again: the option at
 * 2 spaces (6 for a long option alone), its description wrapped from one
 * column on, that of the longest option that fits; a longer option has its
 * description on the next line. Other lines (headings, prose, lists of
 * commands) are printed as written.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hwt_command.h"

#define HELP_WIDTH 80
/* An option wider than this has its description on a line of its own. */
#define HELP_MAX_COLUMN 30

/* The leading blanks of line (up to its end). */
static size_t blanks(const char *line, size_t len)
{
	size_t n = 0;

	while (n < len && line[n] == ' ')
		n++;
	return n;
}

/*
 * An option line: a few blanks, '-', the option (no two blanks in a row),
 * then two or more blanks and its description, or the end of the line.
 * Sets the option's start and end, and where the description starts (len
 * when none). Returns 1 when it is one.
 */
static int option_line(const char *line, size_t len, size_t *start, size_t *end, size_t *desc)
{
	size_t i = blanks(line, len);

	if (i == 0 || i > 8 || i >= len || line[i] != '-' || i + 1 >= len || line[i + 1] == ' ')
		return 0;
	*start = i;
	while (i < len && !(line[i] == ' ' && i + 1 < len && line[i + 1] == ' '))
		i++;
	*end = i;
	while (*end > *start && line[*end - 1] == ' ')
		(*end)--;
	*desc = i + blanks(line + i, len - i);
	return 1;
}

/* The next line of text at *pos: its start and length (no newline); 0 at the end. */
static int next_line(const char *text, size_t *pos, const char **line, size_t *len)
{
	const char *nl;

	if (!text[*pos])
		return 0;
	*line = text + *pos;
	nl = strchr(*line, '\n');
	*len = nl ? (size_t)(nl - *line) : strlen(*line);
	*pos += *len + (nl ? 1 : 0);
	return 1;
}

/* A description's continuation: more blanks than an option line has. */
static int continuation(const char *line, size_t len)
{
	size_t i = blanks(line, len);

	return i > 8 && i < len;
}

/* The width of an option as printed: its indent and itself. */
static size_t option_width(const char *line, size_t start, size_t end)
{
	return (line[start + 1] == '-' ? 6 : 2) + (end - start);
}

/* "default: ..." */
static int first_word_is_label(const char *line, size_t len)
{
	size_t i = blanks(line, len);

	while (i < len && line[i] != ' ' && line[i] != ':')
		i++;
	return i < len && line[i] == ':' && (i + 1 == len || line[i + 1] == ' ');
}

/* Words of the description (first line from desc, then its continuations) wrapped at column. */
static void print_description(FILE *out, const char *text, size_t *pos, const char *line,
			      size_t len, size_t desc, size_t column, size_t at)
{
	const char *part = line + desc;
	size_t part_len = len - desc;
	char last = 0;

	for (;;) {
		size_t i = 0;

		while (i < part_len) {
			size_t word;

			while (i < part_len && part[i] == ' ')
				i++;
			if (i >= part_len)
				break;
			word = i;
			while (i < part_len && part[i] != ' ')
				i++;
			/* A new line when the word does not fit (a word never splits). */
			if (at > column && at + 1 + (i - word) > HELP_WIDTH) {
				fprintf(out, "\n%*s", (int)column, "");
				at = column;
			} else if (at > column) {
				fputc(' ', out);
				at++;
			} else if (at < column) {
				fprintf(out, "%*s", (int)(column - at), "");
				at = column;
			}
			fwrite(part + word, 1, i - word, out);
			at += i - word;
			last = part[i - 1];
		}
		/* The description goes on in the lines that follow, if they continue it. */
		{
			size_t peek = *pos;
			const char *next;
			size_t next_len;

			if (!next_line(text, &peek, &next, &next_len) || !continuation(next, next_len))
				break;
			*pos = peek;
			part = next;
			part_len = next_len;
			/*
			 * The author's line break stays where a sentence or a
			 * [default] ended, or a "note:" starts.
			 */
			if (at > column && (last == '.' || last == ']' || first_word_is_label(part, part_len))) {
				fprintf(out, "\n%*s", (int)column, "");
				at = column;
			}
		}
	}
	fputc('\n', out);
}

static void print_aligned(FILE *out, const char *text)
{
	size_t pos = 0, column = 0, len, start, end, desc;
	const char *line;

	/* The column: that of the widest option that fits, two blanks after it. */
	while (next_line(text, &pos, &line, &len))
		if (option_line(line, len, &start, &end, &desc) &&
		    option_width(line, start, end) + 2 <= HELP_MAX_COLUMN &&
		    option_width(line, start, end) + 2 > column)
			column = option_width(line, start, end) + 2;
	if (!column) {
		fputs(text, out);
		return;
	}
	pos = 0;
	while (next_line(text, &pos, &line, &len)) {
		if (!option_line(line, len, &start, &end, &desc)) {
			fwrite(line, 1, len, out);
			fputc('\n', out);
			continue;
		}
		fprintf(out, "%*s%.*s", line[start + 1] == '-' ? 6 : 2, "", (int)(end - start),
			line + start);
		if (desc >= len && !(text[pos] && continuation(text + pos, strcspn(text + pos, "\n")))) {
			fputc('\n', out);
			continue;
		}
		if (option_width(line, start, end) + 2 > column) {
			/* Too wide: the description starts on the next line. */
			fputc('\n', out);
			print_description(out, text, &pos, line, len, desc, column, 0);
		} else {
			print_description(out, text, &pos, line, len, desc, column,
					  option_width(line, start, end));
		}
	}
}

void hwt_command_help(void (*usage)(FILE *), FILE *out)
{
	char *text = NULL;
	size_t size = 0;
	FILE *mem = open_memstream(&text, &size);

	if (!mem) {
		usage(out);
		return;
	}
	usage(mem);
	if (fclose(mem) != 0 || !text) {
		free(text);
		usage(out);
		return;
	}
	print_aligned(out, text);
	free(text);
}
