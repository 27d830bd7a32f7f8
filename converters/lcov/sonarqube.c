/*
 * SonarQube's generic test coverage format (sonar.coverageReportPaths):
 * per file, each line that has code, covered or not, and for a line with
 * conditional branches how many there are and how many were taken. Paths
 * are relative to the root (SonarQube resolves them from the project's
 * base directory).
 */
#include <stdint.h>

#include "write_text.h"
#include "hwt_lcov.h"
#include "lcov_int.h"

int hwt_cov_write_sonarqube(const struct hwt_cov_files *files, const char *root, FILE *file)
{
	size_t i, k, b;

	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<coverage version=\"1\">\n", file);
	for (i = 0; i < files->count; i++) {
		const struct hwt_cov_file *f = &files->file[i];

		fputs("  <file path=\"", file);
		hwt_write_xml_text(file, hwt_cov_relative_path(root, f->path));
		fputs("\">\n", file);
		for (k = 0, b = 0; k < f->nlines; k++) {
			uint32_t line = f->lines[k].line;
			uint64_t taken, total = hwt_cov_line_branches(f, line, &b, &taken);

			fprintf(file, "    <lineToCover lineNumber=\"%u\" covered=\"%s\"", line,
				f->lines[k].count ? "true" : "false");
			if (total)
				fprintf(file, " branchesToCover=\"%llu\" coveredBranches=\"%llu\"",
					(unsigned long long)total, (unsigned long long)taken);
			fputs("/>\n", file);
		}
		fputs("  </file>\n", file);
	}
	fputs("</coverage>\n", file);
	fflush(file);
	return ferror(file) ? -hle_io : 0;
}
