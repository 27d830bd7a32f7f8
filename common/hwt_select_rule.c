/* The selection rule's pure part: see hwt_select_rule.h. */
#include "hwt_select_rule.h"

/* Outcomes of a bracket expression. */
#define BR_NOMATCH	0
#define BR_MATCH	1
#define BR_LITERAL	2	/* unterminated: the '[' is an ordinary character */
#define BR_ERROR	3	/* fnmatch reports an error: the pattern matches nothing */

static int rule_streq(const char *a, size_t alen, const char *b)
{
	size_t i;

	for (i = 0; i < alen; i++) {
		if (b[i] != a[i])
			return 0;
	}
	return b[alen] == '\0';
}

/* C-locale character classes; -1 for an unknown class name. */
static int rule_class(const char *name, size_t len, unsigned char c)
{
	int upper = c >= 'A' && c <= 'Z', lower = c >= 'a' && c <= 'z';
	int digit = c >= '0' && c <= '9', graph = c > ' ' && c < 0x7f;

	if (rule_streq(name, len, "alpha"))
		return upper || lower;
	if (rule_streq(name, len, "digit"))
		return digit;
	if (rule_streq(name, len, "alnum"))
		return upper || lower || digit;
	if (rule_streq(name, len, "upper"))
		return upper;
	if (rule_streq(name, len, "lower"))
		return lower;
	if (rule_streq(name, len, "space"))
		return c == ' ' || (c >= '\t' && c <= '\r');
	if (rule_streq(name, len, "blank"))
		return c == ' ' || c == '\t';
	if (rule_streq(name, len, "punct"))
		return graph && !upper && !lower && !digit;
	if (rule_streq(name, len, "print"))
		return graph || c == ' ';
	if (rule_streq(name, len, "graph"))
		return graph;
	if (rule_streq(name, len, "cntrl"))
		return c < ' ' || c == 0x7f;
	if (rule_streq(name, len, "xdigit"))
		return digit || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
	return -1;
}

/*
 * "[:name:]", "[.c.]" or "[=c=]" at pat[i] (which is '['): the index of
 * the closing "x]" in *end, or 0 when there is none (then '[' is an
 * ordinary member of the bracket).
 */
static int rule_bracket_item(const char *pat, size_t plen, size_t i, size_t *end)
{
	char kind;
	size_t j;

	if (i + 1 >= plen || (pat[i + 1] != ':' && pat[i + 1] != '.' && pat[i + 1] != '='))
		return 0;
	kind = pat[i + 1];
	for (j = i + 2; j + 1 < plen; j++) {
		if (pat[j] == kind && pat[j + 1] == ']') {
			*end = j;
			return 1;
		}
	}
	return 0;
}

/*
 * One endpoint of a range or a single member at pat[*i]: a quoted
 * character, a one-character "[.c.]"/"[=c=]", or the character itself.
 * Returns 0, or BR_ERROR.
 */
static int rule_bracket_char(const char *pat, size_t plen, size_t *i, unsigned char *out)
{
	size_t end;

	if (pat[*i] == '\\') {
		if (*i + 1 >= plen)
			return BR_ERROR;
		*out = (unsigned char)pat[*i + 1];
		*i += 2;
		return 0;
	}
	if (pat[*i] == '[' && rule_bracket_item(pat, plen, *i, &end) && pat[*i + 1] != ':') {
		if (end != *i + 3)	/* only one-character collating elements exist in C */
			return BR_ERROR;
		*out = (unsigned char)pat[*i + 2];
		*i = end + 2;
		return 0;
	}
	*out = (unsigned char)pat[*i];
	*i += 1;
	return 0;
}

/* The bracket expression at pat[p] ('[') against @c; *next is past its ']'. */
static int rule_bracket(const char *pat, size_t plen, size_t p, unsigned char c, size_t *next)
{
	size_t i = p + 1, end;
	int neg = 0, matched = 0, first = 1, r;
	unsigned char lo, hi;

	if (i < plen && (pat[i] == '!' || pat[i] == '^')) {
		neg = 1;
		i++;
	}
	for (;;) {
		if (i >= plen)
			return BR_LITERAL;
		if (pat[i] == ']' && !first) {
			*next = i + 1;
			return matched != neg ? BR_MATCH : BR_NOMATCH;
		}
		first = 0;
		if (pat[i] == '[' && rule_bracket_item(pat, plen, i, &end) && pat[i + 1] == ':') {
			r = rule_class(pat + i + 2, end - (i + 2), c);
			if (r < 0)
				return BR_ERROR;
			matched |= r;
			i = end + 2;
			continue;
		}
		if (rule_bracket_char(pat, plen, &i, &lo))
			return BR_ERROR;
		if (i + 1 < plen && pat[i] == '-' && pat[i + 1] != ']') {
			i++;
			if (rule_bracket_char(pat, plen, &i, &hi))
				return BR_ERROR;
			matched |= lo <= c && c <= hi;
		} else {
			matched |= lo == c;
		}
	}
}

int hwt_rule_glob(const char *pat, size_t plen, const char *str, size_t slen)
{
	size_t p = 0, s = 0, star_p = 0, star_s = 0, next;
	int star = 0, r;

	while (s < slen) {
		unsigned char c = (unsigned char)str[s];

		if (p < plen) {
			switch (pat[p]) {
			case '*':
				while (p < plen && pat[p] == '*')
					p++;
				if (p == plen)
					return 1;
				star = 1;
				star_p = p;
				star_s = s;
				continue;
			case '?':
				p++;
				s++;
				continue;
			case '[':
				r = rule_bracket(pat, plen, p, c, &next);
				if (r == BR_ERROR)
					return 0;
				if (r == BR_MATCH) {
					p = next;
					s++;
					continue;
				}
				if (r == BR_LITERAL && c == '[') {
					p++;
					s++;
					continue;
				}
				break;
			case '\\':
				if (p + 1 >= plen)
					return 0;
				if ((unsigned char)pat[p + 1] == c) {
					p += 2;
					s++;
					continue;
				}
				break;
			default:
				if ((unsigned char)pat[p] == c) {
					p++;
					s++;
					continue;
				}
				break;
			}
		}
		/* Mismatch: the last '*' takes one more character, if there was one. */
		if (!star)
			return 0;
		p = star_p;
		s = ++star_s;
	}
	while (p < plen && pat[p] == '*')
		p++;
	return p == plen;
}

int hwt_rule_globs(const char *globs, size_t len, const char *path)
{
	const char *base = path;
	size_t plen, blen, i = 0, n;
	int slash;

	for (plen = 0; path[plen]; plen++) {
		if (path[plen] == '/')
			base = path + plen + 1;
	}
	blen = plen - (size_t)(base - path);
	while (i < len) {
		slash = 0;
		for (n = 0; i + n < len && globs[i + n] != '\n'; n++)
			slash |= globs[i + n] == '/';
		if (n > 0) {
			if (hwt_rule_glob(globs + i, n, path, plen))
				return 1;
			if (!slash && hwt_rule_glob(globs + i, n, base, blen))
				return 1;
		}
		i += n + 1;
	}
	return 0;
}

int hwt_rule_system_dir(const char *path)
{
	static const char *const dirs[] = { "/usr", "/bin", "/sbin", "/lib", "/lib32",
					    "/lib64", "/libx32", "/etc" };
	size_t d, n;

	for (d = 0; d < sizeof(dirs) / sizeof(dirs[0]); d++) {
		for (n = 0; dirs[d][n] && path[n] == dirs[d][n]; n++)
			;
		if (!dirs[d][n] && (path[n] == '/' || path[n] == '\0'))
			return 1;
	}
	return 0;
}

enum hwt_rule_verdict hwt_rule_decide(const struct hwt_rule_facts *f, const char **reason)
{
	*reason = NULL;
	if (f->no_trace) {
		*reason = HWT_RULE_WHY_NO_TRACE;
		return HWT_RULE_NATIVE;
	}
	if (f->set_id) {
		*reason = HWT_RULE_WHY_SET_ID;
		return HWT_RULE_NATIVE;
	}
	if (!f->elf) {
		*reason = HWT_RULE_WHY_NOT_ELF;
		return HWT_RULE_NATIVE;
	}
	if (f->trace)
		return HWT_RULE_TRACE;
	if (f->system_dir) {
		*reason = HWT_RULE_WHY_SYSTEM;
		return HWT_RULE_NATIVE;
	}
	if (f->debug_info < 0)
		return HWT_RULE_NEED_DEBUG_INFO;
	if (!f->debug_info) {
		*reason = HWT_RULE_WHY_NO_DEBUG;
		return HWT_RULE_NATIVE;
	}
	if (f->outside_project < 0)
		return HWT_RULE_NEED_PROJECT;
	if (f->outside_project) {
		*reason = f->outside_project == HWT_RULE_UNREADABLE ? HWT_RULE_WHY_UNREADABLE
								    : HWT_RULE_WHY_OUTSIDE;
		return HWT_RULE_NATIVE;
	}
	return HWT_RULE_TRACE;
}
