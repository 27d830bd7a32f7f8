/*
 * cov_basic: one file with the control flow that line coverage must get
 * right: if/else chains, a switch, for/while/do-while loops with break and
 * continue, short-circuit conditions, the ternary operator, goto, early
 * returns, recursion, void functions with and without a return statement,
 * a statement spanning lines, and a function that never runs.
 */
#include <stdio.h>
#include <stdlib.h>

static int counter;

static int never_called(int x)
{
	if (x > 3)
		return x * 2;
	return -x;
}

static int classify(int v)
{
	if (v < 0)
		return -1;
	else if (v == 0)
		return 0;
	switch (v % 5) {
	case 0:
		return 10;
	case 1:
		v += 3;
		break;
	case 3:
		v -= 1;
		/* fall through */
	case 4:
		v *= 2;
		break;
	default:
		v = 7;
	}
	return v;
}

static void bump(int by)
{
	counter += by;
}

static void bump_positive(int by)
{
	if (by <= 0)
		return;
	counter += by;
}

static long loops(int n)
{
	long s = 0;
	int j = 0;

	for (int i = 0; i < n; i++)
		s += i;
	while (j < n) {
		j++;
		if (j % 3 == 0 && j > 4)
			continue;
		if (j == n - 1 || s < 0)
			break;
		s ^= j;
	}
	do {
		s -= 3;
	} while (s > 100);
	return s;
}

static int fact(int n)
{
	return n <= 1 ? 1 : n * fact(n - 1);
}

static int find(const int *a, int n, int key)
{
	int i;

	for (i = 0; i < n; i++) {
		if (a[i] == key)
			goto found;
	}
	return -1;
found:
	return i;
}

int main(int argc, char **argv)
{
	int total = 0;
	int table[16];

	(void)argv;
	for (int k = -2; k < 12; k++)
		total += classify(k);
	for (int k = -1; k < 4; k++) {
		bump(k);
		bump_positive(k);
	}
	total += (int)loops(40);
	total += fact(7);
	for (int k = 0; k < 16; k++)
		table[k] = k * k;
	total += find(table, 16, 49) + find(table, 16, 50);
	if (argc > 5) {
		total += never_called(total);
		puts("unreachable");
	}
	printf("cov_basic: %d %d\n",
	       total,
	       counter);
	return total == 123456 ? 1 : 0;
}
