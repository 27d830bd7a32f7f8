/*
 * cov_included: the first function gcc emits comes from an included .c
 * file, so the included file is file 1 of the DWARF 5 line table and the
 * rows of its first function set no file (gcc relies on the initial file
 * register, 1). Its lines belong to cov_included_impl.c.
 */
#include <stdio.h>

#include "cov_included_impl.c"

int main(int argc, char **argv)
{
	int v[4] = { 1, 2, 3, 4 };
	int k = argc > 1 ? 3 : 0;

	(void)argv;
	printf("%d %d\n", sum_scaled(v, 4, k), sum_scaled(v, 2, 2));
	return 0;
}
