/*
 * Code of cov_included.c, compiled into it by #include (as cJSON's tests
 * include ../cJSON.c to reach its static functions): its lines must be
 * reported under this file, not under the file that includes it.
 */
static int scale(int x, int k)
{
	if (k == 0)
		return x;
	return x * k;
}

static int sum_scaled(const int *v, int n, int k)
{
	int s = 0, i;

	for (i = 0; i < n; i++)
		s += scale(v[i], k);
	return s;
}
