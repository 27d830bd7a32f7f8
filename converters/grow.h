/*
 * Growing a dynamic array, for the converters' user-space libraries.
 */
#ifndef HWT_GROW_H
#define HWT_GROW_H

#include <stdlib.h>
#include <string.h>

/*
 * Makes room for need elements of size bytes in array, which has room for
 * *cap: doubles the capacity until it fits. Returns the (maybe moved) array
 * and updates *cap, or returns NULL when out of memory, leaving array and
 * *cap as they were (like realloc).
 */
static inline void *hwt_grow_array(void *array, size_t *cap, size_t need, size_t size)
{
	size_t n = *cap ? *cap : 16;
	void *p;

	if (need <= *cap)
		return array;
	while (n < need)
		n *= 2;
	p = realloc(array, n * size);
	if (p)
		*cap = n;
	return p;
}

/* The same, with the new elements (from the old *cap on) zeroed: for an
   array indexed by an id, where a zero element is an empty one. */
static inline void *hwt_grow_array_zeroed(void *array, size_t *cap, size_t need, size_t size)
{
	size_t old = *cap;
	unsigned char *p = hwt_grow_array(array, cap, need, size);

	if (p && *cap > old)
		memset(p + old * size, 0, (*cap - old) * size);
	return p;
}

#endif /* HWT_GROW_H */
