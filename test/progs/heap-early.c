/*
 * heap-early - allocates before main, with every allocation function:
 * in a .preinit_array function (which runs before any shared library's
 * constructor, the tracer's included: its allocator wrappers then run
 * before it has started) and in a constructor; then main checks every
 * block's contents, grows and frees them, and prints what it saw.  The
 * output must be the same traced and untraced (check-e2e-heap.c).
 *
 * Prints "early K", "ctor K", "main K" (K: a checksum of the blocks),
 * and "usable N": the usable bytes main allocated itself, after the
 * constructors.
 */
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NBLOCKS 10

struct blocks {
	unsigned char *p[NBLOCKS];
	size_t n[NBLOCKS];
};

static struct blocks early, ctor;

/* One block from each allocation function, filled with a pattern. */
static void allocate(struct blocks *b, unsigned seed)
{
	void *m = NULL;

	b->p[0] = malloc(b->n[0] = 100);
	b->p[1] = calloc(1, b->n[1] = 200);
	b->p[2] = realloc(NULL, b->n[2] = 300);
	if (posix_memalign(&m, 64, b->n[3] = 400))
		m = NULL;
	b->p[3] = m;
	b->p[4] = aligned_alloc(128, b->n[4] = 512);
	b->p[5] = memalign(256, b->n[5] = 600);
	b->p[6] = valloc(b->n[6] = 700);
	b->p[7] = pvalloc(b->n[7] = 800);
	b->p[8] = reallocarray(NULL, 9, b->n[8] = 100);
	b->n[8] = 900;
	b->p[9] = (unsigned char *)strdup("an early string");
	b->n[9] = 16;
	for (int i = 0; i < NBLOCKS; i++) {
		if (!b->p[i]) {
			fputs("heap-early: allocation failed\n", stderr);
			exit(1);
		}
		if (i != 9)
			for (size_t j = 0; j < b->n[i]; j++)
				b->p[i][j] = (unsigned char)(seed + i + j);
	}
}

static unsigned long checksum(const struct blocks *b, unsigned seed)
{
	unsigned long k = 0;

	for (int i = 0; i < NBLOCKS; i++)
		for (size_t j = 0; j < b->n[i]; j++) {
			if (i != 9 &&
			    b->p[i][j] != (unsigned char)(seed + i + j)) {
				fprintf(stderr,
					"heap-early: block %d changed\n", i);
				exit(1);
			}
			k = k * 31 + b->p[i][j];
		}
	return k;
}

static void release(struct blocks *b)
{
	for (int i = 0; i < NBLOCKS; i++) {
		/* grow first: realloc of a block made before main */
		b->p[i] = realloc(b->p[i], b->n[i] * 2);
		free(b->p[i]);
	}
}

static void preinit(int argc, char **argv, char **envp)
{
	(void)argc, (void)argv, (void)envp;
	allocate(&early, 1);
}

__attribute__((section(".preinit_array"),
	       used)) static void (*run_preinit)(int, char **,
						 char **) = preinit;

__attribute__((constructor)) static void constructor(void)
{
	allocate(&ctor, 2);
}

int main(void)
{
	struct blocks mine;
	size_t usable = 0;

	printf("early %lu\n", checksum(&early, 1));
	printf("ctor %lu\n", checksum(&ctor, 2));
	allocate(&mine, 3);
	for (int i = 0; i < NBLOCKS; i++)
		usable += malloc_usable_size(mine.p[i]);
	printf("main %lu\n", checksum(&mine, 3));
	printf("usable %zu\n", usable);
	release(&early);
	release(&ctor);
	release(&mine);
	return 0;
}
