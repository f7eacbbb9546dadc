/*
 * array.c - growable arrays (array.h).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "array.h"

int array_grow(void **arr, size_t *cap, size_t n, size_t elem)
{
	size_t c = *cap ? *cap : 16;
	void *p;

	if (n <= *cap)
		return 0;
	if (!elem)
		return -EINVAL;
	if (n > SIZE_MAX / elem)
		return -ENOMEM;
	while (c < n)
		c = c > SIZE_MAX / 2 ? n : c * 2;
	if (c > SIZE_MAX / elem) /* doubled past the limit: just enough */
		c = n;
	p = realloc(*arr, c * elem);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = c;
	return 0;
}
