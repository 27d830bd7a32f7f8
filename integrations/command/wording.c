/*
 * How the commands word figures (hwt_command.h): a noun after its count,
 * a size in the unit that suits it, a percentage or "no lines" when there
 * is nothing to count; one place, so every command says them alike.
 */
#include <stdint.h>
#include <stdio.h>

#include "hwt_command.h"

const char *hwt_noun(uint64_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

const char *hwt_format_size(char *buf, size_t size, uint64_t bytes)
{
	static const char *const units[] = { "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	double v = (double)bytes;
	size_t u = 0;

	if (bytes < 1024) {
		snprintf(buf, size, "%llu %s", (unsigned long long)bytes, bytes == 1 ? "byte" : "bytes");
		return buf;
	}
	v /= 1024;
	/* Three significant digits; 1023.9 KiB rounds to "1024 KiB", so go up a unit at 999.5. */
	while (v >= 999.5 && u + 1 < sizeof(units) / sizeof(units[0])) {
		v /= 1024;
		u++;
	}
	snprintf(buf, size, v < 9.995 ? "%.2f %s" : v < 99.95 ? "%.1f %s" : "%.0f %s", v, units[u]);
	return buf;
}

double hwt_percent(uint64_t hit, uint64_t found)
{
	/* In tenths, rounded to the nearest as lcov and genhtml round. */
	uint64_t tenths = found ? (hit * 2000 + found) / (2 * found) : 0;

	/* As they do too: all but one of 10000 is not 100.0%, one of 10000 not 0.0%. */
	if (tenths == 1000 && hit < found)
		tenths = 999;
	if (tenths == 0 && hit > 0)
		tenths = 1;
	return (double)tenths / 10.0;
}

const char *hwt_format_ratio(char *buf, size_t size, uint64_t hit, uint64_t found,
			     const char *many)
{
	double pct;

	if (!found) {
		snprintf(buf, size, "no %s", many);
		return buf;
	}
	pct = hwt_percent(hit, found);
	snprintf(buf, size, "%.1f%% (%llu of %llu %s)", pct, (unsigned long long)hit,
		 (unsigned long long)found, many);
	return buf;
}
