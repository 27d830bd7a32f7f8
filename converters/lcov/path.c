/* Path normalisation for source file names. */
#include <stdlib.h>
#include <string.h>

#include "lcov_int.h"

char *hwt_lcov_normalize_path(const char *path)
{
	size_t n = strlen(path), len = 0;
	char *out = malloc(n + 1);
	const char *p = path;
	int absolute = path[0] == '/';

	if (!out)
		return NULL;
	if (absolute)
		out[len++] = '/';
	while (*p) {
		const char *seg;
		size_t seglen;

		while (*p == '/')
			p++;
		seg = p;
		while (*p && *p != '/')
			p++;
		seglen = (size_t)(p - seg);
		if (seglen == 0 || (seglen == 1 && seg[0] == '.'))
			continue;
		if (seglen == 2 && seg[0] == '.' && seg[1] == '.') {
			/* Drop the previous segment unless there is none or it is "..". */
			size_t start = len, prev;

			while (start > (size_t)absolute && out[start - 1] == '/')
				start--;
			prev = start;
			while (prev > (size_t)absolute && out[prev - 1] != '/')
				prev--;
			if (start > prev && !(start - prev == 2 && out[prev] == '.' &&
					      out[prev + 1] == '.')) {
				len = prev;
				continue;
			}
			if (absolute && start == 1)
				continue; /* "/.." is "/" */
		}
		if (len > 0 && out[len - 1] != '/')
			out[len++] = '/';
		memcpy(out + len, seg, seglen);
		len += seglen;
	}
	if (len > 1 && out[len - 1] == '/')
		len--;
	if (len == 0)
		out[len++] = '.';
	out[len] = '\0';
	return out;
}
