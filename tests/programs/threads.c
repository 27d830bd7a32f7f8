/* threads: four pthreads, each running a different deterministic loop,
 * joined by the main thread. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static volatile int scale = 1;

struct job {
	int id;
	long result;
};

static long sum_of_multiples(int n)
{
	long sum = 0;

	for (int i = 0; i < n; i++)
		if (i % 3 == 0 || i % 5 == 0)
			sum += i;
	return sum;
}

static long collatz_total(int n)
{
	long total = 0;

	for (int x = 1; x <= n; x++) {
		unsigned long v = (unsigned long)x;
		while (v != 1) {
			v = (v & 1) ? 3 * v + 1 : v / 2;
			total++;
		}
	}
	return total;
}

static long string_hash(int rounds)
{
	char buf[64];
	unsigned long h = 5381;

	memset(buf, 0, sizeof buf);
	for (int r = 0; r < rounds; r++) {
		for (int i = 0; i < 63; i++)
			buf[i] = (char)('a' + (r + i) % 26);
		for (const char *p = buf; *p; p++)
			h = h * 33 + (unsigned char)*p;
	}
	return (long)(h & 0x7fffffff);
}

static long count_primes(int n)
{
	static char composite[4096];
	long count = 0;

	for (int i = 2; i < n; i++) {
		if (composite[i])
			continue;
		count++;
		for (int j = 2 * i; j < n; j += i)
			composite[j] = 1;
	}
	return count;
}

static void *worker(void *arg)
{
	struct job *job = arg;

	switch (job->id) {
	case 0:
		job->result = sum_of_multiples(5000 * scale);
		break;
	case 1:
		job->result = collatz_total(120 * scale);
		break;
	case 2:
		job->result = string_hash(50 * scale);
		break;
	default:
		job->result = count_primes(3000);
		break;
	}
	return NULL;
}

int main(void)
{
	pthread_t tid[4];
	struct job jobs[4];

	for (int i = 0; i < 4; i++) {
		jobs[i].id = i;
		jobs[i].result = 0;
		if (pthread_create(&tid[i], NULL, worker, &jobs[i]) != 0) {
			fprintf(stderr, "threads: pthread_create failed\n");
			return 1;
		}
	}
	for (int i = 0; i < 4; i++)
		pthread_join(tid[i], NULL);
	for (int i = 0; i < 4; i++)
		printf("thread %d: %ld\n", i, jobs[i].result);
	return 0;
}
