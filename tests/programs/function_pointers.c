/* function_pointers: calls through a table of function pointers, and qsort
 * and bsearch calling back into comparators in this program from libc. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile unsigned seed = 7;

static long op_add(long a, long b) { return a + b; }
static long op_sub(long a, long b) { return a - b; }
static long op_mul(long a, long b) { return (a * b) & 0xffffff; }
static long op_xor(long a, long b) { return a ^ b; }
static long op_max(long a, long b) { return a > b ? a : b; }
static long op_shift(long a, long b) { return (a << (b & 3)) & 0xffffff; }

static long (*const ops[])(long, long) = {
	op_add, op_sub, op_mul, op_xor, op_max, op_shift,
};

struct person {
	char name[16];
	int age;
};

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	if (x < y)
		return -1;
	return x > y;
}

static int cmp_person(const void *a, const void *b)
{
	const struct person *p = a, *q = b;
	int c = strcmp(p->name, q->name);

	if (c != 0)
		return c;
	return p->age - q->age;
}

static long fold(const int *v, int n, long (*f)(long, long), long init)
{
	long acc = init;

	for (int i = 0; i < n; i++)
		acc = f(acc, v[i]);
	return acc;
}

int main(void)
{
	static const char *const names[] = { "mia", "ada", "bob", "zoe", "eve", "kim" };
	struct person people[60];
	int v[300];
	unsigned state = seed;
	long acc = 1;
	int found = 0;

	for (int i = 0; i < 300; i++) {
		state = state * 1664525u + 1013904223u;
		v[i] = (int)(state >> 20);
	}
	for (int i = 0; i < 600; i++)
		acc = ops[(unsigned)(v[i % 300] + i) % 6](acc, v[(i * 7) % 300]);
	printf("table: %ld\n", acc);

	for (int k = 0; k < 6; k++)
		printf("fold %d: %ld\n", k, fold(v, 50, ops[k], k));

	qsort(v, 300, sizeof v[0], cmp_int);
	for (int i = 0; i < 300; i += 3)
		found += bsearch(&v[i], v, 300, sizeof v[0], cmp_int) != NULL;
	printf("sorted: first %d last %d found %d\n", v[0], v[299], found);

	for (int i = 0; i < 60; i++) {
		snprintf(people[i].name, sizeof people[i].name, "%s", names[(i * 5) % 6]);
		people[i].age = (i * 13) % 50;
	}
	qsort(people, 60, sizeof people[0], cmp_person);
	printf("people: %s %d .. %s %d\n", people[0].name, people[0].age,
	       people[59].name, people[59].age);
	return 0;
}
