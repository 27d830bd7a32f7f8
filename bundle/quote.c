/* Shell quoting of a command line, for the header's command key. */
#include "bundle_int.h"

#include <stdlib.h>
#include <string.h>

static int safe_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       strchr("@%+=:,./_-", c) != NULL;
}

static int has_control(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s == 0x7f)
			return 1;
	return 0;
}

/* Appends the quoted word to out (which has room: 4 bytes per input byte + 4). */
static char *quote_word(char *out, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	const char *p;
	int plain = *s != '\0';

	for (p = s; *p && plain; p++)
		plain = safe_char((unsigned char)*p);
	if (plain) {
		size_t n = strlen(s);

		memcpy(out, s, n);
		return out + n;
	}
	if (has_control(s)) {
		*out++ = '$';
		*out++ = '\'';
		for (p = s; *p; p++) {
			unsigned char c = (unsigned char)*p;

			if (c == '\n') {
				*out++ = '\\';
				*out++ = 'n';
			} else if (c == '\t') {
				*out++ = '\\';
				*out++ = 't';
			} else if (c == '\\' || c == '\'') {
				*out++ = '\\';
				*out++ = (char)c;
			} else if (c < 0x20 || c == 0x7f) {
				*out++ = '\\';
				*out++ = 'x';
				*out++ = hex[c >> 4];
				*out++ = hex[c & 15];
			} else {
				*out++ = (char)c;
			}
		}
		*out++ = '\'';
		return out;
	}
	*out++ = '\'';
	for (p = s; *p; p++) {
		if (*p == '\'') {
			memcpy(out, "'\\''", 4);
			out += 4;
		} else {
			*out++ = *p;
		}
	}
	*out++ = '\'';
	return out;
}

char *hwt_bundle_quote_argv(int argc, char *const argv[])
{
	size_t need = 1;
	char *text, *out;
	int i;

	if (argc < 0 || (argc > 0 && !argv))
		return NULL;
	for (i = 0; i < argc; i++) {
		size_t n = argv[i] ? strlen(argv[i]) : 0;

		if (n > (SIZE_MAX - need) / 4 - 8)
			return NULL;
		need += 4 * n + 4;
	}
	text = malloc(need);
	if (!text)
		return NULL;
	out = text;
	for (i = 0; i < argc; i++) {
		if (i)
			*out++ = ' ';
		out = quote_word(out, argv[i] ? argv[i] : "");
	}
	*out = '\0';
	return text;
}
