/* two_threads: the main thread and one pthread take turns (sched_yield and
 * a pipe ping-pong between rounds), each running its own loop; the test of
 * per-CPU perf.data puts both on one CPU. */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <unistd.h>

#define ROUNDS 40

static int ping[2], pong[2];

static long primes_below(long n)
{
	long count = 0;

	for (long k = 2; k < n; k++) {
		long d = 2;

		while (d * d <= k && k % d)
			d++;
		count += d * d > k;
	}
	return count;
}

static long digit_sum(long n)
{
	long s = 0;

	for (long k = 0; k < n; k++)
		for (long v = k; v; v /= 10)
			s += v % 10;
	return s;
}

static void *other(void *arg)
{
	long total = 0;
	char c;

	(void)arg;
	for (int r = 0; r < ROUNDS; r++) {
		if (read(ping[0], &c, 1) != 1)
			break;
		total += digit_sum(200 + r);
		sched_yield();
		if (write(pong[1], &c, 1) != 1)
			break;
	}
	return (void *)total;
}

int main(void)
{
	pthread_t t;
	long mine = 0;
	void *theirs;
	char c = 'x';

	if (pipe(ping) || pipe(pong) || pthread_create(&t, NULL, other, NULL))
		return 1;
	for (int r = 0; r < ROUNDS; r++) {
		mine += primes_below(150 + r);
		if (write(ping[1], &c, 1) != 1 || read(pong[0], &c, 1) != 1)
			return 1;
		sched_yield();
	}
	pthread_join(t, &theirs);
	printf("two_threads: %ld %ld\n", mine, (long)theirs);
	return 0;
}
