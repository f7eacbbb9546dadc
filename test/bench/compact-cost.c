/*
 * compact-cost - what localised structural compaction (ccsg/compact/compact.c)
 * costs on a generated call tree of N nodes: building the compacted tree,
 * a global level change, and local compact / expand actions (time and
 * peak memory).  The tree: breadth first, 0 to 3 children a node (mean
 * 1.6, so about 30 levels deep), names of four elements (org.pkg.Class.m)
 * where a callee stays in its caller's package 7 times out of 10.
 *
 *   compact-cost N [SEED]
 *
 * One line per measure, "NAME VALUE UNIT"; bench-compact.sh compares
 * them with the target.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "compact/compact.h"

static uint64_t rng = 0x2545f4914f6cdd1dULL;

static unsigned rnd(unsigned n)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return (unsigned)((rng * 0x2545f4914f6cdd1dULL) >> 33) % n;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static long peak_mb(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss / 1024;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The org, pkg, class and method of each node, and the tree. */
static int generate(struct compact_tree *t, size_t n)
{
	int32_t(*who)[4] = malloc(n * sizeof(*who));
	size_t made = 1;

	if (!who)
		return -ENOMEM;
	for (size_t head = 0; made < n; head++) {
		/* 0..3 children, mean 1.6; the root has many */
		unsigned k =
			head == 0 ? 20 : (unsigned[]){ 0, 1, 1, 2, 2,
						       2, 3, 3, 0, 2 }[rnd(10)];

		if (head >= made) /* every leaf: go on from a random node */
			head = rnd((unsigned)made);
		for (unsigned i = 0; i < k && made < n; i++, made++) {
			const int32_t *p = head ? who[head] : NULL;
			char e[4][16];
			const char *ep[4] = { e[0], e[1], e[2], e[3] };
			int32_t *w = who[made], name, v;

			if (p && rnd(10) < 7) {
				w[0] = p[0];
				w[1] = p[1];
				w[2] = rnd(2) ? p[2] : (int32_t)rnd(64);
			} else {
				w[0] = (int32_t)rnd(8);
				w[1] = (int32_t)rnd(16);
				w[2] = (int32_t)rnd(64);
			}
			w[3] = (int32_t)rnd(32);
			snprintf(e[0], sizeof(e[0]), "org%d", w[0]);
			snprintf(e[1], sizeof(e[1]), "pkg%d", w[1]);
			snprintf(e[2], sizeof(e[2]), "Class%d", w[2]);
			snprintf(e[3], sizeof(e[3]), "m%d", w[3]);
			if ((name = compact_tree_name(t, ep, 4)) < 0 ||
			    (v = compact_tree_add(t, (int32_t)head, name,
						  rnd(5), 0, 0)) < 0)
				return -ENOMEM;
		}
	}
	free(who);
	compact_tree_sum_totals(t);
	return 0;
}

/* Time of n local actions on random nodes (compact, else expand). */
static void local_actions(struct compact_tree *t, size_t n, const char *what)
{
	double *ms = malloc(n * sizeof(*ms)), total = 0;
	int32_t *live = malloc(t->nnodes * sizeof(*live));
	size_t nlive = 0, refused = 0;

	for (size_t c = 1; c < t->nnodes; c++)
		if (t->nodes[c].members)
			live[nlive++] = (int32_t)c;
	for (size_t i = 0; i < n; i++) {
		int32_t c = live[rnd((unsigned)nlive)],
			anchor = t->nodes[c].first_member;
		double t0 = now_ms();
		int ret = compact_tree_compact(t, c);

		if (ret == -EPERM)
			ret = compact_tree_expand(t, c);
		ms[i] = now_ms() - t0;
		refused += ret != 0;
		total += ms[i];
		/* live ids move with each rebuild: draw from the original nodes
		 */
		live[rnd((unsigned)nlive)] = t->orig[anchor].comp;
		for (size_t k = 0; k < nlive; k++)
			if (!t->nodes[live[k]].members)
				live[k] = t->orig[1 + rnd((unsigned)(t->n - 1))]
						  .comp;
	}
	qsort(ms, n, sizeof(*ms), cmp_double);
	printf("%s_median %.3f ms\n", what, ms[n / 2]);
	printf("%s_p95 %.3f ms\n", what, ms[n * 95 / 100]);
	printf("%s_max %.3f ms\n", what, ms[n - 1]);
	printf("%s_mean %.3f ms (%zu actions, %zu refused both ways)\n", what,
	       total / n, n, refused);
	free(ms);
	free(live);
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 100000;
	struct compact_tree t;
	double t0;
	int32_t big = -1;

	if (argc > 2)
		rng ^= strtoull(argv[2], NULL, 10);
	if (n < 100 || compact_tree_init(&t, ".")) {
		fprintf(stderr, "usage: compact-cost N (100 or more) [SEED]\n");
		return 2;
	}
	t0 = now_ms();
	if (generate(&t, n)) {
		fprintf(stderr, "compact-cost: out of memory\n");
		return 1;
	}
	printf("nodes %zu\n", t.n - 1);
	printf("generate %.1f ms\n", now_ms() - t0);
	t0 = now_ms();
	if (compact_tree_build(&t))
		return 1;
	printf("build %.1f ms (%zu compacted nodes)\n", now_ms() - t0,
	       t.live - 1);
	t0 = now_ms();
	if (compact_tree_level_max(&t, 2))
		return 1;
	printf("level_2 %.1f ms (%zu compacted nodes)\n", now_ms() - t0,
	       t.live - 1);
	t0 = now_ms();
	if (compact_tree_level_max(&t, 1))
		return 1;
	printf("level_1 %.1f ms (%zu compacted nodes)\n", now_ms() - t0,
	       t.live - 1);
	t0 = now_ms();
	if (compact_tree_level_min(&t, 3))
		return 1;
	printf("level_min_3 %.1f ms (%zu compacted nodes)\n", now_ms() - t0,
	       t.live - 1);
	/* the worst local action: the largest top-level node, its subtree
	 * all the tree's but its siblings' */
	for (int32_t c = t.nodes[0].first_child; c >= 0;
	     c = t.nodes[c].next_sibling)
		if (big < 0 || t.nodes[c].total > t.nodes[big].total)
			big = c;
	{
		int32_t anchor = t.nodes[big].first_member;
		double a, b;
		int r1, r2;

		t0 = now_ms();
		r1 = compact_tree_compact(&t, big);
		a = now_ms() - t0;
		t0 = now_ms();
		r2 = compact_tree_expand(&t, t.orig[anchor].comp);
		b = now_ms() - t0;
		printf("local_largest_compact %.3f ms (%s)\n", a,
		       r1 ? "refused" : "done");
		printf("local_largest_expand %.3f ms (%s)\n", b,
		       r2 ? "refused" : "done");
	}
	local_actions(&t, 400, "local");
	printf("peak_memory %ld MB\n", peak_mb());
	compact_tree_release(&t);
	return 0;
}
