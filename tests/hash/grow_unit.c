/*
 * converters/grow.h: hwt_grow_array makes room by doubling and keeps what
 * was there; hwt_grow_array_zeroed also zeroes every new element (the test
 * runs with MALLOC_PERTURB_, so fresh memory is not zero by chance).
 */
#include <stdint.h>
#include <stdlib.h>

#include "grow.h"
#include "unit_check.h"

static void test_grow(void)
{
	uint32_t *a = NULL, *p;
	size_t cap = 0;

	a = hwt_grow_array(a, &cap, 1, sizeof(*a));
	CHECK(a && cap == 16);
	for (size_t i = 0; a && i < cap; i++)
		a[i] = (uint32_t)i;
	/* Room enough: the same array. */
	p = hwt_grow_array(a, &cap, 16, sizeof(*a));
	CHECK(p == a && cap == 16);
	/* Doubled until it fits; what was there stays. */
	p = hwt_grow_array(a, &cap, 100, sizeof(*a));
	CHECK(p && cap == 128);
	if (p)
		a = p;
	for (size_t i = 0; i < 16; i++)
		CHECK(a[i] == i);
	free(a);
}

static void test_zeroed(void)
{
	uint64_t *a = NULL, *p;
	size_t cap = 0, old;

	a = hwt_grow_array_zeroed(a, &cap, 5, sizeof(*a));
	CHECK(a && cap == 16);
	for (size_t i = 0; a && i < cap; i++)
		CHECK(a[i] == 0);
	for (size_t i = 0; a && i < cap; i++)
		a[i] = ~(uint64_t)0 - i;
	/* Grown by an index past the end: old elements kept, every new one zero. */
	old = cap;
	p = hwt_grow_array_zeroed(a, &cap, 1000 + 1, sizeof(*a));
	CHECK(p && cap == 1024);
	if (p)
		a = p;
	for (size_t i = 0; i < old; i++)
		CHECK(a[i] == ~(uint64_t)0 - i);
	for (size_t i = old; p && i < cap; i++)
		CHECK(a[i] == 0);
	/* Room enough: nothing moves and nothing is cleared. */
	a[20] = 7;
	p = hwt_grow_array_zeroed(a, &cap, 21, sizeof(*a));
	CHECK(p == a && cap == 1024 && a[20] == 7);
	free(a);
}

int main(void)
{
	test_grow();
	test_zeroed();
	return unit_exit("grow_unit");
}
