/* --include / --exclude: glob patterns on source paths. */
#include <fnmatch.h>
#include <stddef.h>

#include "hwt_lcov.h"

int hwt_lcov_filter_match(const struct hwt_lcov_filter *filter, const char *path)
{
	size_t i;
	int included = filter->includes == 0;

	/* No FNM_PATHNAME: a star crosses slashes, as in gcovr and kcov patterns. */
	for (i = 0; i < filter->includes && !included; i++)
		included = fnmatch(filter->include[i], path, 0) == 0;
	if (!included)
		return 0;
	for (i = 0; i < filter->excludes; i++)
		if (fnmatch(filter->exclude[i], path, 0) == 0)
			return 0;
	return 1;
}
