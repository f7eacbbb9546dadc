/*
 * array.h - growable arrays: the caller keeps a pointer, its capacity and
 * its count; GROW makes room before an append.
 *
 *	struct item *v = NULL;
 *	size_t n = 0, cap = 0;
 *
 *	if (GROW(v, cap, n + 1))
 *		return -ENOMEM;
 *	v[n++] = it;
 *	...
 *	free(v);
 *
 * The capacity doubles (from 16 elements), so n appends copy O(n)
 * elements in all.  On failure, -ENOMEM, the array is left as it was:
 * nothing is lost and nothing leaks.  Growing moves the array: pointers
 * into it do not survive a GROW that grew it.
 */
#ifndef CAUSAL_ARRAY_H
#define CAUSAL_ARRAY_H

#include <stddef.h>

/*
 * Make *arr (*cap elements of elem bytes) hold at least n elements:
 * 0, or -ENOMEM when out of memory or n * elem does not fit a size_t
 * (-EINVAL for elem 0).
 */
int array_grow(void **arr, size_t *cap, size_t n, size_t elem);

/*
 * GROW(arr, cap, n): array_grow() for an array of any type, arr and cap
 * being lvalues (cap a size_t).  arr goes through a void * of its own:
 * no write to a T * through a void ** (strict aliasing).
 */
#define GROW(arr, cap, n)                                                      \
	({                                                                     \
		void *grow_p_ = (arr);                                         \
		int grow_r_ =                                                  \
		    array_grow(&grow_p_, &(cap), (n), sizeof(*(arr)));         \
		(arr) = grow_p_;                                               \
		grow_r_;                                                       \
	})

#endif
