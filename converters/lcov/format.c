/* The coverage formats by name and by file name, and the writer of each. */
#include <string.h>
#include <strings.h>

#include "hwt_lcov.h"
#include "lcov_int.h"

static const char *const format_names[] = {
	[hwt_cov_lcov] = "lcov",
	[hwt_cov_cobertura] = "cobertura",
	[hwt_cov_json_summary] = "json",
	[hwt_cov_sonarqube] = "sonarqube",
};

#define NFORMATS (sizeof(format_names) / sizeof(format_names[0]))

const char *hwt_cov_format_name(enum hwt_cov_format format)
{
	return (size_t)format < NFORMATS ? format_names[format] : "unknown";
}

int hwt_cov_format_from_name(const char *name)
{
	size_t i;

	for (i = 0; i < NFORMATS; i++)
		if (!strcmp(format_names[i], name))
			return (int)i;
	return -1;
}

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcasecmp(s + n - m, suffix);
}

enum hwt_cov_format hwt_cov_format_from_path(const char *path)
{
	if (ends_with(path, "sonarqube.xml"))
		return hwt_cov_sonarqube;
	if (ends_with(path, ".xml"))
		return hwt_cov_cobertura;
	if (ends_with(path, ".json"))
		return hwt_cov_json_summary;
	return hwt_cov_lcov;
}

const char *hwt_cov_relative_path(const char *root, const char *path)
{
	size_t n;

	if (!root || !*root)
		return path;
	n = strlen(root);
	while (n > 1 && root[n - 1] == '/')
		n--;
	if (n == 1 && root[0] == '/')
		return path[0] == '/' && path[1] ? path + 1 : path;
	if (!strncmp(path, root, n) && path[n] == '/' && path[n + 1])
		return path + n + 1;
	return path;
}

uint64_t hwt_cov_line_branches(const struct hwt_cov_file *f, uint32_t line, size_t *next,
			       uint64_t *taken)
{
	size_t b = *next;
	uint64_t total = 0;

	*taken = 0;
	while (b < f->nbranches && f->branches[b].line < line)
		b++;
	for (; b < f->nbranches && f->branches[b].line == line; b++) {
		total++;
		*taken += f->branches[b].executed && f->branches[b].taken > 0;
	}
	*next = b;
	return total;
}

int hwt_cov_files_write(const struct hwt_cov_files *files, enum hwt_cov_format format,
			const struct hwt_cov_write_options *options, FILE *file)
{
	static const struct hwt_cov_write_options none;
	const struct hwt_cov_write_options *o = options ? options : &none;

	switch (format) {
	case hwt_cov_lcov:
		if (o->tests) {
			int rc = 0;

			for (size_t t = 0; t < o->ntests && rc == 0; t++)
				rc = hwt_cov_write_lcov(o->tests[t].files, o->tests[t].tn, file);
			return rc;
		}
		return hwt_cov_write_lcov(files, o->test_name, file);
	case hwt_cov_cobertura:
		return hwt_cov_write_cobertura(files, o->root, o->timestamp, o->producer, file);
	case hwt_cov_json_summary:
		return hwt_cov_write_json_summary(files, o->tests, o->ntests, o->root, file);
	case hwt_cov_sonarqube:
		return hwt_cov_write_sonarqube(files, o->root, file);
	}
	return -hle_invalid;
}
