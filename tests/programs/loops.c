/* loops: nested for/while loops, early break and continue, a do-while. */
#include <stdio.h>

/* Read through volatile so that -O2 cannot fold the loops away. */
static volatile int scale = 1;

static long nested_for(int n)
{
	long total = 0;

	for (int i = 0; i < n; i++) {
		for (int j = 0; j < n; j++) {
			if ((i + j) % 3 == 0)
				continue;
			if (j > i + 7)
				break;
			total += (long)i * j;
		}
	}
	return total;
}

static unsigned collatz_steps(unsigned x)
{
	unsigned steps = 0;

	while (x != 1) {
		if (x & 1)
			x = 3 * x + 1;
		else
			x /= 2;
		steps++;
	}
	return steps;
}

static int digit_sum(unsigned x)
{
	int sum = 0;

	do {
		sum += x % 10;
		x /= 10;
	} while (x != 0);
	return sum;
}

static int find_first_multiple(const int *a, int n, int k)
{
	int i = 0;

	while (i < n) {
		if (a[i] == 0) {
			i++;
			continue;
		}
		if (a[i] % k == 0)
			break;
		i++;
	}
	return i;
}

int main(void)
{
	int a[256];
	unsigned longest = 0, total_steps = 0;
	int dsum = 0, found = 0;

	printf("nested_for: %ld\n", nested_for(48 * scale));

	for (unsigned x = 1; x <= 200u * scale; x++) {
		unsigned s = collatz_steps(x);
		total_steps += s;
		if (s > longest)
			longest = s;
	}
	printf("collatz: total %u longest %u\n", total_steps, longest);

	for (unsigned x = 0; x < 500u * scale; x += 7)
		dsum += digit_sum(x * 131u);
	printf("digit_sum: %d\n", dsum);

	for (int i = 0; i < 256; i++)
		a[i] = (i * 37 + 11) % 64;
	for (int k = 2; k < 40; k++)
		found += find_first_multiple(a, 256, k * scale);
	printf("find_first_multiple: %d\n", found);
	return 0;
}
